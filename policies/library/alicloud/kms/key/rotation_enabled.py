"""Alibaba Cloud KMS keys rotate automatically."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("automaticRotation") != "Enabled":
        yield "automaticRotation is not Enabled"


RULE = ResourceRule(
    description="KMS keys must have automatic rotation enabled.",
    severity="medium",
    references={"baseline": "Alibaba Cloud KMS: automatic key rotation", "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
                "gdpr": GDPR.format("Art. 32(1)(a)"), "mlps": MLPS.format("8.1.4.8 数据保密性")},
    remediation="Set automaticRotation: Enabled and rotationInterval (for example 8760h).",
    url="https://www.alibabacloud.com/help/en/kms/key-management-service/user-guide/key-rotation",
    types=("alicloud:kms/key:Key",),
    check=check,
)
