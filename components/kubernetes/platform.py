"""GpuPlatform: GPU enablement from upstream charts, RDMA device plugins, priorities and team quotas.

Cloud-neutral: the cluster component says what its nodes already ship (drivers on the EKS AL2023
NVIDIA AMI, drivers and device plugin on ACK GPU nodes) and which groups have EFA, and passes a
Kubernetes provider for its cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from .acceptance import GpuAcceptance
from .charts import charts

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
class PlatformArgs:
    node_groups: Sequence[GpuNodes]
    gpu_stack: Literal["gpu-operator", "device-plugin"]
    driver_preinstalled: bool  # the node image ships the NVIDIA driver and container toolkit
    device_plugin_preinstalled: bool  # the cloud runs its own NVIDIA device plugin on GPU nodes
    teams: Mapping[str, Team]
    priorities: PriorityValues
    labels: Mapping[str, str] = field(default_factory=dict)


def gpu_tolerations(groups: Sequence[GpuNodes]) -> list[dict[str, str]]:
    """Tolerate every taint the GPU node groups carry, so node agents land on every GPU node."""
    seen = sorted({(t["key"], t["effect"]) for g in groups for t in g.taints})
    return [{"key": key, "operator": "Exists", "effect": effect} for key, effect in seen]


def operator_values(args: PlatformArgs) -> dict:
    mig = any(g.mig_profile for g in args.node_groups)
    return {
        "driver": {"enabled": not args.driver_preinstalled},
        "toolkit": {"enabled": not args.driver_preinstalled},
        "devicePlugin": {"enabled": not args.device_plugin_preinstalled},
        "dcgmExporter": {"enabled": True},
        "mig": {"strategy": "single"},
        "migManager": {"enabled": mig},
        "daemonsets": {"tolerations": gpu_tolerations(args.node_groups)},
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
            self.releases["dcgm-exporter"] = release(
                "dcgm-exporter", OPERATOR_NAMESPACE, {"tolerations": tolerations}, [operator_ns])
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

        self.team_namespaces = {}
        for team, spec in sorted(args.teams.items()):
            ns = k8s.core.v1.Namespace(f"{name}-team-{team}", metadata={
                "name": team, "labels": {**labels, "gpu-blueprints/team": team,
                                         "pod-security.kubernetes.io/enforce": "baseline"}}, opts=child)
            scoped = pulumi.ResourceOptions(parent=self, depends_on=[ns])
            k8s.core.v1.ResourceQuota(f"{name}-team-{team}-gpus", metadata={
                "name": "gpus", "namespace": team, "labels": labels},
                spec={"hard": {f"requests.{GPU_RESOURCE}": str(spec.gpus)}}, opts=scoped)
            limits: dict = {"type": "Container", "default": {"cpu": spec.default_cpu, "memory": spec.default_memory},
                            "defaultRequest": {"cpu": spec.default_cpu, "memory": spec.default_memory}}
            if spec.max_gpus_per_pod is not None:
                limits["max"] = {GPU_RESOURCE: str(spec.max_gpus_per_pod)}
            k8s.core.v1.LimitRange(f"{name}-team-{team}-defaults", metadata={
                "name": "defaults", "namespace": team, "labels": labels}, spec={"limits": [limits]}, opts=scoped)
            self.team_namespaces[team] = ns

        expectations = {g.name: g.acceptance for g in args.node_groups if g.acceptance is not None}
        if expectations:
            GpuAcceptance(f"{name}-acceptance", expectations=expectations, tolerations=tolerations,
                          priority_class="gpu-standard", labels=labels,
                          opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.priority_classes.values())))

        self.register_outputs({"releases": sorted(self.releases)})


def platform_args(plan, *, driver_preinstalled: bool, device_plugin_preinstalled: bool) -> PlatformArgs:
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
    )
