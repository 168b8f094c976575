"""Every S3 bucket has lifecycle rules, so old versions and data do not live forever."""

from ....props import items
from ....refs import GDPR, SECURITY_HUB
from ....rule import StackRule
from .companions import BUCKET, buckets_with, first_failure

LIFECYCLE = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"


def check(resources, config):
    for bucket, companions in buckets_with(resources, LIFECYCLE):
        failure = first_failure(
            bucket,
            companions,
            lambda p: any(r.get("status") == "Enabled" for r in items(p.get("rules"))),
            "enabled lifecycle rule",
        )
        if failure:
            yield failure


RULE = StackRule(
    description="S3 buckets must have an enabled lifecycle rule (storage limitation).",
    severity="medium",
    references={"gdpr": GDPR.format("Art. 5(1)(e)")},
    remediation="Add a BucketLifecycleConfiguration that expires noncurrent versions and data past its purpose.",
    url=SECURITY_HUB.format("s3"),
    types=(BUCKET, LIFECYCLE),
    check=check,
)
