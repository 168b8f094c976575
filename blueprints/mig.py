"""MIG through the GPU Operator: the cluster's one MIG strategy and the resources a node of each group advertises.

The GPU Operator runs one MIG strategy for the whole cluster (chart value `mig.strategy`, default single: NVIDIA/
gpu-operator v26.7.0 deployments/gpu-operator/values.yaml); the MIG manager partitions each node as its
`nvidia.com/mig.config` label says. The device plugin (k8s-device-plugin v0.20.0) then advertises:
- single: every MIG instance as `nvidia.com/gpu`, and refuses a node whose instances are not all one profile
  ("invalid MIG configuration": internal/rm/device_map.go, assertAllMigDevicesAreValid(requireUniformMIGDevices));
- mixed: each instance as `nvidia.com/mig-<profile>` (README, "Configuration Option Details", MIG_STRATEGY), whole
  GPUs of other nodes still as `nvidia.com/gpu`. Time-slicing replicates either (README, "With CUDA Time-Slicing").

The choice, per cluster: single only where it is unambiguous, every GPU group partitioned into the same one profile,
so `nvidia.com/gpu` means one thing everywhere; mixed as soon as a layout holds several profiles (all-balanced, which
single refuses), two groups use different profiles, or MIG slices sit beside whole GPUs (under single a pod asking for
`nvidia.com/gpu: 1` could get a seventh of a GPU). Kueue's quotas, the autoscaler's node templates and the plan's
cost all read the resources from `advertised`, so they name the same units.
"""

from __future__ import annotations

from typing import Iterable

from catalog import Shape
from catalog.gpu_models import mig_layouts
from components.kubernetes.nodes import GPU_RESOURCE, MIG_RESOURCE_PREFIX

from .spec import NodeGroupSpec

WHOLE = "all-disabled"


def layout(group: NodeGroupSpec, shape: Shape) -> dict[str, int]:
    """MIG profile -> GPU instances per GPU for the group's layout; empty for whole GPUs."""
    if group.mig_profile in (None, WHOLE):
        return {}
    return mig_layouts(shape.gpu.model).get(group.mig_profile, {})


def strategy(groups: Iterable[tuple[NodeGroupSpec, Shape]]) -> str:
    """single or mixed for the cluster (see the module's docstring)."""
    units = set()
    for group, shape in groups:
        profiles = layout(group, shape)
        if len(profiles) > 1:
            return "mixed"
        units.add(next(iter(profiles), None))
    return "mixed" if len(units) > 1 and any(units) else "single"


def advertised(group: NodeGroupSpec, shape: Shape, mig_strategy: str) -> dict[str, int]:
    """Extended resource -> how many one node of the group advertises: GPUs (or MIG instances) times sharing
    replicas, named as the cluster's strategy names them."""
    replicas = group.sharing.replicas if group.sharing else 1
    profiles = layout(group, shape)
    if not profiles:
        return {GPU_RESOURCE: shape.gpu.count * replicas}
    if mig_strategy == "single":
        return {GPU_RESOURCE: shape.gpu.count * sum(profiles.values()) * replicas}
    return {f"{MIG_RESOURCE_PREFIX}{p}": shape.gpu.count * n * replicas for p, n in sorted(profiles.items())}


def slices(resources: dict[str, int]) -> int:
    """Schedulable GPU units a node offers (whole or shared GPUs, MIG instances): what one slice's price divides."""
    return sum(n for r, n in resources.items() if r == GPU_RESOURCE or r.startswith(MIG_RESOURCE_PREFIX))


def mig_resources(resources: dict[str, int]) -> dict[str, int]:
    """The `nvidia.com/mig-*` part of `advertised` (mixed strategy only)."""
    return {r: n for r, n in resources.items() if r.startswith(MIG_RESOURCE_PREFIX)}


def single_slices(group: NodeGroupSpec, shape: Shape, mig_strategy: str) -> int:
    """MIG instances per GPU counted as `nvidia.com/gpu` (single strategy); 1 otherwise."""
    profiles = layout(group, shape)
    return sum(profiles.values()) if profiles and mig_strategy == "single" else 1
