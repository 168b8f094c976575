"""Versions of the cloud's managed add-ons and of the Cluster Autoscaler image, per Kubernetes minor (addons.yaml)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional

from .yamlfile import load_yaml

ADDONS_FILE = Path(__file__).with_name("addons.yaml")


@dataclass(frozen=True)
class AddonVersions:
    """What one cluster installs: add-on name -> pinned version (None: ACK installs its current release)."""

    kubernetes_version: str
    managed: Mapping[str, Optional[str]]
    autoscaler_image_tag: Optional[str]  # the Cluster Autoscaler's minor must match the cluster's (EKS only)


@lru_cache(maxsize=1)
def _raw() -> dict[str, Any]:
    return load_yaml(ADDONS_FILE)


def addon_versions(cloud: str, kubernetes_version: str) -> AddonVersions:
    raw = _raw()
    if cloud == "aws":
        managed = {name: entry["versions"][kubernetes_version] for name, entry in raw["eks"].items()}
        tag = raw["cluster-autoscaler"]["image_tags"][kubernetes_version]
        return AddonVersions(kubernetes_version, managed, tag)
    return AddonVersions(kubernetes_version, {name: entry.get("version") for name, entry in raw["ack"].items()}, None)
