"""ECS disks encrypted with a KMS key the stack owns."""

from ....props import truthy
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if not truthy(props.get("encrypted")):
        yield "the disk is not encrypted; set encrypted: true"
    elif not props.get("kmsKeyId"):
        yield "the disk uses the service key; set kmsKeyId to the stack's KMS key"


RULE = ResourceRule(
    description="ECS disks must be encrypted with a customer KMS key.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud ECS: encrypt cloud disks",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set encrypted: true and kmsKeyId.",
    url="https://www.alibabacloud.com/help/en/ecs/user-guide/encrypt-cloud-disks",
    types=("alicloud:ecs/ecsDisk:EcsDisk", "alicloud:ecs/disk:Disk"),
    check=check,
)
