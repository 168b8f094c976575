"""How long each cloud supports a Kubernetes minor version, and what that means on a given day."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

from .yamlfile import load_yaml

VERSIONS_FILE = Path(__file__).with_name("kubernetes_versions.yaml")
Support = Literal["standard", "extended", "ended", "unknown"]


@dataclass(frozen=True)
class VersionSupport:
    cloud: str
    version: str
    support: Support
    ends: Optional[dt.date]  # when the current support level ends
    source: str


@lru_cache(maxsize=1)
def _table() -> dict:
    return load_yaml(VERSIONS_FILE)


def supported_versions(cloud: str) -> list[str]:
    return sorted(_table()[cloud], key=lambda v: tuple(int(p) for p in v.split(".")))


def support(cloud: str, version: str, today: Optional[dt.date] = None) -> VersionSupport:
    today = today or dt.date.today()
    table = _table()
    entry = table[cloud].get(version)
    if entry is None:
        return VersionSupport(cloud, version, "unknown", None, "")
    source = table["sources"][entry["source"]]
    if today <= entry["standard_ends"]:
        return VersionSupport(cloud, version, "standard", entry["standard_ends"], source)
    if entry["extended_ends"] and today <= entry["extended_ends"]:
        return VersionSupport(cloud, version, "extended", entry["extended_ends"], source)
    return VersionSupport(cloud, version, "ended", entry["extended_ends"] or entry["standard_ends"], source)
