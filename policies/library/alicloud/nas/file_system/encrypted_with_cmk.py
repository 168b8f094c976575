"""NAS and CPFS file systems encrypted with the stack's KMS key (encryptType 2)."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    kind = int(props.get("encryptType", 0) or 0)
    if kind == 0:
        yield "encryptType is 0: the file system is not encrypted"
    elif kind == 1:
        yield "encryptType is 1: NAS-managed key; use 2 with kmsKeyId for a customer key"
    elif not props.get("kmsKeyId"):
        yield "encryptType 2 without kmsKeyId"


RULE = ResourceRule(
    description="NAS and CPFS file systems must be encrypted with a customer KMS key.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud NAS: server-side encryption",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set encryptType: 2 and kmsKeyId.",
    url="https://www.alibabacloud.com/help/en/nas/user-guide/server-side-encryption",
    types=("alicloud:nas/fileSystem:FileSystem",),
    check=check,
)
