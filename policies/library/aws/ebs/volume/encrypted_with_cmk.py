"""EBS volumes encrypted with a customer-managed KMS key."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("encrypted") is not True:
        yield "the volume is not encrypted; set encrypted: true"
    elif not props.get("kmsKeyId"):
        yield "the volume uses the AWS-managed key; set kmsKeyId to the stack's customer-managed key"


RULE = ResourceRule(
    description="EBS volumes must be encrypted with a customer-managed KMS key.",
    severity="high",
    references={
        "baseline": "AWS Security Hub EC2.3",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set encrypted: true and kmsKeyId to a customer-managed key with rotation on.",
    url=SECURITY_HUB.format("ec2"),
    types=("aws:ebs/volume:Volume",),
    check=check,
)
