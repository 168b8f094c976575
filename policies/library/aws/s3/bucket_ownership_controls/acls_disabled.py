"""Bucket ownership controls disable ACLs: with BucketOwnerEnforced the bucket owner owns every object and ACLs no
longer grant access, so access is managed by policies alone. ObjectWriter and BucketOwnerPreferred keep ACLs in
force (Amazon S3 User Guide, "Controlling ownership of objects and disabling ACLs for your bucket")."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    ownership = (props.get("rule") or {}).get("objectOwnership")
    if ownership != "BucketOwnerEnforced":
        yield f"objectOwnership {ownership} keeps ACLs in force; BucketOwnerEnforced disables them"


RULE = ResourceRule(
    description="S3 bucket ownership controls must disable ACLs (objectOwnership BucketOwnerEnforced).",
    severity="medium",
    references={
        "baseline": "AWS Security Hub S3.12",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set rule.objectOwnership to BucketOwnerEnforced and grant access with bucket policies.",
    url=SECURITY_HUB.format("s3"),
    types=("aws:s3/bucketOwnershipControls:BucketOwnershipControls",),
    check=check,
)
