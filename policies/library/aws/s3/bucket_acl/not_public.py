"""Bucket ACLs grant nothing to AllUsers or AuthenticatedUsers (any AWS account)."""

from ....props import items
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule

# Canned ACLs that grant to the AllUsers or AuthenticatedUsers groups (S3 user guide, "Canned ACL").
PUBLIC_CANNED = ("public-read", "public-read-write", "authenticated-read")
PUBLIC_GROUPS = (
    "http://acs.amazonaws.com/groups/global/AllUsers",
    "http://acs.amazonaws.com/groups/global/AuthenticatedUsers",
)


def check(props, config, args):
    if props.get("acl") in PUBLIC_CANNED:
        yield f"canned ACL {props.get('acl')} makes the bucket readable by anyone"
    policy = props.get("accessControlPolicy") or {}
    for grant in items(policy.get("grants")):
        grantee = grant.get("grantee") or {}
        if grantee.get("uri") in PUBLIC_GROUPS:
            yield f"grants {grant.get('permission')} to {grantee.get('uri').rsplit('/', 1)[-1]}"


RULE = ResourceRule(
    description="S3 bucket ACLs must not grant access to everyone or to any AWS account.",
    severity="critical",
    references={
        "baseline": "AWS Security Hub S3.2, S3.3",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Disable ACLs (BucketOwnershipControls: BucketOwnerEnforced) or use acl: private.",
    url=SECURITY_HUB.format("s3"),
    types=("aws:s3/bucketAcl:BucketAcl",),
    check=check,
)
