"""Launch configuration root and EBS volumes are encrypted."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule
from ..instance.volumes_encrypted import unencrypted


def check(props, config, args):
    for device in unencrypted(props):
        yield f"{device} is not encrypted"


RULE = ResourceRule(
    description="Launch configuration root and EBS volumes must be encrypted.",
    severity="high",
    references={
        "baseline": "Checkov CKV_AWS_8",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set rootBlockDevice.encrypted and every ebsBlockDevices[].encrypted to true.",
    url="https://docs.aws.amazon.com/ebs/latest/userguide/ebs-encryption.html",
    types=("aws:ec2/launchConfiguration:LaunchConfiguration",),
    check=check,
)
