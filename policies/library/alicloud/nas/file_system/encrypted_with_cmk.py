"""NAS file systems encrypted with the stack's KMS key (encryptType 2); CPFS cannot be (its data is reported)."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    from catalog.file_systems import customer_key_types, encryption_source

    fs_type = props.get("fileSystemType") or "standard"
    kind = int(props.get("encryptType", 0) or 0)
    if fs_type not in customer_key_types():
        # CreateFileSystem takes no customer key for this type: whatever is sent, the data is not under one.
        yield (
            f"fileSystemType {fs_type}: CreateFileSystem takes no customer key for it (encryptType 2 only for "
            f"{', '.join(customer_key_types())}; {encryption_source()}), so its data at rest is not encrypted with "
            "the stack's key: keep regulated data in the SSE-KMS bucket, or use NAS extreme"
        )
    elif kind == 0:
        yield "encryptType is 0: the file system is not encrypted"
    elif kind == 1:
        yield "encryptType is 1: NAS-managed key; use 2 with kmsKeyId for a customer key"
    elif not props.get("kmsKeyId"):
        yield "encryptType 2 without kmsKeyId"


RULE = ResourceRule(
    description="NAS and CPFS file systems must be encrypted with a customer KMS key (CPFS cannot be: reported).",
    severity="high",
    references={
        "baseline": "Alibaba Cloud NAS: server-side encryption",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="NAS extreme: set encryptType: 2 and kmsKeyId. CPFS: no customer key can be set through the API; "
    "keep the data in the SSE-KMS OSS bucket (CPFS as its cache) or use NAS extreme (parallelFs.type: nas).",
    url="https://www.alibabacloud.com/help/en/nas/user-guide/server-side-encryption",
    types=("alicloud:nas/fileSystem:FileSystem",),
    check=check,
)
