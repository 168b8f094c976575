"""OSS buckets are private: private ACL and a public access block."""

from ....props import attached, of_type
from ....refs import GDPR, HIPAA, MLPS
from ....rule import StackRule


def check(resources, config):
    blocks = of_type(resources, "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock")
    for bucket in of_type(resources, "alicloud:oss/bucket:Bucket"):
        if bucket.props.get("acl", "private") != "private":
            yield f"bucket {bucket.name} has ACL {bucket.props.get('acl')}", bucket.urn
        if not any(b.props.get("blockPublicAccess") is True for b in attached(bucket, blocks, "bucket")):
            yield f"bucket {bucket.name} has no public access block", bucket.urn


RULE = StackRule(
    description="OSS buckets must have a private ACL and block public access.",
    severity="critical",
    references={
        "baseline": "Alibaba Cloud OSS: block public access",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set acl: private and add an oss.BucketPublicAccessBlock with blockPublicAccess: true.",
    url="https://www.alibabacloud.com/help/en/oss/user-guide/block-public-access",
    types=("alicloud:oss/bucket:Bucket", "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock"),
    check=check,
)
