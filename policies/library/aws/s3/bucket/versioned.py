"""Every S3 bucket keeps object versions, so deletes and overwrites can be undone."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule
from .companions import BUCKET, buckets_with, first_failure

VERSIONING = "aws:s3/bucketVersioning:BucketVersioning"


def check(resources, config):
    for bucket, companions in buckets_with(resources, VERSIONING):
        failure = first_failure(
            bucket,
            companions,
            lambda p: (p.get("versioningConfiguration") or {}).get("status") == "Enabled",
            "versioning enabled",
        )
        if failure:
            yield failure


RULE = StackRule(
    description="S3 buckets must have versioning enabled.",
    severity="medium",
    references={
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(A), 164.312(c)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(c)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
        "baseline": "AWS Security Hub S3.14",
    },
    remediation="Add a BucketVersioning with versioningConfiguration.status Enabled.",
    url=SECURITY_HUB.format("s3"),
    types=(BUCKET, VERSIONING),
    check=check,
)
