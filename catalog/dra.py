"""Dynamic Resource Allocation for GPUs (dra.yaml): from which Kubernetes minor a DRA group works on each cloud, and
whether each autoscaling engine can grow an empty DRA group, each with its source."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .ai_conformance import table as conformance_table
from .yamlfile import load_yaml

DRA_FILE = Path(__file__).with_name("dra.yaml")


@lru_cache(maxsize=1)
def table() -> dict:
    return load_yaml(DRA_FILE)


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def min_minor(cloud: str) -> str:
    """The lowest Kubernetes minor a DRA group may run on: the control plane's DRA API (ai_conformance.yaml) and the
    driver's and Kueue's own floor, whichever is later."""
    api = conformance_table()["judging"]["dra_api_since"][table()["api_key"][cloud]]
    return max(api, table()["min_minor"]["version"], key=_minor)


def supports(cloud: str, minor: str) -> bool:
    return _minor(minor) >= _minor(min_minor(cloud))


@dataclass(frozen=True)
class FromZero:
    answer: str  # yes | no | undocumented
    source: str  # the sources entry's text


def from_zero(cloud: str, engine: str) -> FromZero:
    """Can `engine` add a node to an empty DRA group of `cloud` for a pod that claims devices?"""
    row = table()["from_zero"].get(cloud, {}).get(engine) or {"answer": "undocumented", "source": ""}
    return FromZero(row["answer"], table()["sources"].get(row["source"], ""))


def fabric_min_minor(cloud: str) -> str | None:
    """From which Kubernetes minor a DRA group's fabric devices (EFA) are claimed through DRA too; None: never."""
    row = table().get("fabric", {}).get(cloud)
    return row["min_minor"] if row else None


def fabric_dra(cloud: str, minor: str) -> bool:
    since = fabric_min_minor(cloud)
    return since is not None and _minor(minor) >= _minor(since)


def fabric_chart(cloud: str) -> str | None:
    """The chart (components/kubernetes/charts.yaml) of the cloud's fabric DRA driver; None: none."""
    row = table().get("fabric", {}).get(cloud)
    return row["chart"] if row else None
