"""Resources that own nodes, by autoscaling engine, and what deleting one does to its nodes (see the YAML)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .yamlfile import load_yaml

PATH = Path(__file__).with_name("node_owners.yaml")


@dataclass(frozen=True)
class NodeOwner:
    """A resource type whose nodes one autoscaling engine launches; deleting it takes them."""

    type: str
    engine: str  # cluster-autoscaler | karpenter
    kind: str  # what a reviewer calls it
    on_delete: str  # what deleting it does to its nodes
    source: str


@lru_cache(maxsize=1)
def node_owners() -> dict[str, NodeOwner]:
    data = load_yaml(PATH)
    sources = {k: " ".join(v.split()) for k, v in data["sources"].items()}
    return {
        t: NodeOwner(t, e["engine"], e["kind"], e["on_delete"], sources[e["source"]]) for t, e in data["types"].items()
    }
