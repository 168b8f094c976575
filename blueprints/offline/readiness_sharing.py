"""Readiness of shared GPUs: does the autoscaler see, from zero, the nvidia.com/gpu count the device plugin advertises?

A group whose nodes select a time-slicing or MPS entry of the GPU Operator's device-plugin ConfigMap (by the label
nvidia.com/device-plugin.config) advertises each GPU `replicas` times (k8s-device-plugin v0.20.0 README, "Shared
Access to GPUs"). The Cluster Autoscaler builds a node of an empty group from its node-template tags only
(cluster-autoscaler cloudprovider/aws README, "Auto-Discovery Setup"; kubernetes/autoscaler #8095 is where shared
GPU counts went wrong): a template that says fewer GPUs than the plugin advertises leaves shared pods pending at
zero nodes, or scales up too many nodes for them.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

import yaml

from catalog import load_catalog
from components.kubernetes.nodes import DEVICE_PLUGIN_CONFIG_LABEL, GPU_RESOURCE

from .engine import Registration
from .readiness import BLOCKING, HELM_RELEASE, Finding, _pools
from .readiness_queues import TEMPLATE_RESOURCES, _count


def plugin_configs(regs: Sequence[Registration]) -> dict[str, Mapping[str, Any]]:
    """Entry name -> parsed device-plugin configuration, from the GPU Operator release's devicePlugin.config.data."""
    for r in regs:
        if r.type == HELM_RELEASE and r.inputs.get("name") == "gpu-operator":
            data = (((r.inputs.get("values") or {}).get("devicePlugin") or {}).get("config") or {}).get("data") or {}
            return {k: yaml.safe_load(v) or {} for k, v in data.items()}
    return {}


def replicas(entry: Mapping[str, Any]) -> Optional[int]:
    """How many times the entry advertises each GPU as nvidia.com/gpu; None when it renames or does not share it."""
    sharing = entry.get("sharing") or {}
    for kind in ("mps", "timeSlicing"):
        replicated = sharing.get(kind) or {}
        for resource in replicated.get("resources") or []:
            if resource.get("name") == GPU_RESOURCE and not (
                replicated.get("renameByDefault") or resource.get("rename")
            ):
                return int(resource.get("replicas", 1))
    return None


def check(regs: Sequence[Registration]) -> list[Finding]:
    configs = plugin_configs(regs)
    findings = []
    for pool in _pools(regs):
        key = pool.labels.get(DEVICE_PLUGIN_CONFIG_LABEL)
        shape = load_catalog().get(pool.instance_type)
        if key is None or shape is None or not pool.template:
            continue
        shared = replicas(configs.get(key) or {})
        advertised = _count(pool.template.get(f"{TEMPLATE_RESOURCES}{GPU_RESOURCE}", "0")) or 0
        if shared is None or advertised % (shape.gpu.count * shared) == 0 and advertised:
            continue
        findings.append(
            Finding(
                "shared-gpus-from-zero",
                BLOCKING,
                pool.name,
                f"{pool.name}'s nodes advertise {shape.gpu.count} x {shared} shared {GPU_RESOURCE} (device-plugin "
                f"config {key}), but the autoscaler's node template says {advertised}: from zero nodes it "
                "misjudges what a new node holds",
                f"tag the group's Auto Scaling group {TEMPLATE_RESOURCES}{GPU_RESOURCE} with the shared count "
                "(GpuGroupArgs.gpu_resources = GPUs x MIG slices x replicas)",
            )
        )
    return findings
