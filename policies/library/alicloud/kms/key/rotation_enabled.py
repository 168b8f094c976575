"""Alibaba Cloud KMS keys rotate automatically, at most every `maxRotationDays` (90 by default).

rotationInterval is a duration with unit d, h, m or s ("7776000s" is 90 days; pulumi-alicloud 4.0.0
`kms.Key.rotation_interval`, read 2026-11-24).
"""

import re

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule

UNITS = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}
DURATION = re.compile(r"^\s*(\d+)\s*([dhms])\s*$")


def interval_days(value):
    """Days in a rotationInterval, or None when it is not a duration KMS accepts."""
    match = DURATION.match(str(value)) if value is not None else None
    return int(match.group(1)) * UNITS[match.group(2)] / 86_400 if match else None


def check(props, config, args):
    if props.get("automaticRotation") != "Enabled":
        yield "automaticRotation is not Enabled"
        return
    most = config["maxRotationDays"]
    days = interval_days(props.get("rotationInterval"))
    if days is None:
        yield f"rotationInterval is not set to a duration (d, h, m or s) of at most {most} days"
    elif days > most:
        yield f"rotationInterval is {days:g} days, more than {most}"


RULE = ResourceRule(
    description="KMS keys must rotate automatically, at most every maxRotationDays.",
    severity="medium",
    references={
        "baseline": "Alibaba Cloud KMS: automatic key rotation",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set automaticRotation: Enabled and rotationInterval: 7776000s (90 days; stack: "
    "encryption.keyRotationDays).",
    url="https://www.alibabacloud.com/help/en/kms/key-management-service/user-guide/key-rotation",
    config={
        "maxRotationDays": {
            "type": "integer",
            "minimum": 7,
            "maximum": 365,
            "default": 90,
            "description": "Most days between rotations (software keys allow 7 to 365).",
        }
    },
    types=("alicloud:kms/key:Key",),
    check=check,
)
