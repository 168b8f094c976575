"""The CNCF Kubernetes AI Conformance checklists (ai_conformance.yaml), one per Kubernetes minor, as typed items,
so the offline plan can judge a cluster against the checklist of its own minor."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .yamlfile import load_yaml

AI_CONFORMANCE_FILE = Path(__file__).with_name("ai_conformance.yaml")


@dataclass(frozen=True)
class Item:
    id: str
    area: str  # the checklist's section: accelerators, networking, schedulingOrchestration, ...
    level: str  # MUST | SHOULD
    description: str


@dataclass(frozen=True)
class Checklist:
    minor: str  # "1.35"
    path: str
    commit: str
    date: str
    items: tuple[Item, ...]

    @property
    def source(self) -> str:
        return f"{table()['repository']}/blob/{self.commit}/{self.path}"


@lru_cache(maxsize=1)
def table() -> dict:
    return load_yaml(AI_CONFORMANCE_FILE)


def checklist(minor: str) -> Checklist | None:
    """The checklist published for Kubernetes ``minor`` ("1.35"); None where CNCF publishes none."""
    entry = table()["versions"].get(minor)
    if entry is None:
        return None
    items = tuple(Item(i["id"], i["area"], i["level"], i["description"]) for i in entry["items"])
    return Checklist(minor, entry["path"], entry["commit"], str(entry["date"]), items)


def minors() -> list[str]:
    return list(table()["versions"])
