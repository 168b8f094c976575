"""OSS bucket policies grant nothing to everyone (Principal ["*"] with no narrowing condition)."""

from ....iam import wildcard_principal_grants
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    for sid in wildcard_principal_grants(props.get("policy")):
        yield f"{sid} allows Principal '*' with no condition: the bucket is public"


RULE = ResourceRule(
    description="OSS bucket policies must not allow access to everyone.",
    severity="critical",
    references={
        "baseline": "Alibaba Cloud OSS: block public access",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Name RAM users or roles as principals, or narrow with acs:SourceVpc / acs:SourceIp conditions.",
    url="https://www.alibabacloud.com/help/en/oss/user-guide/oss-bucket-policy/",
    types=("alicloud:oss/bucketPolicy:BucketPolicy",),
    check=check,
)
