"""Every S3 bucket blocks public ACLs and policies."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule
from .companions import buckets_with, first_failure

PAB = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
SETTINGS = ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")


def check(resources, config):
    for bucket, companions in buckets_with(resources, PAB):
        failure = first_failure(
            bucket,
            companions,
            lambda p: all(p.get(s) is True for s in SETTINGS),
            "public access block with all four settings on",
        )
        if failure:
            yield failure


RULE = StackRule(
    description="S3 buckets must have a public access block with all four settings on.",
    severity="critical",
    references={
        "baseline": "AWS Security Hub S3.8",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Add a BucketPublicAccessBlock with " + ", ".join(SETTINGS) + " set to true.",
    url=SECURITY_HUB.format("s3"),
    check=check,
)
