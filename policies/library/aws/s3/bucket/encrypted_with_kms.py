"""Every S3 bucket encrypts objects by default with a customer-managed KMS key."""

from ....props import items
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule
from .companions import BUCKET, buckets_with, first_failure

SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"


def kms_default(props):
    for rule in items(props.get("rules")):
        default = rule.get("applyServerSideEncryptionByDefault") or {}
        if default.get("sseAlgorithm") in ("aws:kms", "aws:kms:dsse") and default.get("kmsMasterKeyId"):
            return True
    return False


def check(resources, config):
    for bucket, companions in buckets_with(resources, SSE):
        failure = first_failure(bucket, companions, kms_default, "default encryption with a customer KMS key")
        if failure:
            yield failure


RULE = StackRule(
    description="S3 buckets must encrypt by default with a customer-managed KMS key.",
    severity="high",
    references={
        "baseline": "AWS Security Hub S3.17",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Add a BucketServerSideEncryptionConfiguration with sseAlgorithm aws:kms and kmsMasterKeyId.",
    url=SECURITY_HUB.format("s3"),
    types=(BUCKET, SSE),
    check=check,
)
