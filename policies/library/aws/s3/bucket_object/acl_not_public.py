"""Object ACLs grant nothing to AllUsers or AuthenticatedUsers: a public-read object is readable by anyone, whatever
its bucket's policy says (unless the bucket's public access block ignores public ACLs)."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule
from ..bucket_acl.not_public import PUBLIC_CANNED


def check(props, config, args):
    if props.get("acl") in PUBLIC_CANNED:
        yield f"canned ACL {props.get('acl')} makes the object readable by anyone"


RULE = ResourceRule(
    description="S3 objects must not carry a canned ACL that grants access to everyone or to any AWS account.",
    severity="high",
    references={
        "baseline": "Amazon S3 User Guide: canned ACLs (public-read grants READ to AllUsers)",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Drop the object's acl (private is the default) and publish through CloudFront or a scoped "
    "bucket policy; BucketOwnershipControls BucketOwnerEnforced disables object ACLs altogether.",
    url="https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html#canned-acl",
    types=("aws:s3/bucketObject:BucketObject", "aws:s3/bucketObjectv2:BucketObjectv2"),
    check=check,
)
