"""GpuPlatform: GPU enablement from upstream charts, RDMA device plugins, priorities, team quotas,
storage pods can mount, workload identity and (on EKS) the Cluster Autoscaler.

Cloud-neutral: the cluster component says what its nodes already ship (drivers on the EKS AL2023
NVIDIA AMI, drivers and device plugin on ACK GPU nodes), which groups have EFA, where the system
nodes are, and passes a Kubernetes provider for its cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from .acceptance import GpuAcceptance
from .autoscaler import AutoscalerArgs, ClusterAutoscaler
from .charts import charts
from .storage import ClusterStorage, SharedVolumeSpec, StorageClassSpec

GPU_RESOURCE = "nvidia.com/gpu"
OPERATOR_NAMESPACE = "gpu-operator"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"  # the GPU Operator's MIG manager applies the profile this label names


@dataclass(frozen=True)
class GpuNodes:
    name: str
    rdma: Literal["none", "efa", "erdma"]
    taints: Sequence[Mapping[str, str]]  # key, value, effect (Kubernetes spelling)
    mig_profile: Optional[str] = None
    acceptance: Optional[dict] = None  # acceptance/gpu_check.py expectation; None runs no check


@dataclass(frozen=True)
class Team:
    gpus: int
    max_gpus_per_pod: Optional[int]
    default_cpu: str
    default_memory: str


@dataclass(frozen=True)
class PriorityValues:
    critical: int
    standard: int
    preemptible: int


@dataclass(frozen=True)
class WorkloadServiceAccount:
    """A ServiceAccount bound to a cloud role (IRSA / RRSA) through its annotations."""

    namespace: str
    name: str
    annotations: Mapping[str, pulumi.Input[str]]


@dataclass(frozen=True)
class PlatformArgs:
    node_groups: Sequence[GpuNodes]
    gpu_stack: Literal["gpu-operator", "device-plugin"]
    driver_preinstalled: bool  # the node image ships the NVIDIA driver and container toolkit
    device_plugin_preinstalled: bool  # the cloud runs its own NVIDIA device plugin on GPU nodes
    teams: Mapping[str, Team]
    priorities: PriorityValues
    labels: Mapping[str, str] = field(default_factory=dict)
    # Where controllers run: the untainted system group's label. Empty leaves charts' defaults.
    system_node_selector: Mapping[str, str] = field(default_factory=dict)
    # Namespaces beyond the teams' (the training namespace), with extra labels (ACK RRSA injection).
    namespaces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    service_accounts: Sequence[WorkloadServiceAccount] = ()
    storage_classes: Sequence[StorageClassSpec] = ()
    shared_volumes: Sequence[SharedVolumeSpec] = ()
    autoscaler: Optional[AutoscalerArgs] = None  # EKS; ACK scales node pools itself


def gpu_tolerations(groups: Sequence[GpuNodes]) -> list[dict[str, str]]:
    """Tolerate every taint the GPU node groups carry, so node agents land on every GPU node."""
    seen = sorted({(t["key"], t["effect"]) for g in groups for t in g.taints})
    return [{"key": key, "operator": "Exists", "effect": effect} for key, effect in seen]


def operator_values(args: PlatformArgs) -> dict:
    """GPU Operator values: operands off where the node image ships them; controllers on the system group,
    node agents (NFD worker, operands) on every GPU node whatever its taints."""
    mig = any(g.mig_profile for g in args.node_groups)
    tolerations = gpu_tolerations(args.node_groups)
    system = dict(args.system_node_selector)
    return {
        "operator": {"nodeSelector": system},
        "node-feature-discovery": {"master": {"nodeSelector": system}, "gc": {"nodeSelector": system},
                                   "worker": {"tolerations": tolerations}},
        "driver": {"enabled": not args.driver_preinstalled},
        "toolkit": {"enabled": not args.driver_preinstalled},
        "devicePlugin": {"enabled": not args.device_plugin_preinstalled},
        "dcgmExporter": {"enabled": True},
        "mig": {"strategy": "single"},
        "migManager": {"enabled": mig},
        "daemonsets": {"tolerations": tolerations},
    }


class GpuPlatform(pulumi.ComponentResource):
    def __init__(self, name: str, args: PlatformArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("gpu-blueprints:kubernetes:GpuPlatform", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        labels = {"app.kubernetes.io/managed-by": "gpu-cluster-blueprints", **args.labels}
        tolerations = gpu_tolerations(args.node_groups)
        pinned = charts()

        def release(key: str, namespace: str, values: dict, depends_on: Sequence[pulumi.Resource] = ()):
            chart = pinned[key]
            return k8s.helm.v3.Release(
                f"{name}-{key}", name=key, chart=chart.chart, version=chart.version, namespace=namespace,
                repository_opts={"repo": chart.repo}, values=values, atomic=True, cleanup_on_fail=True,
                opts=pulumi.ResourceOptions(parent=self, depends_on=list(depends_on)))

        # Node agents (driver containers, MIG manager, exporters) need privileged pods.
        operator_ns = k8s.core.v1.Namespace(f"{name}-{OPERATOR_NAMESPACE}", metadata={
            "name": OPERATOR_NAMESPACE,
            "labels": {**labels, "pod-security.kubernetes.io/enforce": "privileged"}}, opts=child)
        self.releases: dict[str, k8s.helm.v3.Release] = {}
        if args.gpu_stack == "gpu-operator":
            self.releases["gpu-operator"] = release("gpu-operator", OPERATOR_NAMESPACE, operator_values(args),
                                                    [operator_ns])
        else:
            if not args.device_plugin_preinstalled:
                self.releases["nvidia-device-plugin"] = release(
                    "nvidia-device-plugin", OPERATOR_NAMESPACE, {"tolerations": tolerations}, [operator_ns])
            # The chart's ServiceMonitor needs the Prometheus Operator's CRD, which is not installed; without a
            # nodeSelector it would also run on every CPU node (chart_workloads.yaml, dcgm-exporter 3.5.0).
            self.releases["dcgm-exporter"] = release(
                "dcgm-exporter", OPERATOR_NAMESPACE, {"tolerations": tolerations, "serviceMonitor": {"enabled": False},
                                                      "nodeSelector": {"nvidia.com/gpu.present": "true"}},
                [operator_ns])
        if any(g.rdma == "efa" for g in args.node_groups):
            self.releases["aws-efa-k8s-device-plugin"] = release("aws-efa-k8s-device-plugin", "kube-system", {
                "nodeSelector": {"vpc.amazonaws.com/efa.present": "true"}, "tolerations": tolerations})

        p = args.priorities
        self.priority_classes = {
            cls_name: k8s.scheduling.v1.PriorityClass(
                f"{name}-{cls_name}", metadata={"name": cls_name, "labels": labels}, value=value,
                global_default=False, preemption_policy=policy, description=text, opts=child)
            for cls_name, value, policy, text in (
                ("gpu-critical", p.critical, "PreemptLowerPriority",
                 "Critical training: preempts standard and preemptible GPU work."),
                ("gpu-standard", p.standard, "PreemptLowerPriority", "Default for GPU work that names no class."),
                ("gpu-preemptible", p.preemptible, "Never",
                 "Spot-friendly work: never preempts, first to be preempted."),
            )
        }

        self.namespaces: dict[str, k8s.core.v1.Namespace] = {}
        for ns_name in sorted(set(args.teams) | set(args.namespaces)):
            team_label = {"gpu-blueprints/team": ns_name} if ns_name in args.teams else {}
            self.namespaces[ns_name] = k8s.core.v1.Namespace(
                f"{name}-team-{ns_name}" if ns_name in args.teams else f"{name}-ns-{ns_name}", metadata={
                    "name": ns_name, "labels": {**labels, **team_label, **args.namespaces.get(ns_name, {}),
                                                "pod-security.kubernetes.io/enforce": "baseline"}}, opts=child)
        for team, spec in sorted(args.teams.items()):
            scoped = pulumi.ResourceOptions(parent=self, depends_on=[self.namespaces[team]])
            k8s.core.v1.ResourceQuota(f"{name}-team-{team}-gpus", metadata={
                "name": "gpus", "namespace": team, "labels": labels},
                spec={"hard": {f"requests.{GPU_RESOURCE}": str(spec.gpus)}}, opts=scoped)
            limits: dict = {"type": "Container", "default": {"cpu": spec.default_cpu, "memory": spec.default_memory},
                            "defaultRequest": {"cpu": spec.default_cpu, "memory": spec.default_memory}}
            if spec.max_gpus_per_pod is not None:
                limits["max"] = {GPU_RESOURCE: str(spec.max_gpus_per_pod)}
            k8s.core.v1.LimitRange(f"{name}-team-{team}-defaults", metadata={
                "name": "defaults", "namespace": team, "labels": labels}, spec={"limits": [limits]}, opts=scoped)

        self.service_accounts = [
            k8s.core.v1.ServiceAccount(f"{name}-{sa.namespace}-{sa.name}", metadata={
                "name": sa.name, "namespace": sa.namespace, "labels": labels, "annotations": dict(sa.annotations)},
                opts=pulumi.ResourceOptions(parent=self, depends_on=[self.namespaces[sa.namespace]]))
            for sa in args.service_accounts
        ]
        if args.storage_classes or args.shared_volumes:
            ClusterStorage(f"{name}-storage", classes=args.storage_classes, volumes=args.shared_volumes,
                           labels=labels, opts=pulumi.ResourceOptions(
                               parent=self, depends_on=[self.namespaces[v.namespace] for v in args.shared_volumes]))
        if args.autoscaler is not None:
            ClusterAutoscaler(f"{name}-cluster-autoscaler", args.autoscaler, opts=child)

        expectations = {g.name: g.acceptance for g in args.node_groups if g.acceptance is not None}
        if expectations:
            GpuAcceptance(f"{name}-acceptance", expectations=expectations, tolerations=tolerations,
                          priority_class="gpu-standard", labels=labels,
                          opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.priority_classes.values())))

        self.register_outputs({"releases": sorted(self.releases)})


def platform_args(plan, *, driver_preinstalled: bool, device_plugin_preinstalled: bool, **cloud) -> PlatformArgs:
    """PlatformArgs from a resolved plan (``blueprints.resolver.ResolvedPlan``) and what the cloud's nodes ship."""
    from blueprints.catalog.gpu_models import acceptance_expectation

    spec = plan.spec.kubernetes
    check = spec.acceptance
    return PlatformArgs(
        node_groups=[GpuNodes(name=g.name, rdma=g.shape.rdma.kind if g.rdma_interfaces else "none",
                              taints=[t.model_dump() for t in g.spec.taints], mig_profile=g.spec.mig_profile,
                              acceptance=acceptance_expectation(g.shape, check.thresholds) if check.enabled else None)
                     for g in plan.node_groups],
        gpu_stack=spec.gpu_stack, driver_preinstalled=driver_preinstalled,
        device_plugin_preinstalled=device_plugin_preinstalled,
        teams={name: Team(t.gpus, t.max_gpus_per_pod, t.default_cpu, t.default_memory)
               for name, t in spec.teams.items()},
        priorities=PriorityValues(spec.priorities.critical, spec.priorities.standard, spec.priorities.preemptible),
        **cloud,
    )
