"""EC2 instance root and attached EBS volumes are encrypted at rest."""

from ....props import items, truthy
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def unencrypted(props):
    """Device names of the root and EBS block devices declared without encryption."""
    root = props.get("rootBlockDevice") or {}
    if not truthy(root.get("encrypted")):
        yield "the root volume"
    for device in items(props.get("ebsBlockDevices")):
        if not truthy(device.get("encrypted")):
            yield device.get("deviceName", "an EBS volume")


def check(props, config, args):
    for device in unencrypted(props):
        yield f"{device} is not encrypted (EBS volumes are unencrypted unless the account enables it by default)"


RULE = ResourceRule(
    description="EC2 instance root and EBS volumes must be encrypted.",
    severity="high",
    references={
        "baseline": "AWS Security Hub EC2.3",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set rootBlockDevice.encrypted and every ebsBlockDevices[].encrypted to true, with a kmsKeyId.",
    url=SECURITY_HUB.format("ec2"),
    types=("aws:ec2/instance:Instance",),
    check=check,
)
