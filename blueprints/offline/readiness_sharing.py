"""Readiness of shared GPUs and MIG slices: does the autoscaler see, from zero, the resources the device plugin will
advertise (nvidia.com/gpu counts, or nvidia.com/mig-<profile> under the GPU Operator's mixed MIG strategy)?

A group whose nodes select a time-slicing or MPS entry of the GPU Operator's device-plugin ConfigMap (by the label
nvidia.com/device-plugin.config) advertises each GPU `replicas` times (k8s-device-plugin v0.20.0 README, "Shared
Access to GPUs"); a MIG group, the instances its layout creates. The Cluster Autoscaler builds a node of an empty
group from its node-template tags only (cluster-autoscaler cloudprovider/aws README, "Auto-Discovery Setup"): a
template that says fewer GPUs than the plugin advertises leaves pods pending at zero nodes, or scales up too many
nodes for them. And it knows GPUs by the name nvidia.com/gpu alone (kubernetes/autoscaler #8095, open): a node with
its GPU label (k8s.amazonaws.com/accelerator on AWS) and only nvidia.com/mig-* resources is an unready GPU for good
(processors/customresources/gpu_processor.go FilterOutNodesWithUnreadyResources, cluster-autoscaler-chart-9.59.0).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import yaml

from catalog import load_catalog
from catalog.gpu_models import mig_layouts
from components.aws.cluster import GPU_LABEL as AUTOSCALER_GPU_LABEL
from components.kubernetes.nodes import (
    DEVICE_PLUGIN_CONFIG_LABEL,
    GPU_RESOURCE,
    MIG_CONFIG_LABEL,
    MIG_RESOURCE_PREFIX,
)

from .engine import Registration
from .readiness import BLOCKING, HELM_RELEASE, Finding, Pool, _pools, is_gpu_resource
from .readiness_queues import TEMPLATE_RESOURCES, _count


def plugin_configs(regs: Sequence[Registration]) -> dict[str, Mapping[str, Any]]:
    """Entry name -> parsed device-plugin configuration, from the GPU Operator release's devicePlugin.config.data."""
    for r in regs:
        if r.type == HELM_RELEASE and r.inputs.get("name") == "gpu-operator":
            data = (((r.inputs.get("values") or {}).get("devicePlugin") or {}).get("config") or {}).get("data") or {}
            return {k: yaml.safe_load(v) or {} for k, v in data.items()}
    return {}


def replicas(entry: Mapping[str, Any]) -> dict[str, int]:
    """Resource -> how many times the entry advertises each device (nvidia.com/gpu, or a mixed-strategy
    nvidia.com/mig-<profile>); resources it renames, or does not share, are left out."""
    sharing = entry.get("sharing") or {}
    out: dict[str, int] = {}
    for kind in ("mps", "timeSlicing"):
        replicated = sharing.get(kind) or {}
        for resource in replicated.get("resources") or []:
            if not (replicated.get("renameByDefault") or resource.get("rename")):
                out[resource.get("name")] = int(resource.get("replicas", 1))
    return out


def mig_strategy(regs: Sequence[Registration]) -> str:
    """The GPU Operator's MIG strategy (chart value mig.strategy; single when unset, the chart's default)."""
    for r in regs:
        if r.type == HELM_RELEASE and r.inputs.get("name") == "gpu-operator":
            return (((r.inputs.get("values") or {}).get("mig") or {}).get("strategy")) or "single"
    return "single"


def expected(pool: Pool, configs: Mapping[str, Mapping[str, Any]], strategy: str) -> dict[str, int]:
    """GPU resources one node of the pool will advertise: its GPUs, or the MIG instances its nvidia.com/mig.config
    layout creates (catalog/gpu_models.yaml, from the GPU Operator's own layouts) named as the strategy names them,
    times the replicas of its device-plugin configuration."""
    shape = load_catalog().get(pool.instance_type)
    if shape is None:
        return {}
    profiles = mig_layouts(shape.gpu.model).get(pool.labels.get(MIG_CONFIG_LABEL, ""), {})
    if not profiles:
        devices = {GPU_RESOURCE: shape.gpu.count}
    elif strategy == "mixed":
        devices = {f"{MIG_RESOURCE_PREFIX}{p}": shape.gpu.count * n for p, n in profiles.items()}
    else:
        devices = {GPU_RESOURCE: shape.gpu.count * sum(profiles.values())}
    shared = replicas(configs.get(pool.labels.get(DEVICE_PLUGIN_CONFIG_LABEL, "")) or {})
    return {r: n * shared.get(r, 1) for r, n in devices.items()}


def check(regs: Sequence[Registration]) -> list[Finding]:
    configs = plugin_configs(regs)
    strategy = mig_strategy(regs)
    findings = []
    for pool in _pools(regs):
        if not pool.template or not (DEVICE_PLUGIN_CONFIG_LABEL in pool.labels or MIG_CONFIG_LABEL in pool.labels):
            continue
        want = expected(pool, configs, strategy)
        have = {
            k.removeprefix(TEMPLATE_RESOURCES): _count(v) or 0
            for k, v in pool.template.items()
            if k.startswith(TEMPLATE_RESOURCES) and is_gpu_resource(k.removeprefix(TEMPLATE_RESOURCES))
        }
        if GPU_RESOURCE not in want and AUTOSCALER_GPU_LABEL in pool.labels:
            findings.append(
                Finding(
                    "mig-node-unready-to-autoscaler",
                    BLOCKING,
                    pool.name,
                    f"{pool.name}'s nodes carry {AUTOSCALER_GPU_LABEL} but advertise no {GPU_RESOURCE} (only "
                    f"{_list(want)}): the Cluster Autoscaler counts such a node as having an unready GPU for good "
                    "(kubernetes/autoscaler #8095) and stops scaling once too many nodes are unready",
                    f"leave {AUTOSCALER_GPU_LABEL} off the group's nodes and its node template",
                )
            )
        if not want or want == have:
            continue
        findings.append(
            Finding(
                "shared-gpus-from-zero",
                BLOCKING,
                pool.name,
                f"{pool.name}'s nodes will advertise {_list(want)} (MIG layout "
                f"{pool.labels.get(MIG_CONFIG_LABEL, 'none')}, {strategy} strategy; device-plugin config "
                f"{pool.labels.get(DEVICE_PLUGIN_CONFIG_LABEL, 'none')}), but the autoscaler's node template says "
                f"{_list(have) or 'none'}: from zero nodes it misjudges what a new node holds",
                f"tag the group's Auto Scaling group {TEMPLATE_RESOURCES}<resource> with those counts "
                "(GpuGroupArgs.gpu_resources, or mig_resources under the mixed strategy)",
            )
        )
    return findings


def _list(resources: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {r}" for r, n in sorted(resources.items()))
