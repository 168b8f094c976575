"""What each pinned chart and managed add-on deploys by default, and where it may run (chart_workloads.yaml).

Facts with sources, read from the charts' values.yaml and templates at the pinned version; the readiness
check combines them with the values a release sets to know where every controller and node agent lands.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Mapping, Optional

from pydantic import BaseModel, ConfigDict, Field

from .yamlfile import load_yaml

FACTS_FILE = Path(__file__).with_name("chart_workloads.yaml")


def _lookup(values: Mapping[str, Any], dotted: Optional[str]) -> Any:
    """values['a']['b'] for 'a.b'; None when any part is missing."""
    if not dotted:
        return None
    node: Any = values
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


class Workload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    kind: Literal["Deployment", "DaemonSet", "StatefulSet", "Job"]
    default_node_selector: dict[str, str] = Field(default_factory=dict, alias="node_selector")
    default_tolerations: list[dict[str, Any]] = Field(default_factory=list, alias="tolerations")
    values_keys: dict[str, str] = Field(default_factory=dict)  # node_selector / tolerations -> values path
    enabled_by: Optional[str] = None  # values path of the switch, if the chart has one
    enabled_default: bool = True
    runs_on: Optional[Literal["any-node", "gpu-nodes", "all-nodes", "efa-nodes"]] = None
    required_labels_any: list[dict[str, str]] = Field(default_factory=list)  # REQUIRED affinity: one set must match
    append_tolerations: bool = False  # the template appends values' tolerations to its own list

    def enabled(self, values: Mapping[str, Any]) -> bool:
        switch = _lookup(values, self.enabled_by)
        return self.enabled_default if switch is None else bool(switch)

    def node_selector(self, values: Mapping[str, Any]) -> dict[str, str]:
        """Helm merges maps: values' keys are added to the chart's defaults."""
        chosen = _lookup(values, self.values_keys.get("node_selector"))
        return {**self.default_node_selector, **(chosen if isinstance(chosen, Mapping) else {})}

    def tolerations(self, values: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Helm replaces lists: a list in values (even empty) is the whole list, unless the template appends."""
        chosen = _lookup(values, self.values_keys.get("tolerations"))
        if not isinstance(chosen, list):
            return list(self.default_tolerations)
        return [*self.default_tolerations, *chosen] if self.append_tolerations else list(chosen)


@lru_cache(maxsize=1)
def _facts() -> dict[str, Any]:
    return load_yaml(FACTS_FILE)


def release_workloads(chart: str, version: str) -> Optional[list[Workload]]:
    """The chart's workloads at this version, or None when the facts were read at another version."""
    entry = _facts()["charts"].get(chart)
    if entry is None or str(entry.get("version")) != str(version):
        return None
    return [Workload(**w) for w in entry["workloads"]]


def runtime_gpu_labels(chart: str) -> dict[str, str]:
    """Labels a chart's node agents put on GPU nodes once running (NFD, the GPU Operator), incl. its operands'
    nvidia.com/gpu.deploy.<operand> switches."""
    entry = _facts()["charts"].get(chart) or {}
    labels = dict(entry.get("runtime_gpu_labels") or {})
    for w in entry.get("workloads", []):
        labels.update(
            {k: v for k, v in (w.get("node_selector") or {}).items() if k.startswith("nvidia.com/gpu.deploy.")}
        )
    return labels


def addon_workloads(addon: str) -> list[Workload]:
    """Workloads of an EKS managed add-on (a Deployment for controllers, DaemonSets for node agents)."""
    entry = _facts().get("eks-addons", {}).get(addon) or {}
    return [Workload(**w) for w in entry.get("workloads", [])]


def cluster_workloads(cloud: Literal["eks", "ack"]) -> list[Workload]:
    """What every cluster of the cloud runs on its worker nodes whatever the program declares (CoreDNS)."""
    return [Workload(**w) for w in _facts().get("cluster-defaults", {}).get(cloud, [])]
