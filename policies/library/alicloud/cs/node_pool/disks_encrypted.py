"""ACK node pools encrypt system and data disks with the stack's KMS key."""

from ....props import items, truthy
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if not truthy(props.get("systemDiskEncrypted")) or not props.get("systemDiskKmsKey"):
        yield "the system disk is not encrypted with a KMS key (systemDiskEncrypted, systemDiskKmsKey)"
    for index, disk in enumerate(items(props.get("dataDisks"))):
        if not truthy(disk.get("encrypted")) or not disk.get("kmsKeyId"):
            yield f"data disk {index} is not encrypted with a KMS key (encrypted, kmsKeyId)"


RULE = ResourceRule(
    description="ACK node pool system and data disks must be encrypted with a customer KMS key.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud ACK: node pool disk encryption",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set systemDiskEncrypted, systemDiskKmsKey and each dataDisks[].encrypted/kmsKeyId.",
    url="https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/create-a-node-pool",
    types=("alicloud:cs/nodePool:NodePool",),
    check=check,
)
