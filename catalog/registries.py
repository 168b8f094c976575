"""Which registries a cluster in a region can pull images and charts from (registries.yaml), as typed rows and one
lookup, so the readiness check warns before `pulumi up` stalls on an image pull (issue #30)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

from .yamlfile import load_yaml

REGISTRIES_FILE = Path(__file__).with_name("registries.yaml")
Status = Literal["reachable", "unreliable", "unreachable"]
# A mirror: a registry host (a dotted name, an optional port) and an optional path of lowercase components, as the
# OCI distribution spec spells repository names; no scheme, no tag, no trailing slash.
MIRROR = re.compile(
    r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*$"
)


@dataclass(frozen=True)
class Reach:
    pattern: str
    origin: str  # a region group, same-region or any
    status: Status
    source: str  # the source's text, not its key
    certainty: Literal["recorded", "uncertain"] = "recorded"


@lru_cache(maxsize=1)
def _facts() -> dict:
    return load_yaml(REGISTRIES_FILE)


def rows() -> list[Reach]:
    facts = _facts()
    return [
        Reach(r["pattern"], r["from"], r["status"], facts["sources"][r["source"]], r.get("certainty", "recorded"))
        for r in facts["hosts"]
    ]


def in_group(group: str, cloud: str, region: str) -> bool:
    rule = _facts()["regions"][group].get(cloud)
    return bool(rule) and fnmatchcase(region, rule["match"]) and region not in rule["except"]


def reach(host: str, cloud: str, region: str) -> Optional[Reach]:
    """What the catalog records about pulling from `host` in `region`; None when it records nothing."""
    for row in rows():
        pattern = row.pattern.replace("{region}", region)
        if not fnmatchcase(host, pattern):
            continue
        if row.origin in ("same-region", "any") or in_group(row.origin, cloud, region):
            return row
    return None
