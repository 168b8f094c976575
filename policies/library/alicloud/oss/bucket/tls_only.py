"""Every OSS bucket refuses requests that do not use TLS."""

from ....props import as_list, attached, of_type, statements
from ....refs import GDPR, HIPAA, MLPS
from ....rule import StackRule


def denies_plain_http(policy) -> bool:
    for statement in statements(policy):
        secure = ((statement.get("Condition") or {}).get("Bool") or {}).get("acs:SecureTransport")
        if (
            statement.get("Effect") == "Deny"
            and "oss:*" in as_list(statement.get("Action"))
            and [str(v).lower() for v in as_list(secure)] == ["false"]
        ):
            return True
    return False


def check(resources, config):
    policies = of_type(resources, "alicloud:oss/bucketPolicy:BucketPolicy")
    for bucket in of_type(resources, "alicloud:oss/bucket:Bucket"):
        if not any(denies_plain_http(p.props.get("policy")) for p in attached(bucket, policies, "bucket")):
            yield f"bucket {bucket.name} has no policy denying oss:* when acs:SecureTransport is false", bucket.urn


RULE = StackRule(
    description="OSS bucket policies must deny requests that do not use TLS.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud OSS: bucket policy condition acs:SecureTransport",
        "hipaa": HIPAA.format("164.312(e)(2)(ii)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation="Add an oss.BucketPolicy with a Deny on oss:* when acs:SecureTransport is false.",
    url="https://www.alibabacloud.com/help/en/oss/user-guide/tutorial-use-bucket-policies-to-authorize-other-users-to-access-oss-resources",
    types=("alicloud:oss/bucket:Bucket", "alicloud:oss/bucketPolicy:BucketPolicy"),
    check=check,
)
