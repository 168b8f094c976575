"""Symmetric KMS keys rotate their key material automatically, at most every `maxRotationDays` (90 by default).

AWS rotates every 365 days unless RotationPeriodInDays (90-2560) says otherwise
(https://docs.aws.amazon.com/kms/latest/developerguide/rotate-keys.html, read 2026-11-24); the 90-day default is
what our users' reference articles ask for (PCI DSS 3.6.4 leaves the period to the key's cryptoperiod).
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule

AWS_DEFAULT_DAYS = 365


def check(props, config, args):
    if props.get("customerMasterKeySpec", props.get("keySpec", "SYMMETRIC_DEFAULT")) != "SYMMETRIC_DEFAULT":
        return  # AWS rotates only symmetric encryption keys
    if props.get("enableKeyRotation") is not True:
        yield "enableKeyRotation is off"
        return
    period = props.get("rotationPeriodInDays")
    most = config["maxRotationDays"]
    if period is None:
        yield f"rotationPeriodInDays is not set: AWS rotates every {AWS_DEFAULT_DAYS} days, more than {most}"
    elif isinstance(period, (int, float)) and period > most:
        yield f"rotationPeriodInDays is {int(period)}, more than {most}"


RULE = ResourceRule(
    description="Customer-managed symmetric KMS keys must rotate automatically, at most every maxRotationDays.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub KMS.4",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set enableKeyRotation: true and rotationPeriodInDays: 90 (stack: encryption.keyRotationDays).",
    url=SECURITY_HUB.format("kms"),
    config={
        "maxRotationDays": {
            "type": "integer",
            "minimum": 90,
            "maximum": 2560,
            "default": 90,
            "description": "Most days between rotations (AWS allows 90 to 2560).",
        }
    },
    types=("aws:kms/key:Key",),
    check=check,
)
