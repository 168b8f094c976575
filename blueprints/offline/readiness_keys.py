"""Readiness of the stack key's rotation: a key rotates as its key management type allows, not as asked.

Alibaba Cloud KMS: a key created outside a KMS instance (no dkmsInstanceId) is a default key, and "default keys
support only a fixed period of 365 days, software-protected keys support 7 to 365 days" (pulumi-alicloud 4.0.0
`kms.Key.rotation_interval`, and https://www.alibabacloud.com/help/en/kms/developer-reference/api-createkey; read
2026-11-24). A shorter rotationInterval on a default key is not what KMS does.
"""

from __future__ import annotations

from typing import Sequence

from catalog.clouds import type_of

from .engine import Registration
from .readiness import WARNING, Finding

ALICLOUD_KEY = type_of("alicloud", "key")
DEFAULT_KEY_DAYS = 365


def check(regs: Sequence[Registration]) -> list[Finding]:
    from policies.library.alicloud.kms.key.rotation_enabled import interval_days

    findings = []
    for r in regs:
        if r.type != ALICLOUD_KEY or r.inputs.get("dkmsInstanceId") or r.inputs.get("automaticRotation") != "Enabled":
            continue
        days = interval_days(r.inputs.get("rotationInterval"))
        if days is not None and days != DEFAULT_KEY_DAYS:
            findings.append(
                Finding(
                    "key-rotation",
                    WARNING,
                    r.name,
                    f"key {r.name} asks for rotation every {days:g} days but is a default key (no KMS instance), which "
                    f"Alibaba Cloud KMS rotates every {DEFAULT_KEY_DAYS} days only",
                    "create a KMS instance (software key management) and set encryption.kmsInstanceId to it",
                )
            )
    return findings
