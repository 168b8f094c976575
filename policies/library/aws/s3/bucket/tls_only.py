"""Every S3 bucket refuses requests that do not use TLS."""

from ....props import as_list, statements
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule
from .companions import BUCKET, buckets_with, first_failure

POLICY = "aws:s3/bucketPolicy:BucketPolicy"


def denies_plain_http(props):
    for statement in statements(props.get("policy")):
        condition = (statement.get("Condition") or {}).get("Bool") or {}
        if (
            statement.get("Effect") == "Deny"
            and "s3:*" in as_list(statement.get("Action"))
            and str(condition.get("aws:SecureTransport")).lower() == "false"
        ):
            return True
    return False


def check(resources, config):
    for bucket, companions in buckets_with(resources, POLICY):
        failure = first_failure(
            bucket, companions, denies_plain_http, "bucket policy denying s3:* when aws:SecureTransport is false"
        )
        if failure:
            yield failure


RULE = StackRule(
    description="S3 bucket policies must deny requests that do not use TLS.",
    severity="high",
    references={
        "baseline": "AWS Security Hub S3.5",
        "hipaa": HIPAA.format("164.312(e)(2)(ii)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation="Add a Deny statement for s3:* with Condition Bool aws:SecureTransport = false.",
    url=SECURITY_HUB.format("s3"),
    types=(BUCKET, POLICY),
    check=check,
)
