"""Log groups (flow logs, CloudTrail, EKS) encrypted with a customer key."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if not props.get("kmsKeyId"):
        yield "the log group has no kmsKeyId"


RULE = ResourceRule(
    description="CloudWatch log groups must be encrypted with a customer-managed KMS key.",
    severity="medium",
    references={
        "baseline": "CloudWatch Logs User Guide: encrypt log data with AWS KMS",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set kmsKeyId to a key whose policy lets logs.<region>.amazonaws.com use it.",
    url="https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html",
    types=("aws:cloudwatch/logGroup:LogGroup",),
    check=check,
)
