"""OSS bucket ACL resources keep buckets private."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("acl") in ("public-read", "public-read-write"):
        yield f"acl {props.get('acl')} lets anyone read the bucket's objects"


RULE = ResourceRule(
    description="OSS bucket ACLs must be private.",
    severity="critical",
    references={
        "baseline": "Alibaba Cloud OSS: block public access",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set acl: private; grant access with RAM policies or a bucket policy naming principals.",
    url="https://www.alibabacloud.com/help/en/oss/user-guide/bucket-acl",
    types=("alicloud:oss/bucketAcl:BucketAcl",),
    check=check,
)
