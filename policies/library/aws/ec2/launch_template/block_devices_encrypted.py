"""Launch-template block devices (GPU node root and data volumes) encrypted with a customer key."""

from ....props import items, truthy
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    for mapping in items(props.get("blockDeviceMappings")):
        ebs = mapping.get("ebs") or {}
        device = mapping.get("deviceName", "?")
        if not ebs:
            continue  # instance-store (NVMe) mappings carry no EBS settings
        if not truthy(ebs.get("encrypted")):
            yield f"{device} is not encrypted; set ebs.encrypted"
        elif not ebs.get("kmsKeyId"):
            yield f"{device} uses the AWS-managed key; set ebs.kmsKeyId to the stack's key"


RULE = ResourceRule(
    description="Launch-template EBS volumes must be encrypted with a customer-managed KMS key.",
    severity="high",
    references={
        "baseline": "AWS Security Hub EC2.3",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="In every blockDeviceMappings[].ebs set encrypted: 'true' and kmsKeyId.",
    url=SECURITY_HUB.format("ec2"),
    types=("aws:ec2/launchTemplate:LaunchTemplate",),
    check=check,
)
