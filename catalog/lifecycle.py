"""End of support of pinned charts and add-ons (lifecycle.yaml), by release line, so a plan can say when one passed."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from pathlib import Path
from typing import Optional

from .yamlfile import load_yaml

LIFECYCLE_FILE = Path(__file__).with_name("lifecycle.yaml")


@lru_cache(maxsize=1)
def table() -> dict:
    return load_yaml(LIFECYCLE_FILE)


def release_line(version: str) -> str:
    """'v26.7.0' -> '26.7': the part a vendor's lifecycle is published for."""
    return ".".join(version.strip().lstrip("v").split(".")[:2])


def end_of_support(kind: str, name: str, version: str) -> tuple[Optional[dt.date], str]:
    """(end of support, source key) of chart/add-on ``name`` at ``version``; (None, "") where none is published.

    kind is "charts" or "addons/<cloud>"."""
    entries = table()
    for part in kind.split("/"):
        entries = entries.get(part) or {}
    entry = entries.get(name) or {}
    line = (entry.get("releases") or {}).get(release_line(version)) if version else None
    if line is None or line.get("end_of_support") is None:
        return None, ""
    return line["end_of_support"], entry.get("source", "")


def source(key: str) -> str:
    return table()["sources"].get(key, key)
