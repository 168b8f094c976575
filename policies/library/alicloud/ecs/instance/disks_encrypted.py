"""ECS instance system and data disks are encrypted."""

from ....props import items, truthy
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if not truthy(props.get("systemDiskEncrypted")):
        yield "systemDiskEncrypted is not true"
    for index, disk in enumerate(items(props.get("dataDisks"))):
        if not truthy(disk.get("encrypted")):
            yield f"data disk {disk.get('name') or index} is not encrypted"


RULE = ResourceRule(
    description="ECS instance system and data disks must be encrypted.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud ECS: encrypt cloud disks",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set systemDiskEncrypted: true (with systemDiskKmsKeyId) and dataDisks[].encrypted: true.",
    url="https://www.alibabacloud.com/help/en/ecs/user-guide/encrypt-cloud-disks",
    types=("alicloud:ecs/instance:Instance",),
    check=check,
)
