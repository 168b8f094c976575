"""OSS buckets encrypt objects with a KMS key the stack owns."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    rule = props.get("serverSideEncryptionRule") or {}
    if rule.get("sseAlgorithm") != "KMS":
        yield "serverSideEncryptionRule.sseAlgorithm is not KMS"
    elif not rule.get("kmsMasterKeyId"):
        yield "serverSideEncryptionRule has no kmsMasterKeyId: OSS uses its service key"


RULE = ResourceRule(
    description="OSS buckets must use KMS server-side encryption with a customer key.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud OSS: server-side encryption",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set serverSideEncryptionRule: {sseAlgorithm: KMS, kmsMasterKeyId: <key>}.",
    url="https://www.alibabacloud.com/help/en/oss/user-guide/server-side-encryption-8",
    types=("alicloud:oss/bucket:Bucket",),
    check=check,
)
