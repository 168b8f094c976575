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


@dataclass(frozen=True)
class BaseConformance:
    """A platform's cncf/k8s-conformance entry for one Kubernetes minor (the submission's k8sConformanceUrl)."""

    cloud: str  # eks | ack
    minor: str
    path: str  # v1.35/eks
    commit: str  # a commit of cncf/k8s-conformance that holds <path>/PRODUCT.yaml

    @property
    def url(self) -> str:
        """The form cncf/k8s-ai-conformance scripts/validate.go accepts: .../tree/master/v{version}/{product}."""
        return f"{table()['k8s_conformance']['repository']}/tree/master/{self.path}"


def base_conformance(cloud: str, minor: str) -> BaseConformance | None:
    """EKS's or ACK's entry for Kubernetes ``minor``; None where the catalog records none."""
    entry = (table()["k8s_conformance"].get(cloud) or {}).get(minor)
    return None if entry is None else BaseConformance(cloud, minor, entry["path"], entry["commit"])
