"""Readiness of topology-aware gangs: can Kueue place a gang under one network node of a flavor's Topology?

Kueue's topology-aware scheduling (TAS) counts, per topology domain, the allocatable capacity of Ready, schedulable
nodes only, and puts a node in a domain by its labels for each of the Topology's levels (kueue v0.19.2,
site/content/en/docs/concepts/topology_aware_scheduling.md, "Node topology information" and "Capacity
calculation"). So a flavor whose Topology names a label the group's nodes never carry has no domain to place a gang
in, and a group that scales to zero has no capacity for a gang until nodes exist, which they never do for jobs Kueue
keeps suspended, unless the flavor has the Provisioning admission check (ibid. "ClusterAutoscaler support"): then
Kueue's ProvisioningRequest makes the Cluster Autoscaler add the gang's nodes first, which takes the autoscaler
started with --enable-provisioning-requests and the ProvisioningRequest CRD (autoscaler FAQ.md, "Enabling
ProvisioningRequest Support").
Which shapes carry which labels: catalog/topology.py. One domain holds at most the group's own nodes (a flavor
selects one group), so a gang larger than maxNodes x the node's devices never fits one block.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from catalog import load_catalog
from catalog.topology import HOSTNAME, carries
from components.kubernetes.autoscaler import PROVISIONING_REQUEST_CRD
from components.kubernetes.nodes import NODE_GROUP_LABEL
from components.kubernetes.queueing import PROVISIONING_CONTROLLER

from .engine import Registration
from .readiness import BLOCKING, WARNING, Finding, Pool, _pools
from .readiness_queues import GPU, _kind, _quotas, node_devices

GANG_NODES = 2  # the smallest multi-node gang (readiness_queues: two full nodes over the fabric)
PROVREQ_CRD = "provisioningrequests.autoscaling.x-k8s.io"
PROVREQ_FLAG = "enable-provisioning-requests"


def _name(r: Registration) -> str:
    return (r.inputs.get("metadata") or {}).get("name") or ""


def topologies(regs: Sequence[Registration]) -> dict[str, list[str]]:
    """Topology name -> its levels' node labels, broadest first."""
    return {
        _name(r): [level.get("nodeLabel") for level in (r.inputs.get("spec") or {}).get("levels") or []]
        for r in regs
        if _kind(r) == "Topology"
    }


def topology_flavors(regs: Sequence[Registration]) -> dict[str, Mapping[str, Any]]:
    """Flavor name -> spec, for flavors that name a Topology."""
    return {
        _name(r): r.inputs.get("spec") or {}
        for r in regs
        if _kind(r) == "ResourceFlavor" and (r.inputs.get("spec") or {}).get("topologyName")
    }


def _provisioning_checks(regs: Sequence[Registration]) -> set[str]:
    """AdmissionChecks run by Kueue's Provisioning controller whose ProvisioningRequestConfig the plan declares."""
    configs = {_name(r) for r in regs if _kind(r) == "ProvisioningRequestConfig"}
    return {
        _name(r)
        for r in regs
        if _kind(r) == "AdmissionCheck"
        and (r.inputs.get("spec") or {}).get("controllerName") == PROVISIONING_CONTROLLER
        and ((r.inputs.get("spec") or {}).get("parameters") or {}).get("name") in configs
    }


def _checked(queue: Mapping[str, Any], flavor: str, checks: set[str]) -> bool:
    """Whether the ClusterQueue runs one of `checks` for jobs on `flavor` (onFlavors empty: every flavor)."""
    rules = (queue.get("admissionChecksStrategy") or {}).get("admissionChecks") or []
    return any(rule.get("name") in checks and flavor in (rule.get("onFlavors") or [flavor]) for rule in rules)


def provisioning_gaps(regs: Sequence[Registration], flavor: str) -> list[str]:
    """What keeps Kueue from having the Cluster Autoscaler add a gang's nodes on this flavor before topology places
    it; empty when nothing does."""
    checks = _provisioning_checks(regs)
    queues = {_name(r): r.inputs.get("spec") or {} for r in regs if _kind(r) == "ClusterQueue"}
    using = [q for q, spec in sorted(queues.items()) if flavor in _quotas(spec)]
    gaps = [
        f"ClusterQueue {q} runs no Provisioning admission check on it"
        for q in using
        if not _checked(queues[q], flavor, checks)
    ]
    crds = {(r.inputs.get("metadata") or {}).get("name") for r in regs if r.type.endswith(":CustomResourceDefinition")}
    if PROVREQ_CRD not in crds:
        gaps.append(f"the plan declares no {PROVREQ_CRD} CRD ({PROVISIONING_REQUEST_CRD.name})")
    scalers = [
        r for r in regs if r.type.startswith("kubernetes:helm.sh/") and r.inputs.get("chart") == "cluster-autoscaler"
    ]
    if not any(
        str(((r.inputs.get("values") or {}).get("extraArgs") or {}).get(PROVREQ_FLAG)) == "true" for r in scalers
    ):
        gaps.append(f"no Cluster Autoscaler runs with --{PROVREQ_FLAG}")
    return gaps + _unmanaged(regs, flavor)


def _unmanaged(regs: Sequence[Registration], flavor: str) -> list[str]:
    """Kueue asks for nodes only for pod sets whose containers request one of the config's managedResources, and
    otherwise marks the check Ready with no ProvisioningRequest (kueue v0.19.2
    pkg/controller/admissionchecks/provisioning/controller.go reqIsNeeded, podUses): a flavor whose nodes offer none
    of them (a DRA group's claimed GPUs, MIG slices) gets no nodes from the check."""
    spec = topology_flavors(regs).get(flavor)
    pool = flavor_pool(spec, _pools(regs)) if spec else None
    if pool is None:
        return []
    devices = sorted(node_devices(pool))
    return [
        f"ProvisioningRequestConfig {_name(r)} has managedResources {managed}, which pods on it never request "
        f"(its nodes offer {', '.join(devices)}), so Kueue marks the check Ready without a ProvisioningRequest "
        "(kueue v0.19.2 provisioning controller.go reqIsNeeded)"
        for r in regs
        if _kind(r) == "ProvisioningRequestConfig"
        and (managed := list((r.inputs.get("spec") or {}).get("managedResources") or []))
        and not set(managed) & set(devices)
    ]


def flavor_pool(spec: Mapping[str, Any], pools: Sequence[Pool]) -> Optional[Pool]:
    """The node group a flavor's nodeLabels select."""
    labels = spec.get("nodeLabels") or {}
    return next((p for p in pools if labels and all(p.labels.get(k) == v for k, v in labels.items())), None)


def block(pool: Pool) -> dict[str, int]:
    """The most of each device one topology domain of the pool's flavor can ever hold: all of its nodes at once."""
    return {res: n * pool.max_nodes for res, n in node_devices(pool).items()}


def gang_fits(regs: Sequence[Registration], flavor: str, pods: int, per_pod: Mapping[str, int]) -> bool:
    """Whether a gang of `pods` pods asking `per_pod` devices each fits one topology block of the flavor: every pod on
    one node (the node's devices hold it) and every node in the group (the block holds them all)."""
    spec = topology_flavors(regs).get(flavor)
    pool = flavor_pool(spec, _pools(regs)) if spec else None
    if pool is None:
        return False
    node = node_devices(pool)
    per_node = min((node.get(res, 0) // n for res, n in per_pod.items() if n), default=0)
    return per_node > 0 and -(-pods // per_node) <= pool.max_nodes


def check(regs: Sequence[Registration]) -> list[Finding]:
    levels = topologies(regs)
    flavors = topology_flavors(regs)
    if not flavors:
        return []
    pools = [p for p in _pools(regs) if p.gpu]
    queues = {_name(r): r.inputs.get("spec") or {} for r in regs if _kind(r) == "ClusterQueue"}
    findings = []
    for name in sorted(flavors):
        pool = flavor_pool(flavors[name], pools)
        if pool is not None:
            topology = flavors[name]["topologyName"]
            findings += _placeable(regs, name, topology, levels.get(topology, []), pool)
            findings += _blocks(name, pool, queues)
    return findings


def _placeable(
    regs: Sequence[Registration], name: str, topology: str, levels: Sequence[str], pool: Pool
) -> list[Finding]:
    """A level the group's nodes never carry; a group that may have no Ready nodes for a gang."""
    shape = load_catalog().get(pool.instance_type)
    cloud = shape.cloud if shape else ""
    group = pool.labels.get(NODE_GROUP_LABEL, pool.name)
    missing = [label for label in levels if label != HOSTNAME and not carries(cloud, pool.instance_type, label)]
    findings = []
    if missing:
        findings.append(
            Finding(
                "topology-level-unlabelled",
                BLOCKING,
                name,
                f"flavor {name} places gangs by Topology {topology}, but no node of group {group} "
                f"({pool.instance_type}) carries {', '.join(missing)} (catalog/topology.py): Kueue finds no "
                "topology domain there and admits no job on this flavor",
                "set kubernetes.queueing.topology: auto (or off), or pick a shape the cloud labels (EKS: "
                "p4d/p4de/p5/p5e/p5en/p6, g6e; ACK: Lingjun nodes)",
            )
        )
    gaps = provisioning_gaps(regs, name) if pool.min_nodes < GANG_NODES and not pool.scheduled else []
    if gaps:
        findings.append(
            Finding(
                "topology-needs-ready-nodes",
                BLOCKING,
                name,
                f"flavor {name} places gangs by topology, which counts Ready nodes only, and group {group} "
                f"may scale to {pool.min_nodes} nodes: a job then stays suspended, so the autoscaler never adds "
                f"the nodes it waits for ({'; '.join(gaps)})",
                f"set nodeGroups.{group}.minNodes to at least {GANG_NODES}, or kubernetes.queueing.topology: auto",
            )
        )
    return findings


def _blocks(name: str, pool: Pool, queues: Mapping[str, Mapping[str, Any]]) -> list[Finding]:
    """A team quota on the flavor larger than one topology block."""
    group = pool.labels.get(NODE_GROUP_LABEL, pool.name)
    most = block(pool).get(GPU, 0)
    findings = []
    for team in sorted(queues):
        nominal = _quotas(queues[team]).get(name, {}).get(GPU, {}).get("nominal", 0)
        if most and nominal > most:
            findings.append(
                Finding(
                    "gang-larger-than-block",
                    WARNING,
                    team,
                    f"team {team}'s queue guarantees {nominal} {GPU} on flavor {name}, more than one topology "
                    f"block holds ({most}: {pool.max_nodes} x {pool.instance_type}): a job that large asking "
                    "podset-required-topology is never admitted",
                    f"raise nodeGroups.{group}.maxNodes to {-(-nominal // (most // pool.max_nodes))}, or "
                    "ask such jobs for podset-preferred-topology",
                )
            )
    return findings
