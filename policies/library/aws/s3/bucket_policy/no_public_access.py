"""Bucket policies grant nothing to everyone (Principal "*" without a narrowing condition)."""

from ....iam import wildcard_principal_grants
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    for sid in wildcard_principal_grants(props.get("policy")):
        yield f"{sid} allows Principal '*' with no condition: the bucket is public"


RULE = ResourceRule(
    description="S3 bucket policies must not allow access to everyone.",
    severity="critical",
    references={
        "baseline": "AWS Security Hub S3.2, S3.3",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Name the principals (roles, accounts) or narrow with conditions (aws:PrincipalOrgID, "
    "aws:SourceVpce); serve public content through CloudFront with origin access control.",
    url=SECURITY_HUB.format("s3"),
    types=("aws:s3/bucketPolicy:BucketPolicy",),
    check=check,
)
