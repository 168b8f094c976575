"""Readiness of the teams' Kueue queues: can each team's queue ever admit the smallest gang a GPU group runs?

Kueue admits a workload only when every pod set fits the ClusterQueue's quota for one flavor: its nominal quota
plus what it may borrow from the other queues of its cohort (their nominal quota, or their lendingLimit, capped by
its own borrowingLimit). A gang larger than that waits forever, with no error anywhere
(https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/#flavors-and-resources, #cohort, #borrowinglimit and
#lendinglimit, read 2026-11-24; the objects' schema: tests/data/crds/kueue-0.19.2).
The smallest gang of a group: one full node; on a group with an RDMA fabric and room for two nodes, two full
nodes (the fabric exists for multi-node jobs, e.g. examples/first-training-job).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from catalog import load_catalog
from components.kubernetes.nodes import (
    DRA,
    DRA_EFA_QUOTA,
    DRA_GPU_QUOTA,
    EFA_RESOURCE,
    FABRIC_DEVICES_LABEL,
    GPU_DEVICES_LABEL,
    GPU_RESOURCE,
    RDMA_RESOURCES,
)

from .engine import Registration
from .readiness import BLOCKING, WARNING, Finding, Pool, _pools, is_gpu_resource

KUEUE = "kubernetes:kueue.x-k8s.io/"
GPU = GPU_RESOURCE
RDMA = RDMA_RESOURCES
TEMPLATE_RESOURCES = "resources/"


def _kind(r: Registration) -> str:
    return r.type.rpartition(":")[2] if r.type.startswith(KUEUE) else ""


def _count(value: Any) -> Optional[int]:
    """A whole-device quantity (GPUs, RDMA devices); None for anything else."""
    try:
        return int(str(value))
    except ValueError:
        return None


def node_devices(pool: Pool) -> dict[str, int]:
    """GPUs and RDMA devices one node of the pool offers, in the resource names Kueue counts them as: a DRA group's
    GPUs as claimed devices (DRA_GPU_QUOTA), the others' as nvidia.com/gpu."""
    devices = _node_devices(pool)
    if pool.labels.get(GPU_DEVICES_LABEL) == DRA:
        devices = {DRA_GPU_QUOTA if k == GPU else k: v for k, v in devices.items()}
        devices.setdefault(DRA_GPU_QUOTA, _shape_gpus(pool))
    if pool.labels.get(FABRIC_DEVICES_LABEL) == DRA:
        shape = load_catalog().get(pool.instance_type)
        devices.pop(EFA_RESOURCE, None)
        devices[DRA_EFA_QUOTA] = shape.rdma.interfaces if shape else 0
    return devices


def _shape_gpus(pool: Pool) -> int:
    shape = load_catalog().get(pool.instance_type)
    return shape.gpu.count if shape else 0


def _node_devices(pool: Pool) -> dict[str, int]:
    """GPUs and RDMA devices one node of the pool offers: the autoscaler's node template (EKS, which counts MIG
    slices), else the catalog's shape."""
    template = {
        k[len(TEMPLATE_RESOURCES) :]: _count(v) for k, v in pool.template.items() if k.startswith(TEMPLATE_RESOURCES)
    }
    if any(v for k, v in template.items() if is_gpu_resource(k)):
        return {k: v for k, v in template.items() if v}
    shape = load_catalog().get(pool.instance_type)
    if shape is None:
        return {}
    out = {GPU: shape.gpu.count}
    if shape.rdma.kind in RDMA and shape.rdma.interfaces:
        out[RDMA[shape.rdma.kind]] = shape.rdma.interfaces
    return out


def _quotas(queue: Mapping[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """flavor -> resource -> {nominal, borrowingLimit, lendingLimit} of one ClusterQueue spec."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for group in queue.get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            out[flavor.get("name")] = {
                r.get("name"): {
                    "nominal": _count(r.get("nominalQuota", 0)) or 0,
                    "borrow": _count(r.get("borrowingLimit")) if r.get("borrowingLimit") is not None else None,
                    "lend": _count(r.get("lendingLimit")) if r.get("lendingLimit") is not None else None,
                }
                for r in flavor.get("resources") or []
            }
    return out


def admissible(queues: Mapping[str, Mapping[str, Any]], name: str, flavor: str, resource: str) -> int:
    """The most of `resource` in `flavor` the ClusterQueue `name` can ever admit: nominal + borrowable."""
    own = _quotas(queues[name]).get(flavor, {}).get(resource)
    if own is None:
        return 0
    cohort = queues[name].get("cohortName") or queues[name].get("cohort")
    lendable = 0
    if cohort:
        for other, spec in queues.items():
            if other == name or (spec.get("cohortName") or spec.get("cohort")) != cohort:
                continue
            q = _quotas(spec).get(flavor, {}).get(resource)
            if q is not None:
                lendable += q["lend"] if q["lend"] is not None else q["nominal"]
    if own["borrow"] is not None:
        lendable = min(lendable, own["borrow"])
    return own["nominal"] + lendable


def check(regs: Sequence[Registration]) -> list[Finding]:
    queues = {
        (r.inputs.get("metadata") or {}).get("name"): r.inputs.get("spec") or {}
        for r in regs
        if _kind(r) == "ClusterQueue"
    }
    flavors = {
        (r.inputs.get("metadata") or {}).get("name"): (r.inputs.get("spec") or {}).get("nodeLabels") or {}
        for r in regs
        if _kind(r) == "ResourceFlavor"
    }
    pools = [p for p in _pools(regs) if p.gpu]
    findings = []
    for team in sorted(queues):
        quotas = _quotas(queues[team])
        if not any(q[r]["nominal"] for q in quotas.values() for r in q if is_gpu_resource(r) or r == DRA_GPU_QUOTA):
            continue  # a team without GPUs (CPU work only) is meant that way
        for flavor in sorted(quotas):
            labels = flavors.get(flavor) or {}
            pool = next((p for p in pools if labels and all(p.labels.get(k) == v for k, v in labels.items())), None)
            if pool is None or GPU not in quotas[flavor]:
                continue
            per_node = node_devices(pool)
            gpu = DRA_GPU_QUOTA if DRA_GPU_QUOTA in per_node else GPU
            rdma = any(not is_gpu_resource(k) and k != gpu for k in per_node)
            nodes = 2 if rdma and pool.max_nodes >= 2 else 1
            short = {
                res: (n * nodes, admissible(queues, team, flavor, res))
                for res, n in per_node.items()
                if admissible(queues, team, flavor, res) < n * nodes
            }
            if not short:
                continue
            gang = "two full nodes (a multi-node job over the fabric)" if nodes == 2 else "one full node"
            need = ", ".join(f"{res} {want} (admissible {have})" for res, (want, have) in sorted(short.items()))
            shape = load_catalog().get(pool.instance_type)  # a team's gpus are whole GPUs, whatever the slices
            gpus = (shape.gpu.count if shape else per_node.get(gpu, 0)) * nodes
            findings.append(
                Finding(
                    "queue-fits-gang",
                    BLOCKING if rdma else WARNING,
                    team,
                    f"team {team}'s queue can never admit the smallest gang of node group {pool.name} ({gang} of "
                    f"{pool.instance_type}): it needs {need}, counting nominal quota plus what its cohort can lend; "
                    "such a job waits forever",
                    f"raise kubernetes.teams.{team}.gpus to at least {gpus} (Kueue then grants the nodes' fabric "
                    "devices, CPU and memory with them), or add teams to the cohort that can lend",
                )
            )
    return findings
