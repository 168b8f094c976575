"""Readiness of DRA groups (nodeGroups.<g>.devices: dra): does NVIDIA's DRA driver reach each group's nodes, and can
the autoscaling engine grow the group from zero nodes for pods that claim its GPUs (catalog/dra.yaml, with sources)?

The Cluster Autoscaler on AWS builds an empty group's node from its tags, without ResourceSlices, so a pod that
claims DRA devices never scales an empty group up; Karpenter v1.14.1 ignores pods' DRA requests. Where the answer is
undocumented (ACK's autoscalers), the plan warns.
"""

from __future__ import annotations

from typing import Sequence

from catalog import dra, load_catalog
from catalog.clouds import type_of
from components.kubernetes.nodes import DRA, FABRIC_DEVICES_LABEL, GPU_DEVICES_LABEL, NODE_GROUP_LABEL
from components.kubernetes.platform import DRA_DRIVER as DRIVER
from components.kubernetes.platform import EFA_DRA_DRIVER

from .engine import Registration
from .readiness import BLOCKING, HELM_RELEASE, WARNING, Finding, Pool, _pools


def _engine(regs: Sequence[Registration], pool: Pool) -> str:
    if pool.karpenter:
        return "karpenter"
    goat = any(
        str(r.inputs.get("scalerType", "")).lower() == "goatscaler"
        for r in regs
        if r.type == type_of("alicloud", "autoscaling_config")
    )
    return "instant-elasticity" if goat else "cluster-autoscaler"


def _driver_reaches(regs: Sequence[Registration], pool: Pool, release: str, selector_key: str) -> bool:
    """The release is installed and its DaemonSet's nodeSelector (at values path `selector_key`) matches the pool."""
    for r in regs:
        if r.type == HELM_RELEASE and r.inputs.get("name") == release:
            values = r.inputs.get("values") or {}
            for part in selector_key.split(".")[:-1]:
                values = values.get(part) or {}
            selector = values.get(selector_key.split(".")[-1]) or {}
            return all(pool.labels.get(k) == v for k, v in selector.items())
    return False


def _drivers(regs: Sequence[Registration], pool: Pool, group: str) -> list[Finding]:
    """The GPU DRA driver's kubelet plugin, and dranet where the group's EFA is claimed, select the pool's nodes."""
    wanted = [(DRIVER, "kubeletPlugin.nodeSelector", GPU_DEVICES_LABEL)]
    if pool.labels.get(FABRIC_DEVICES_LABEL) == DRA:
        wanted.append((EFA_DRA_DRIVER, "nodeSelector", FABRIC_DEVICES_LABEL))
    return [
        Finding(
            "dra-driver-missing",
            BLOCKING,
            pool.name,
            f"group {group} hands out devices through DRA, but no {release} DaemonSet selects its nodes: they publish "
            "no ResourceSlices for it and every claim stays unallocated",
            f"install {release} with {path} {label}: {DRA}",
        )
        for release, path, label in wanted
        if not _driver_reaches(regs, pool, release, path)
    ]


def _validator(regs: Sequence[Registration], pools: Sequence[Pool]) -> list[Finding]:
    """With the device plugin on for the other groups, the GPU Operator keeps its validator's plugin validation, which
    waits for nvidia.com/gpu on every GPU node (gpu-operator v26.7.0 controllers/object_controls.go removes the
    plugin-validation init container only when devicePlugin is disabled; cmd/nvidia-validator/main.go
    validateGPUResource gives up after 30 x 5 s): on DRA nodes it never passes."""
    values = next(
        (
            r.inputs.get("values") or {}
            for r in regs
            if r.type == HELM_RELEASE and r.inputs.get("name") == "gpu-operator"
        ),
        None,
    )
    if values is None or (values.get("devicePlugin") or {}).get("enabled", True) is False or not pools:
        return []
    return [
        Finding(
            "dra-operator-validator",
            WARNING,
            "gpu-operator",
            f"the GPU Operator's validator waits for nvidia.com/gpu on every GPU node, which the DRA nodes of "
            f"{', '.join(sorted(p.labels.get(NODE_GROUP_LABEL, p.name) for p in pools))} never advertise: its pod "
            "there restarts and the ClusterPolicy reports notReady, while the DRA driver still serves claims",
            "expected while device-plugin groups and DRA groups share the cluster; with every GPU group on devices: "
            "dra the plugin (and its validation) is off",
        )
    ]


def check(regs: Sequence[Registration]) -> list[Finding]:
    findings = []
    pools = [p for p in _pools(regs) if p.labels.get(GPU_DEVICES_LABEL) == DRA]
    findings += _validator(regs, pools)
    for pool in pools:
        shape = load_catalog().get(pool.instance_type)
        if pool.labels.get(GPU_DEVICES_LABEL) != DRA or shape is None:
            continue
        group = pool.labels.get(NODE_GROUP_LABEL, pool.name)
        findings += _drivers(regs, pool, group)
        engine = _engine(regs, pool)
        may_be_empty = pool.karpenter or (pool.min_nodes == 0 and not pool.scheduled)
        answer = dra.from_zero(shape.cloud, engine)
        if not may_be_empty or answer.answer == "yes":
            continue
        findings.append(
            Finding(
                "dra-from-zero",
                BLOCKING if answer.answer == "no" else WARNING,
                pool.name,
                f"group {group} claims its GPUs through DRA and may have no node, but {engine} "
                + (
                    "cannot add a node for a pod that claims DRA devices there"
                    if answer.answer == "no"
                    else "documents no way to judge an empty group for pods that claim DRA devices"
                )
                + f" ({answer.source}): such a pod stays pending",
                f"set nodeGroups.{group}.minNodes to at least 1 (a running node's ResourceSlices are what the "
                f"autoscaler copies), or devices: plugin",
            )
        )
    return findings
