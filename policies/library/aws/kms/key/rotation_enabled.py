"""Symmetric KMS keys rotate their key material yearly."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("customerMasterKeySpec", props.get("keySpec", "SYMMETRIC_DEFAULT")) != "SYMMETRIC_DEFAULT":
        return  # AWS rotates only symmetric encryption keys
    if props.get("enableKeyRotation") is not True:
        yield "enableKeyRotation is off"


RULE = ResourceRule(
    description="Customer-managed symmetric KMS keys must have automatic rotation on.",
    severity="medium",
    references={"baseline": "AWS Security Hub KMS.4", "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
                "gdpr": GDPR.format("Art. 32(1)(a)"), "mlps": MLPS.format("8.1.4.8 数据保密性")},
    remediation="Set enableKeyRotation: true.",
    url=SECURITY_HUB.format("kms"),
    types=("aws:kms/key:Key",),
    check=check,
)
