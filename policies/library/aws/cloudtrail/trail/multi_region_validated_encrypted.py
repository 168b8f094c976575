"""CloudTrail covers every region, signs its log files and encrypts them with a customer key."""

from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("isMultiRegionTrail") is not True:
        yield "isMultiRegionTrail is off: activity in other regions goes unrecorded"
    if props.get("enableLogFileValidation") is not True:
        yield "enableLogFileValidation is off: tampering with log files cannot be detected"
    if not props.get("kmsKeyId"):
        yield "kmsKeyId is unset: log files use S3-managed encryption"
    if props.get("enableLogging") is False:
        yield "enableLogging is false"


RULE = ResourceRule(
    description="CloudTrail trails must be multi-region, with log file validation and KMS encryption.",
    severity="high",
    references={
        "hipaa": HIPAA.format("164.312(b), 164.312(c)(1)"),
        "mlps": MLPS.format("8.1.4.3 安全审计 a) c)"),
        "baseline": "AWS Security Hub CloudTrail.1, CloudTrail.2, CloudTrail.4",
    },
    remediation="Set isMultiRegionTrail, enableLogFileValidation and kmsKeyId.",
    url=SECURITY_HUB.format("cloudtrail"),
    types=("aws:cloudtrail/trail:Trail",),
    check=check,
)
