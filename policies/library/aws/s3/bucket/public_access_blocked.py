"""Every S3 bucket blocks public ACLs and policies (Security Hub S3.8, severity High).$

A bucket without a BucketPublicAccessBlock is reported on the bucket. A block with any of its four settings off is
reported on the block itself, naming the settings and the bucket: that resource is the one to fix, and the bucket is
not reported a second time for it. A block whose bucket is not declared in the stack is judged all the same.
"""

from ....props import attached, of_type
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule
from .companions import BUCKET, missing

PAB = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
SETTINGS = ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")


def off(props) -> list[str]:
    """The settings not set to true (each defaults to false in the provider)."""
    return [s for s in SETTINGS if props.get(s) is not True]


def check(resources, config):
    blocks = of_type(resources, PAB)
    owner = {}
    for bucket in of_type(resources, BUCKET):
        companions = attached(bucket, blocks, "bucket")
        if not companions:
            yield missing(bucket, "public access block with all four settings on")
        for block in companions:
            owner[block.urn] = bucket.name
    for block in blocks:
        settings = off(block.props)
        if settings:
            bucket = owner.get(block.urn) or block.props.get("bucket") or "its bucket"
            yield (
                f"public access block {block.name} of bucket {bucket} leaves {', '.join(settings)} off: "
                "public ACLs or policies can open the bucket",
                block.urn,
            )


RULE = StackRule(
    description="S3 buckets must have a public access block with all four settings on.",
    severity="high",
    references={
        "baseline": "AWS Security Hub S3.8",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Add a BucketPublicAccessBlock with " + ", ".join(SETTINGS) + " set to true.",
    url=SECURITY_HUB.format("s3"),
    types=(BUCKET, PAB),
    check=check,
)
