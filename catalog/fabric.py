"""Fabric facts (fabric.yaml): published two-node all-reduce bandwidth per shape and the validation images."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from .yamlfile import load_yaml

FABRIC_FILE = Path(__file__).with_name("fabric.yaml")


@lru_cache(maxsize=1)
def _facts() -> dict[str, Any]:
    return load_yaml(FABRIC_FILE)


def published_busbw_gbps(instance_type: str) -> Optional[float]:
    entry = _facts()["busbw"].get(instance_type)
    return float(entry["gbps"]) if entry else None


def expected_transport(rdma_kind: str) -> str:
    """What NCCL's log must name: the EFA provider (AWS) or IB verbs (eRDMA)."""
    return _facts()["transports"][rdma_kind]


def default_image(cloud: str) -> Optional[str]:
    return _facts()["images"][cloud]["image"]
