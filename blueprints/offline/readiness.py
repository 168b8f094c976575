"""Readiness: would the cluster this plan creates work on day one?

It reads only what the program registered (node groups and pools with their labels, taints and sizes;
the pods the platform layer declares; Helm releases, through the catalog's facts about what each pinned
chart deploys and where; volumes and claims; roles and service accounts) and reports every gap, each with
its fix, not just the first. A blocking gap makes the plan exit 1; a warning does not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence

from catalog import load_catalog
from catalog.chart_workloads import Workload, addon_workloads, cluster_workloads, release_workloads, runtime_gpu_labels
from catalog.clouds import profile, type_of, types_of
from components.kubernetes.karpenter import NODE_POOL_TYPE as KARPENTER_NODE_POOL
from components.kubernetes.nodes import (
    DRA,
    FABRIC_DEVICES_LABEL,
    GPU_DEVICES_LABEL,
    GPU_RESOURCE,
    GPU_TAINT_KEY,
    MIG_RESOURCE_PREFIX,
    STARTUP_TAINT_PREFIX,
)

from .engine import Registration
from .index import RegistrationIndex

BLOCKING, WARNING = "blocking", "warning"
NODE_GROUP, NODE_POOL = type_of("aws", "node_group"), type_of("alicloud", "node_group")
EKS_CLUSTER, ACK_CLUSTER = type_of("aws", "cluster"), type_of("alicloud", "cluster")
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
POD_TEMPLATES = {
    "kubernetes:apps/v1:Deployment": "Deployment",
    "kubernetes:apps/v1:StatefulSet": "StatefulSet",
    "kubernetes:apps/v1:DaemonSet": "DaemonSet",
    "kubernetes:batch/v1:Job": "Job",
    "kubernetes:batch/v1:CronJob": "CronJob",
}
FILE_SYSTEMS = types_of("file_system")
ASG_TAG = type_of("aws", "autoscaling_tag")
LAUNCH_TEMPLATE = type_of("aws", "launch_template")
NODE_TEMPLATE = "k8s.io/cluster-autoscaler/node-template/"
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
# Labels the kubelet puts on every Linux node (https://kubernetes.io/docs/reference/labels-annotations-taints/).
WELL_KNOWN = {"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}


@dataclass(frozen=True)
class Finding:
    check: str
    level: str  # blocking | warning
    resource: str
    message: str
    fix: str

    def to_json(self) -> dict[str, str]:
        return {
            "check": self.check,
            "level": self.level,
            "resource": self.resource,
            "message": self.message,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class Pool:
    """A node group or node pool as registered."""

    name: str
    urn: str
    labels: Mapping[str, str]
    taints: tuple[tuple[str, str, str], ...]  # key, value, effect (Kubernetes spelling)
    min_nodes: int
    max_nodes: int
    instance_type: str
    autoscaled: bool  # ACK: the pool's scaling is enabled; EKS: decided by the cluster autoscaler's presence
    template: Mapping[str, str] = field(default_factory=dict)  # autoscaler node-template tags (EKS)
    karpenter: bool = False  # a Karpenter NodePool: Karpenter launches its nodes, sized from its instance types
    # A capacity-block group: its scheduled action sizes it at the block's start whatever pods are pending
    # (EKS capacity-blocks-mng), so its nodes do not wait on the autoscaler.
    scheduled: bool = False

    @property
    def gpu(self) -> bool:
        return load_catalog().get(self.instance_type) is not None

    @property
    def blocking_taints(self) -> list[tuple[str, str, str]]:
        return [t for t in self.taints if t[2] in ("NoSchedule", "NoExecute")]


def is_gpu_resource(name: str) -> bool:
    """nvidia.com/gpu (whole, shared or single-strategy MIG) or a mixed-strategy nvidia.com/mig-<profile>."""
    return name == GPU_RESOURCE or name.startswith(MIG_RESOURCE_PREFIX)


@dataclass(frozen=True)
class Pod:
    """Where one workload may run: from a raw object's pod template or a chart's recorded facts."""

    owner: str
    kind: str
    node_selector: Mapping[str, str]
    tolerations: Sequence[Mapping[str, Any]]
    required_terms: Sequence[Sequence[Mapping[str, Any]]] = ()  # nodeSelectorTerms' matchExpressions
    gpu_agent: bool = False  # a DaemonSet every GPU node needs (device plugin, exporter, acceptance)
    for_every_gpu_node: bool = False  # a chart's agent meant for all GPU nodes (not one group's)
    required_any: Sequence[Mapping[str, str]] = ()  # REQUIRED affinity from chart facts: one label set matches
    gpu_workload: bool = False  # a Deployment/StatefulSet whose containers ask for GPUs (a model server)


def _tolerates(tolerations: Iterable[Mapping[str, Any]], taint: tuple[str, str, str]) -> bool:
    key, value, effect = taint
    for t in tolerations:
        if t.get("effect") and t["effect"] != effect:
            continue
        if t.get("operator", "Equal") == "Exists" and (not t.get("key") or t["key"] == key):
            return True
        if t.get("key") == key and str(t.get("value", "")) == value:
            return True
    return False


def _expression_holds(labels: Mapping[str, str], expr: Mapping[str, Any]) -> bool:
    key, op, values = expr["key"], expr["operator"], [str(v) for v in expr.get("values", [])]
    present = key in labels
    return {
        "In": present and labels.get(key) in values,
        "NotIn": not present or labels.get(key) not in values,
        "Exists": present,
        "DoesNotExist": not present,
    }.get(op, False)


def admits(pool: Pool, pod: Pod) -> bool:
    labels = {**WELL_KNOWN, **pool.labels}
    if any(labels.get(k) != v for k, v in pod.node_selector.items()):
        return False
    if pod.required_terms and not any(all(_expression_holds(labels, e) for e in term) for term in pod.required_terms):
        return False
    if pod.required_any and not any(all(labels.get(k) == v for k, v in s.items()) for s in pod.required_any):
        return False
    return all(_tolerates(pod.tolerations, t) for t in pool.blocking_taints)


def selects(pool: Pool, pod: Pod) -> bool:
    """The pod's selector and affinity pick this pool, whatever its taints (a DaemonSet's target)."""
    return admits(Pool(pool.name, pool.urn, pool.labels, (), 0, 0, pool.instance_type, False), pod)


# ----------------------------------------------------------------------------- reading the registrations
def _pools(regs: Sequence[Registration]) -> list[Pool]:
    tags: dict[str, dict[str, str]] = {}
    for r in regs:
        if r.type == ASG_TAG:
            tag = r.inputs.get("tag") or {}
            for dep in r.dependencies:
                tags.setdefault(dep, {})[str(tag.get("key"))] = str(tag.get("value"))
    pools = []
    # A capacity-block group names its instance type in its launch template only (EKS capacity-blocks-mng).
    template_types = {r.id: r.inputs.get("instanceType") for r in regs if r.type == LAUNCH_TEMPLATE}
    for r in regs:
        p = r.inputs
        if r.type == NODE_GROUP:
            scaling = p.get("scalingConfig") or {}
            pools.append(
                Pool(
                    r.name,
                    r.urn,
                    dict(p.get("labels") or {}),
                    tuple(
                        (t["key"], t.get("value", ""), EFFECTS.get(t["effect"], t["effect"]))
                        for t in p.get("taints") or []
                    ),
                    int(scaling.get("minSize", 0)),
                    int(scaling.get("maxSize", 0)),
                    (p.get("instanceTypes") or [template_types.get((p.get("launchTemplate") or {}).get("id")) or ""])[
                        0
                    ],
                    False,
                    {k[len(NODE_TEMPLATE) :]: v for k, v in tags.get(r.urn, {}).items() if k.startswith(NODE_TEMPLATE)},
                    scheduled=p.get("capacityType") == "CAPACITY_BLOCK",
                )
            )
        elif r.type == NODE_POOL:
            scaling = p.get("scalingConfig") or {}
            pools.append(
                Pool(
                    r.name,
                    r.urn,
                    {label["key"]: label.get("value", "") for label in p.get("labels") or []},
                    tuple((t["key"], t.get("value", ""), t.get("effect", "NoSchedule")) for t in p.get("taints") or []),
                    int(scaling.get("minSize", p.get("desiredSize", 0))),
                    int(scaling.get("maxSize", 0)),
                    (p.get("instanceTypes") or [""])[0],
                    bool(scaling.get("enable")),
                )
            )
    return pools + [_karpenter_pool(r) for r in regs if r.type == KARPENTER_NODE_POOL]


def _karpenter_pool(r: Registration) -> Pool:
    """A Karpenter NodePool as the nodes it launches: its template's labels plus the labels its single-valued `In`
    requirements fix (instance type, capacity type, zone), its taints and startup taints, from zero up to its GPU
    limit in nodes of its (first) instance type."""
    spec = r.inputs.get("spec") or {}
    template = spec.get("template") or {}
    node = template.get("spec") or {}
    labels = dict((template.get("metadata") or {}).get("labels") or {})
    types: list[str] = []
    for req in node.get("requirements") or []:
        if req.get("operator") == "In" and len(req.get("values") or []) == 1:
            labels.setdefault(req["key"], str(req["values"][0]))
        if req.get("key") == "node.kubernetes.io/instance-type":
            types = [str(v) for v in req.get("values") or []]
    instance_type = types[0] if types else ""
    shape = load_catalog().get(instance_type)
    limit = (spec.get("limits") or {}).get(GPU_RESOURCE)
    gpus = shape.gpu.count if shape is not None else 0
    return Pool(
        (r.inputs.get("metadata") or {}).get("name", r.name),
        r.urn,
        labels,
        tuple(
            (t["key"], t.get("value", ""), t.get("effect", "NoSchedule"))
            for t in [*(node.get("taints") or []), *(node.get("startupTaints") or [])]
        ),
        0,
        int(limit) // gpus if limit is not None and gpus else 0,
        instance_type,
        True,
        karpenter=True,
    )


def _template_pods(regs: Sequence[Registration]) -> list[Pod]:
    pods = []
    for r in regs:
        kind = POD_TEMPLATES.get(r.type)
        if kind is None:
            continue
        body = r.inputs.get("spec") or {}
        if r.type == "kubernetes:batch/v1:CronJob":
            body = (body.get("jobTemplate") or {}).get("spec") or {}
        spec = (body.get("template") or {}).get("spec") or {}
        affinity = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        ) or {}
        terms = [t.get("matchExpressions", []) for t in affinity.get("nodeSelectorTerms", [])]
        name = (r.inputs.get("metadata") or {}).get("name", r.name)
        pods.append(
            Pod(
                f"{kind} {name}",
                kind,
                spec.get("nodeSelector") or {},
                spec.get("tolerations") or [],
                terms,
                gpu_agent=kind == "DaemonSet" and _selects_gpu_group(spec),
                gpu_workload=kind != "DaemonSet"
                and any(
                    GPU_RESOURCE in ((c.get("resources") or {}).get("limits") or {})
                    for c in spec.get("containers") or []
                ),
            )
        )
    return pods


def _selects_gpu_group(spec: Mapping[str, Any]) -> bool:
    """A raw DaemonSet is a GPU node agent when it tolerates the GPU taint (ours select a GPU group by label)."""
    return any(t.get("key") == GPU_TAINT_KEY for t in spec.get("tolerations") or [])


def _fact_pod(owner: str, w: Workload, values: Mapping[str, Any]) -> Optional[Pod]:
    if not w.enabled(values):
        return None
    agent = w.kind == "DaemonSet" and w.runs_on in ("gpu-nodes", "any-node", "all-nodes")
    return Pod(
        f"{owner} {w.kind} {w.name}",
        w.kind,
        w.node_selector(values),
        w.tolerations(values),
        gpu_agent=agent,
        for_every_gpu_node=agent,
        required_any=w.required_labels_any,
    )


def _chart_pods(regs: Sequence[Registration]) -> tuple[list[Pod], list[Finding]]:
    pods, findings = [], []
    for r in regs:
        if r.type == HELM_RELEASE:
            chart, version = r.inputs.get("name", ""), r.inputs.get("version", "")
            workloads = release_workloads(chart, version)
            if workloads is None:
                findings.append(
                    Finding(
                        "chart-facts",
                        WARNING,
                        r.name,
                        f"no recorded facts for chart {chart} {version}: where its pods run is unchecked",
                        "add the chart's workloads to catalog/chart_workloads.yaml",
                    )
                )
                continue
            values = r.inputs.get("values") or {}
            pods += [p for w in workloads if (p := _fact_pod(f"chart {chart}", w, values))]
        elif r.type == type_of("aws", "addon"):
            addon = r.inputs.get("addonName", "")
            pods += [p for w in addon_workloads(addon) if (p := _fact_pod(f"add-on {addon}", w, {}))]
        elif r.type in types_of("cluster"):
            cloud = profile(r.type.split(":", 1)[0]).kubernetes_service.lower()  # chart_workloads.yaml: eks, ack
            pods += [p for w in cluster_workloads(cloud) if (p := _fact_pod(f"{cloud} add-on", w, {}))]
    return pods, findings


# ----------------------------------------------------------------------------- the checks
def _system_capacity(pools: Sequence[Pool]) -> list[Finding]:
    untainted = [p for p in pools if not p.blocking_taints]
    if any(p.min_nodes >= 2 for p in untainted):
        return []
    if any(p.min_nodes >= 1 for p in untainted):
        return [
            Finding(
                "system-capacity",
                WARNING,
                untainted[0].name,
                "the only untainted group keeps one node: losing it stops CoreDNS and the controllers",
                "set systemNodes.minNodes: 2",
            )
        ]
    return [
        Finding(
            "system-capacity",
            BLOCKING,
            "cluster",
            "no untainted node group with running nodes: CoreDNS, operators and controllers have nowhere "
            "to run, Helm releases time out and roll back",
            "keep the system node group (systemNodes) at minNodes >= 2",
        )
    ]


def _controllers(pools: Sequence[Pool], pods: Sequence[Pod], autoscaler: bool) -> list[Finding]:
    findings = []
    for pod in pods:
        if pod.kind == "DaemonSet" or pod.gpu_workload:  # GPU workloads: their topic's check (readiness_serving)
            continue
        running = [p for p in pools if admits(p, pod) and p.min_nodes >= 1]
        if running:
            continue
        scalable = [p for p in pools if admits(p, pod) and p.max_nodes >= 1 and (autoscaler or p.autoscaled)]
        if scalable:
            findings.append(
                Finding(
                    "pod-placement",
                    WARNING,
                    pod.owner,
                    f"{pod.owner} only fits {scalable[0].name}, which starts at zero nodes: "
                    "the autoscaler must add a node for it",
                    "let it run on the system group (its nodeSelector/tolerations)",
                )
            )
        else:
            findings.append(
                Finding(
                    "pod-placement",
                    BLOCKING,
                    pod.owner,
                    f"{pod.owner} fits no node group (selector {dict(pod.node_selector) or '{}'}, "
                    f"tolerations of {[t.get('key') for t in pod.tolerations] or 'none'})",
                    "add an untainted system group, or give the workload a matching nodeSelector",
                )
            )
    return findings


def _gpu_agents(pools: Sequence[Pool], pods: Sequence[Pod], runtime: Mapping[str, str]) -> list[Finding]:
    """Every node agent meant for GPU nodes reaches every GPU group: selected (with the labels NFD and the
    GPU Operator add at runtime) and tolerating the group's taints."""
    findings = []
    for pool in (p for p in pools if p.gpu):
        seen = Pool(
            pool.name,
            pool.urn,
            {**runtime, **pool.labels},
            pool.taints,
            pool.min_nodes,
            pool.max_nodes,
            pool.instance_type,
            pool.autoscaled,
        )
        for pod in (p for p in pods if p.gpu_agent):
            if _opted_out(pool, pod):
                continue
            if not selects(seen, pod):
                if pod.for_every_gpu_node and pod.kind == "DaemonSet" and (pod.node_selector or pod.required_any):
                    findings.append(
                        Finding(
                            "gpu-agents",
                            BLOCKING,
                            pool.name,
                            f"{pod.owner} selects no node of GPU group {pool.name} (needs "
                            f"{dict(pod.node_selector) or list(pod.required_any)})",
                            "label the GPU group so the agent's selector or affinity matches",
                        )
                    )
                continue  # a raw DaemonSet aimed at another group
            if not all(_tolerates(pod.tolerations, t) for t in seen.blocking_taints):
                findings.append(
                    Finding(
                        "gpu-agents",
                        BLOCKING,
                        pool.name,
                        f"{pod.owner} does not tolerate the taints of GPU group {pool.name} "
                        f"({', '.join(f'{k}={v}:{e}' for k, v, e in seen.blocking_taints)})",
                        "give the node agents the GPU groups' tolerations",
                    )
                )
    return findings


def _opted_out(pool: Pool, pod: Pod) -> bool:
    """The group's own labels turn the agent off: it sets a key the agent selects on to another value (a DRA group's
    nvidia.com/gpu.deploy.device-plugin=false, which the GPU Operator keeps: components/kubernetes/nodes.py)."""
    return any(key in pool.labels and pool.labels[key] != value for key, value in pod.node_selector.items())


def _karpenter_pools(pools: Sequence[Pool], karpenter: bool) -> list[Finding]:
    """Karpenter reads a NodePool's labels, taints and instance types itself (no node-template tags): its GPU pools
    scale from zero wherever its controller is installed."""
    return [
        Finding(
            "scale-from-zero",
            BLOCKING,
            pool.name,
            f"NodePool {pool.name} has no Karpenter controller to launch its nodes: pending GPU pods never get a node",
            "set autoscaling.engine: karpenter with autoscaling.enabled: true",
        )
        for pool in pools
        if pool.karpenter and pool.gpu and not karpenter
    ]


def _scale_from_zero(
    pools: Sequence[Pool], autoscaler: bool, ack_config: Optional[Mapping[str, Any]], efa_groups: set[str], ack: bool
) -> list[Finding]:
    findings = []
    for pool in (p for p in pools if p.gpu and p.min_nodes == 0):
        where = pool.name
        if ack:  # ACK scales node pools itself: the pool's auto scaling plus the cluster's configuration
            if not pool.autoscaled:
                findings.append(
                    Finding(
                        "scale-from-zero",
                        BLOCKING,
                        where,
                        f"{where} starts at zero nodes and its auto scaling is off: no GPU node will ever start",
                        "set autoscaling.enabled: true (or nodeGroups.<g>.minNodes >= 1)",
                    )
                )
            elif ack_config is None or ack_config.get("scaleUpFromZero") is False:
                findings.append(
                    Finding(
                        "scale-from-zero",
                        BLOCKING,
                        where,
                        "the cluster's autoscaling configuration does not scale up from zero",
                        "set autoscaling.enabled: true",
                    )
                )
            continue
        if not autoscaler:
            findings.append(
                Finding(
                    "scale-from-zero",
                    BLOCKING,
                    where,
                    f"{where} starts at zero nodes and no autoscaler is installed: pending GPU pods never get a node",
                    "set autoscaling.enabled: true (or nodeGroups.<g>.minNodes >= 1)",
                )
            )
            continue
        missing = sorted(_template_wants(pool, efa_groups) - set(pool.template))
        if missing:
            findings.append(
                Finding(
                    "scale-from-zero",
                    BLOCKING,
                    where,
                    f"{where} starts at zero nodes but its Auto Scaling group lacks the autoscaler's "
                    f"node-template tags: {', '.join(missing)}; pods asking for them stay pending",
                    "tag the group's Auto Scaling group with k8s.io/cluster-autoscaler/node-template/*",
                )
            )
    return findings


def _template_wants(pool: Pool, efa_groups: set[str]) -> set[str]:
    """The node-template tags an empty EKS group needs: its extended resources (a DRA group's claimed devices are
    none: readiness_devices judges it from zero), labels and lasting taints."""
    wanted: set[str] = set()
    if pool.labels.get(GPU_DEVICES_LABEL) != DRA:
        # nvidia.com/gpu, or under the mixed MIG strategy nvidia.com/mig-<profile> (readiness_sharing checks counts)
        gpu_tags = {k for k in pool.template if is_gpu_resource(k.removeprefix("resources/"))}
        wanted |= gpu_tags or {"resources/nvidia.com/gpu"}
    if pool.urn in efa_groups and pool.labels.get(FABRIC_DEVICES_LABEL) != DRA:
        wanted.add("resources/vpc.amazonaws.com/efa")
    return (
        wanted
        | {f"label/{k}" for k in pool.labels}
        | {f"taint/{k}" for k, _, _ in pool.taints if not k.startswith(STARTUP_TAINT_PREFIX)}
    )


def _closure(regs_by_urn: Mapping[str, Registration], start: Registration) -> set[str]:
    seen, todo = set(), list(start.dependencies)
    while todo:
        urn = todo.pop()
        if urn in seen:
            continue
        seen.add(urn)
        if urn in regs_by_urn:
            todo += regs_by_urn[urn].dependencies
    return seen


def _claims(regs: Sequence[Registration]) -> list[Finding]:
    by_urn = {r.urn: r for r in regs}
    volumes = [r for r in regs if r.type == "kubernetes:core/v1:PersistentVolume"]
    claims = {
        ((r.inputs.get("metadata") or {}).get("namespace"), (r.inputs.get("spec") or {}).get("volumeName"))
        for r in regs
        if r.type == "kubernetes:core/v1:PersistentVolumeClaim"
    }
    bound_volumes = {name for _, name in claims}
    findings = []
    for fs in (r for r in regs if r.type in FILE_SYSTEMS):
        pvs = [v for v in volumes if fs.urn in _closure(by_urn, v)]
        export = any(r.type == type_of("alicloud", "file_system_export") and fs.urn in r.dependencies for r in regs)
        if not pvs and export:
            findings.append(
                Finding(
                    "file-system-claim",
                    WARNING,
                    fs.name,
                    f"CPFS {fs.name} gets its claim once its NFS export's domain is known (only "
                    "DescribeProtocolMountTarget returns it)",
                    "after `pulumi up`: aliyun nas DescribeProtocolMountTarget --FileSystemId <id> "
                    "--ExportIds <cpfs_export_id>, then set storage.parallelFs.exportDomain",
                )
            )
        elif not pvs:
            findings.append(
                Finding(
                    "file-system-claim",
                    BLOCKING,
                    fs.name,
                    f"file system {fs.name} has no PersistentVolume: pods cannot mount it",
                    "keep kubernetes.enabled: true so the platform binds it to a claim",
                )
            )
        elif not any((v.inputs.get("metadata") or {}).get("name") in bound_volumes for v in pvs):
            findings.append(
                Finding(
                    "file-system-claim",
                    BLOCKING,
                    fs.name,
                    f"file system {fs.name} has a PersistentVolume but no claim bound to it",
                    "add a PersistentVolumeClaim with volumeName set to the volume",
                )
            )
    return findings


def _trusted_service_account(role: Registration) -> Optional[tuple[str, str]]:
    document = role.inputs.get("assumeRolePolicy") or role.inputs.get("assumeRolePolicyDocument")
    if not isinstance(document, str):
        return None
    for statement in json.loads(document).get("Statement", []):
        for values in (statement.get("Condition") or {}).values():
            for key, sub in values.items():
                if key.endswith(":sub") and str(sub).startswith("system:serviceaccount:"):
                    _, _, namespace, name = str(sub).split(":", 3)
                    return namespace, name
    return None


def _identities(regs: Sequence[Registration]) -> list[Finding]:
    accounts = {
        ((r.inputs.get("metadata") or {}).get("namespace"), (r.inputs.get("metadata") or {}).get("name")): r
        for r in regs
        if r.type == "kubernetes:core/v1:ServiceAccount"
    }
    findings = []
    for role in (r for r in regs if r.type in types_of("role")):
        trusted = _trusted_service_account(role)
        if trusted is None:
            continue
        # An EKS add-on or a Helm chart that names the role creates and annotates its own service account; a
        # PersistentVolume naming it is mounted by the cloud's CSI driver under its own (ACK's OSS ossfs client).
        if any(
            role.urn in r.dependencies
            for r in regs
            if r.type in (type_of("aws", "addon"), HELM_RELEASE, "kubernetes:core/v1:PersistentVolume")
        ):
            continue
        account = accounts.get(trusted)
        if account is None:
            findings.append(
                Finding(
                    "workload-identity",
                    BLOCKING,
                    role.name,
                    f"role {role.name} trusts {trusted[0]}/{trusted[1]}, a ServiceAccount the plan "
                    "never creates: its grants cannot be used",
                    "keep kubernetes.enabled: true so the platform creates the ServiceAccount",
                )
            )
        elif role.urn not in account.dependencies:
            findings.append(
                Finding(
                    "workload-identity",
                    BLOCKING,
                    role.name,
                    f"ServiceAccount {trusted[0]}/{trusted[1]} is not annotated with role {role.name}",
                    "annotate it with the role (eks.amazonaws.com/role-arn or pod-identity.alibabacloud.com/role-name)",
                )
            )
    return findings


def _api_reach(regs: Sequence[Registration]) -> list[Finding]:
    if not any(r.type.startswith("kubernetes:") for r in regs):
        return []
    for r in regs:
        private = (
            r.type == EKS_CLUSTER and (r.inputs.get("vpcConfig") or {}).get("endpointPublicAccess") is False
        ) or (r.type == ACK_CLUSTER and not r.inputs.get("slbInternetEnabled"))
        if private:
            return [
                Finding(
                    "api-reach",
                    WARNING,
                    r.name,
                    "the Kubernetes API is private: `pulumi up` must run where it can reach it (inside the VPC, "
                    "over a VPN, or a self-hosted runner), or the platform layer fails to connect",
                    "run from inside the network, or set networking.publicApi: true with publicApiCidrs, or "
                    "kubernetes.enabled: false for a first `pulumi up` (README: reaching the cluster)",
                )
            ]
    return []


def _budget_tag(regs: Sequence[Registration]) -> list[Finding]:
    """An AWS budget filtered on a user tag counts nothing until that tag is an active cost allocation tag."""
    active = {
        r.inputs.get("tagKey")
        for r in regs
        if r.type == type_of("aws", "cost_allocation_tag") and r.inputs.get("status") == "Active"
    }
    findings = []
    for r in regs:
        if r.type != type_of("aws", "budget"):
            continue
        for f in r.inputs.get("costFilters") or []:
            for value in f.get("values") or [] if f.get("name") == "TagKeyValue" else []:
                key = str(value).removeprefix("user:").split("$")[0]
                if key not in active:
                    findings.append(
                        Finding(
                            "budget-tag",
                            WARNING,
                            r.name,
                            f"the budget counts costs tagged {key}, which is not an active cost allocation tag here: "
                            "until it is, the budget sees no spend and never alerts",
                            "after the first `pulumi up` (AWS lists a new tag key up to 24 hours later) set "
                            "budget.activateCostAllocationTag: true, or activate it in Billing > Cost allocation tags",
                        )
                    )
    return findings


def check(registrations: Iterable[Registration]) -> list[Finding]:
    regs = RegistrationIndex(registrations)  # indexed once, for every topic below
    pools = _pools(regs)
    if not any(r.type in (EKS_CLUSTER, ACK_CLUSTER) for r in regs):
        return []
    chart_pods, findings = _chart_pods(regs)
    pods = _template_pods(regs) + chart_pods
    autoscaler = any(r.type == HELM_RELEASE and r.inputs.get("name") == "cluster-autoscaler" for r in regs)
    ack_config = next((r.inputs for r in regs if r.type == type_of("alicloud", "autoscaling_config")), None)
    efa_groups = {r.urn for r in regs if r.type == NODE_GROUP and _has_efa(regs, r)}
    findings += _system_capacity(pools)
    findings += _controllers(pools, pods, autoscaler)
    runtime: dict[str, str] = {}
    for r in regs:
        if r.type == HELM_RELEASE:
            runtime.update(runtime_gpu_labels(r.inputs.get("name", "")))
    findings += _gpu_agents(pools, pods, runtime)
    ack = any(r.type == ACK_CLUSTER for r in regs)
    karpenter = any(r.type == HELM_RELEASE and r.inputs.get("name") == "karpenter" for r in regs)
    findings += _scale_from_zero([p for p in pools if not p.karpenter], autoscaler, ack_config, efa_groups, ack)
    findings += _karpenter_pools(pools, karpenter)
    findings += _claims(regs)
    findings += _identities(regs)
    findings += _api_reach(regs)
    findings += _budget_tag(regs)
    findings += _topic_checks(regs)
    return findings


def _topic_checks(regs: Sequence[Registration]) -> list[Finding]:
    """Checks kept in modules of their own (readiness_<topic>.py), imported here as they import this module."""
    from . import (
        readiness_alerts,
        readiness_capacity,
        readiness_controllers,
        readiness_devices,
        readiness_karpenter,
        readiness_key_grants,
        readiness_keys,
        readiness_network,
        readiness_node_health,
        readiness_queues,
        readiness_quotas,
        readiness_registry,
        readiness_resources,
        readiness_serving,
        readiness_sharing,
        readiness_start_memory,
        readiness_support,
        readiness_tokens,
        readiness_topology,
    )

    topics = (
        readiness_quotas,
        readiness_queues,
        readiness_keys,
        readiness_network,
        readiness_resources,
        readiness_capacity,
        readiness_key_grants,
        readiness_node_health,
        readiness_alerts,
        readiness_support,
        readiness_serving,
        readiness_start_memory,
        readiness_registry,
        readiness_tokens,
        readiness_controllers,
        readiness_topology,
        readiness_sharing,
        readiness_karpenter,
        readiness_devices,
    )
    return [finding for topic in topics for finding in topic.check(regs)]


def _has_efa(regs: Sequence[Registration], group: Registration) -> bool:
    templates = {r.urn: r for r in regs if r.type == type_of("aws", "launch_template")}
    return any(
        any(i.get("interfaceType") in ("efa", "efa-only") for i in templates[d].inputs.get("networkInterfaces") or [])
        for d in group.dependencies
        if d in templates
    )
