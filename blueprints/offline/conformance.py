"""Kubernetes AI Conformance self-assessment: each MUST and SHOULD item of the CNCF checklist for the cluster's
Kubernetes minor (catalog/ai_conformance.yaml), judged met, not met or not applicable from what the plan registers
(Helm releases and their values, add-ons, CRD objects, node groups), naming what meets it or what is missing.

It is a report: an unmet item changes no exit code (README: AI conformance). "Met" means the cluster this plan
creates has the mechanism the item asks for; the demonstration the CNCF submission asks for is still to be run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from catalog import load_catalog
from catalog.ai_conformance import Checklist, checklist, table
from catalog.clouds import type_of
from components.kubernetes.nodes import ERDMA_RESOURCE, GPU_RESOURCE

from .engine import Registration
from .readiness import (
    ACK_CLUSTER,
    EKS_CLUSTER,
    HELM_RELEASE,
    POD_TEMPLATES,
    Pool,
    _has_efa,
    _pools,
)

MET, NOT_MET, NOT_APPLICABLE = "met", "not met", "not applicable"
GPU = GPU_RESOURCE
TEMPLATE_GPU = "resources/nvidia.com/gpu"  # the autoscaler's node-template tag for GPU capacity (EKS)
# Gateway API Inference Extension: v1 (GA) and its earlier x-k8s.io alpha group.
INFERENCE_GROUPS = ("inference.networking.k8s.io", "inference.networking.x-k8s.io")
CUSTOM_METRICS = ("Pods", "Object", "External")  # HPA v2 metric types other than CPU/memory (Resource)


@dataclass(frozen=True)
class Verdict:
    id: str
    level: str  # MUST | SHOULD
    area: str
    status: str  # met | not met | not applicable
    detail: str  # what meets it, or what is missing (and how to add it)

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "level": self.level, "area": self.area, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class Assessment:
    minor: str
    checklist: Checklist | None  # None: CNCF publishes no checklist for this minor
    verdicts: tuple[Verdict, ...] = ()

    def count(self, level: str, status: str = MET) -> int:
        return sum(1 for v in self.verdicts if v.level == level and v.status == status)

    def judged(self, level: str) -> int:
        return sum(1 for v in self.verdicts if v.level == level and v.status != NOT_APPLICABLE)

    def to_json(self) -> dict[str, Any]:
        if self.checklist is None:
            return {"kubernetesVersion": self.minor, "checklist": None, "items": []}
        return {
            "kubernetesVersion": self.minor,
            "checklist": {
                "source": self.checklist.source,
                "commit": self.checklist.commit,
                "date": self.checklist.date,
            },
            "must": {"met": self.count("MUST"), "judged": self.judged("MUST")},
            "should": {"met": self.count("SHOULD"), "judged": self.judged("SHOULD")},
            "items": [v.to_json() for v in self.verdicts],
        }


# ----------------------------------------------------------------------------- what the plan declares
class Declared:
    """The registrations, read once: releases by chart, objects by API group and kind, pools, the cloud."""

    def __init__(self, regs: Sequence[Registration]):
        self.regs = regs
        self.releases: dict[str, Registration] = {r.inputs.get("name", ""): r for r in regs if r.type == HELM_RELEASE}
        self.pools: list[Pool] = _pools(regs)
        self.gpu_pools = [p for p in self.pools if p.gpu]
        self.cluster = next((r for r in regs if r.type in (EKS_CLUSTER, ACK_CLUSTER)), None)
        self.cloud = "ack" if self.cluster is not None and self.cluster.type == ACK_CLUSTER else "eks"
        self.facts: Mapping[str, Any] = table()["judging"]

    def objects(self, groups: str | tuple[str, ...], kind: str) -> list[Registration]:
        """Kubernetes objects of a kind in one of the API groups, any version ("kubernetes:<group>/<v>:<Kind>")."""
        groups = (groups,) if isinstance(groups, str) else groups
        return [
            r
            for r in self.regs
            if r.type.startswith("kubernetes:")
            and r.type.rpartition(":")[2] == kind
            and r.type.split(":")[1].rpartition("/")[0] in groups
        ]

    def chart(self, name: str) -> str:
        r = self.releases[name]
        return f"{name} {r.inputs.get('version', '')}".strip()

    def installed(self, table_key: str) -> list[str]:
        """Charts of one judging list the plan installs, as 'Title (chart version)'."""
        return [
            f"{title} ({self.chart(name)})" for name, title in self.facts[table_key].items() if name in self.releases
        ]

    def values(self, chart: str) -> Mapping[str, Any]:
        r = self.releases.get(chart)
        return (r.inputs.get("values") or {}) if r is not None else {}


def _name(r: Registration) -> str:
    return (r.inputs.get("metadata") or {}).get("name", r.name)


def _enabled(values: Mapping[str, Any], key: str) -> bool:
    """A chart section on unless its values turn it off (the GPU Operator's operands default to on)."""
    return (values.get(key) or {}).get("enabled", True) is not False


def _minor_at_least(minor: str, since: str) -> bool:
    return tuple(int(x) for x in minor.split(".")) >= tuple(int(x) for x in since.split("."))


# ----------------------------------------------------------------------------- one judge per checklist item
Judgement = tuple[str, str]


def _dra_support(d: Declared, minor: str) -> Judgement:
    since = d.facts["dra_api_since"][d.cloud]
    if d.cluster is None:
        return NOT_MET, "no cluster is declared"
    drivers = d.installed("dra_drivers")
    if not _minor_at_least(minor, since):
        return NOT_MET, (
            f"{d.cloud.upper()} serves the DRA API (resource.k8s.io) from Kubernetes {since}; "
            f"this cluster is {minor}: set kubernetesVersion >= {since}"
        )
    plane = f"{d.cloud.upper()} {minor} control plane serves resource.k8s.io (on by default from {since})"
    if drivers:
        return MET, f"{plane}; {', '.join(drivers)} publishes the GPUs as ResourceSlices"
    return MET, (
        f"{plane}; no DRA driver is installed, so GPUs are still requested by count through the "
        "device plugin (add NVIDIA's k8s-dra-driver-gpu to claim them by attribute)"
    )


def _device_plugin(d: Declared) -> str | None:
    if "gpu-operator" in d.releases and _enabled(d.values("gpu-operator"), "devicePlugin"):
        return f"NVIDIA device plugin from {d.chart('gpu-operator')}"
    if "nvidia-device-plugin" in d.releases:
        return d.chart("nvidia-device-plugin")
    if d.cloud == "ack" and d.cluster is not None:
        return d.facts["ack_device_plugin"]
    return None


def _secure_accelerator_access(d: Declared, minor: str) -> Judgement:
    if not d.gpu_pools:
        return NOT_APPLICABLE, "no GPU node group"
    plugin = _device_plugin(d)
    if plugin is None:
        return NOT_MET, (
            "no GPU device plugin or DRA driver: GPUs are not allocated per container "
            "(keep the GPU Operator's devicePlugin on, or kubernetes.gpuStack: device-plugin)"
        )
    # Whether the node runtime also ignores NVIDIA_VISIBLE_DEVICES set by an unprivileged container is a setting of
    # the node image's NVIDIA Container Toolkit, which the plan does not register: the detail says so.
    return MET, (
        f"{plugin} allocates {GPU} per container (the node image's container runtime settings are not judged here)"
    )


def _driver_runtime_management(d: Declared, minor: str) -> Judgement:
    checks = []
    if "gpu-operator" in d.releases:
        checks.append(f"{d.chart('gpu-operator')} validator")
    acceptance = [_name(r) for r in d.objects("apps", "DaemonSet") if _name(r).startswith("gpu-acceptance")]
    if acceptance:
        checks.append(f"GPU acceptance check on each new GPU node ({', '.join(sorted(acceptance))})")
    if not checks:
        return NOT_MET, (
            "nothing verifies the driver and container runtime on GPU nodes (set kubernetes.acceptance.enabled: true)"
        )
    return MET, "; ".join(checks)


def _gpu_sharing(d: Declared, minor: str) -> Judgement:
    operator = d.values("gpu-operator")
    if "gpu-operator" in d.releases and (operator.get("migManager") or {}).get("enabled"):
        return MET, (
            f"MIG partitions from {d.chart('gpu-operator')} (migManager, strategy "
            f"{(operator.get('mig') or {}).get('strategy', 'single')})"
        )
    plugin = d.values("nvidia-device-plugin")
    if ((plugin.get("config") or {}).get("map") or {}) and "timeSlicing" in str(plugin.get("config")):
        return MET, f"time-slicing in {d.chart('nvidia-device-plugin')}"
    return NOT_MET, (
        "no GPU sharing: every GPU is allocated whole (MIG: set nodeGroups.<group>.migProfile on an "
        "A100/H100-class group)"
    )


def _virtualized_accelerator(d: Declared, minor: str) -> Judgement:
    """The catalog's GPU shapes pass whole GPUs through (an integer count per node); a fractional one would be vGPU."""
    shapes = {p.instance_type: load_catalog().get(p.instance_type) for p in d.gpu_pools}
    virtual = sorted(t for t, s in shapes.items() if s is not None and s.gpu.count != int(s.gpu.count))
    if virtual:
        return NOT_MET, f"{', '.join(virtual)} carry virtual GPUs, which the cluster does not manage"
    whole = ", ".join(f"{t} ({s.gpu.count} x {s.gpu.model})" for t, s in sorted(shapes.items()) if s is not None)
    return NOT_APPLICABLE, f"the GPU groups pass whole GPUs through to the node: {whole or 'none'}; no vGPU"


def _gateway_implementation(d: Declared) -> str | None:
    installed = d.installed("gateway_implementations")
    classes = [_name(r) for r in d.objects("gateway.networking.k8s.io", "GatewayClass")]
    if installed:
        return ", ".join(installed)
    return f"GatewayClass {', '.join(classes)}" if classes else None


def _ai_inference(d: Declared, minor: str) -> Judgement:
    """Met when the cluster carries an installed Gateway API implementation and a GatewayClass for it: the capability
    the item asks for, on every cluster, whether or not it serves a model yet. Gateways and routes are named."""
    installed = d.installed("gateway_implementations")
    classes = [_name(r) for r in d.objects("gateway.networking.k8s.io", "GatewayClass")]
    missing = [w for w, ok in (("Gateway API implementation", installed), ("GatewayClass", classes)) if not ok]
    if missing:
        return NOT_MET, (
            f"no {' and no '.join(missing)} declared: inference services have no Gateway API routing "
            "(the platform installs Envoy Gateway and its GatewayClass unless the Kubernetes layer is off)"
        )
    gateways = [_name(r) for r in d.objects("gateway.networking.k8s.io", "Gateway")]
    routes = [_name(r) for r in d.objects("gateway.networking.k8s.io", "HTTPRoute")]
    served = f"; Gateway {', '.join(gateways)}; HTTPRoute {', '.join(routes)}" if gateways and routes else ""
    return MET, f"{', '.join(installed)}; GatewayClass {', '.join(classes)}{served}"


def _routes_to_pool(d: Declared) -> list[str]:
    return [
        _name(r)
        for r in d.objects("gateway.networking.k8s.io", "HTTPRoute")
        if any(
            ref.get("kind") == "InferencePool"
            for rule in (r.inputs.get("spec") or {}).get("rules") or []
            for ref in rule.get("backendRefs") or []
        )
    ]


def _advanced_inference_ingress(d: Declared, minor: str) -> Judgement:
    pools = [_name(r) for r in d.objects(INFERENCE_GROUPS, "InferencePool")]
    pools += [d.chart("inferencepool")] if "inferencepool" in d.releases else []
    routes = _routes_to_pool(d)
    implementation = _gateway_implementation(d)
    if pools and routes and implementation:
        return MET, f"InferencePool {', '.join(pools)} behind HTTPRoute {', '.join(routes)} ({implementation})"
    missing = [
        w
        for w, ok in (
            ("InferencePool", pools),
            ("HTTPRoute to an InferencePool", routes),
            ("Gateway API implementation", implementation),
        )
        if not ok
    ]
    return NOT_MET, f"no {', no '.join(missing)}: requests are not routed by the Gateway API Inference Extension"


def _high_performance_networking(d: Declared, minor: str) -> Judgement:
    efa = [r.name for r in d.regs if r.type == type_of("aws", "node_group") and _has_efa(d.regs, r)]
    erdma = d.cloud == "ack" and any(
        ERDMA_RESOURCE in str(r.inputs) for r in d.regs if r.type in POD_TEMPLATES or "jobset" in r.type
    )
    if not efa and not erdma:
        return NOT_APPLICABLE, "no GPU group has an RDMA fabric (EFA or eRDMA)"
    if efa and "aws-efa-k8s-device-plugin" in d.releases:
        return MET, (
            f"{d.chart('aws-efa-k8s-device-plugin')} exposes vpc.amazonaws.com/efa on {', '.join(efa)} "
            "(a device plugin, not DRANET)"
        )
    addons = [a.get("name") for a in (d.cluster.inputs.get("addons") or [])] if d.cluster is not None else []
    if erdma and "ack-erdma-controller" in addons:
        return MET, "ack-erdma-controller exposes aliyun/erdma (a device plugin, not DRANET)"
    return NOT_MET, "RDMA groups are declared but no device plugin exposes their interfaces to pods"


def _disaggregated_inference(d: Declared, minor: str) -> Judgement:
    roles = {
        str(v).lower()
        for r in d.regs
        if r.type in POD_TEMPLATES or r.type.endswith(":LeaderWorkerSet")
        for v in ((r.inputs.get("metadata") or {}).get("labels") or {}).values()
    }
    if {"prefill", "decode"} <= roles:
        return MET, "separate prefill and decode workloads are declared"
    return NOT_MET, "no separate prefill and decode instances are declared (single-phase serving at most)"


def _gang_scheduling(d: Declared, minor: str) -> Judgement:
    installed = d.installed("gang_schedulers")
    if not installed:
        return NOT_MET, (
            "no gang scheduler (Kueue, Volcano): a distributed job may start part of its pods "
            "(set kubernetes.queueing.enabled: true)"
        )
    config = str((d.values("kueue").get("managerConfig") or {}).get("controllerManagerConfigYaml", ""))
    extra = "; waitForPodsReady holds admission until all pods run" if "waitForPodsReady" in config else ""
    return MET, f"{', '.join(installed)} admits a job's pods all or nothing{extra}"


def _scalable(pool: Pool, d: Declared) -> bool:
    if pool.max_nodes <= pool.min_nodes:
        return False
    if d.cloud == "ack":
        return pool.autoscaled
    if pool.karpenter:  # Karpenter knows a NodePool's GPUs from its instance types
        return "karpenter" in d.releases
    return pool.min_nodes > 0 or TEMPLATE_GPU in pool.template  # from zero: the autoscaler must know the GPUs


def _cluster_autoscaling(d: Declared, minor: str) -> Judgement:
    if not d.gpu_pools:
        return NOT_APPLICABLE, "no GPU node group"
    if d.cloud == "ack":
        scaler = (
            "ACK node autoscaling" if any(r.type == type_of("alicloud", "autoscaling_config") for r in d.regs) else None
        )
    else:
        engine = next((e for e in ("cluster-autoscaler", "karpenter") if e in d.releases), None)
        scaler = d.chart(engine) if engine else None
    if scaler is None:
        return NOT_MET, (
            "no cluster autoscaler: GPU groups keep their declared size whatever pods are pending "
            "(set autoscaling.enabled: true)"
        )
    groups = [f"{p.name} ({p.min_nodes}-{p.max_nodes})" for p in d.gpu_pools if _scalable(p, d)]
    if not groups:
        return NOT_MET, (
            f"{scaler} is installed but no GPU group can scale on pending {GPU} pods (raise maxNodes above minNodes)"
        )
    return MET, f"{scaler} scales GPU groups {', '.join(groups)} on pending {GPU} pods"


def _scale_target_gpus(d: Declared, target: Mapping[str, Any]) -> bool | None:
    """Whether the workload a scaler targets asks for GPUs; None where the plan does not declare it (a chart's)."""
    for r in d.regs:
        kind = r.type.rpartition(":")[2]
        if (
            r.type.startswith("kubernetes:")
            and kind == target.get("kind", "Deployment")
            and _name(r) == target.get("name")
        ):
            return GPU in str((r.inputs.get("spec") or {}).get("template") or r.inputs.get("spec"))
    return None


def _gpu_scalers(d: Declared) -> list[str]:
    """Declared ScaledObjects and custom-metric HPAs whose target asks for GPUs (or is not declared here)."""
    scalers = [("ScaledObject", r) for r in d.objects("keda.sh", "ScaledObject") if "keda" in d.releases]
    scalers += [
        ("HorizontalPodAutoscaler", r)
        for r in d.objects("autoscaling", "HorizontalPodAutoscaler")
        if any(m.get("type") in CUSTOM_METRICS for m in (r.inputs.get("spec") or {}).get("metrics") or [])
    ]
    return [
        f"{kind} {_name(r)}"
        for kind, r in scalers
        if _scale_target_gpus(d, (r.inputs.get("spec") or {}).get("scaleTargetRef") or {}) is not False
    ]


def _pod_autoscaling(d: Declared, minor: str) -> Judgement:
    """Judged from the capability the plan installs, not from a model being served: a custom/external metrics
    server for the HPA (KEDA's metrics API server, or the Prometheus Adapter: the `metric_autoscalers` releases)
    reading a Prometheus that holds the GPU and model metrics (the kube-prometheus-stack release), on a cluster with
    GPU groups. Declared scalers of GPU workloads are named as its use."""
    if not d.gpu_pools:
        return NOT_APPLICABLE, "no GPU node group"
    adapters = d.installed("metric_autoscalers")
    if not adapters:
        return NOT_MET, (
            "no custom-metrics server for the HorizontalPodAutoscaler (KEDA or Prometheus Adapter): GPU pods "
            "scale on CPU and memory at most (set kubernetes.podAutoscaling.enabled: true)"
        )
    if "kube-prometheus-stack" not in d.releases:
        return NOT_MET, (
            f"{', '.join(adapters)} installed but no Prometheus holds GPU or model metrics to scale on "
            "(set kubernetes.monitoring.enabled: true)"
        )
    gpu = _gpu_scalers(d)
    used = f"; in use by {', '.join(gpu)}" if gpu else ""
    return MET, (
        f"{', '.join(adapters)} serves custom and external metrics to the HorizontalPodAutoscaler, read from "
        f"Prometheus ({d.chart('kube-prometheus-stack')}: DCGM GPU metrics, model servers' own), for any workload "
        f"including {GPU} pods{used}"
    )


def _accelerator_metrics(d: Declared, minor: str) -> Judgement:
    if not d.gpu_pools:
        return NOT_APPLICABLE, "no GPU node group"
    exporter = None
    if "gpu-operator" in d.releases and _enabled(d.values("gpu-operator"), "dcgmExporter"):
        exporter, config = (
            f"DCGM exporter from {d.chart('gpu-operator')}",
            ((d.values("gpu-operator").get("dcgmExporter") or {}).get("config") or {}).get("name"),
        )
    elif "dcgm-exporter" in d.releases:
        exporter, config = d.chart("dcgm-exporter"), None
    if exporter is None:
        return NOT_MET, (
            "no accelerator metrics exporter: nothing exposes per-GPU utilization and memory "
            "(keep the GPU Operator's dcgmExporter on)"
        )
    if config:
        maps = [r for r in d.objects("core", "ConfigMap") if _name(r) == config]
        counters = " ".join(str(v) for r in maps for v in (r.inputs.get("data") or {}).values())
        absent = [m for m in d.facts["core_gpu_metrics"] if m not in counters]
        if absent:
            return NOT_MET, f"{exporter} runs with counters {config}, which lack {', '.join(absent)}"
    return MET, f"{exporter}: per-GPU {', '.join(d.facts['core_gpu_metrics'])} and more in Prometheus format"


def _ai_service_metrics(d: Declared, minor: str) -> Judgement:
    if "kube-prometheus-stack" not in d.releases:
        return NOT_MET, "no monitoring system discovers workload metrics (set kubernetes.monitoring.enabled: true)"
    spec = (d.values("kube-prometheus-stack").get("prometheus") or {}).get("prometheusSpec") or {}
    open_to = [
        kind
        for kind, key in (
            ("ServiceMonitors", "serviceMonitorSelectorNilUsesHelmValues"),
            ("PodMonitors", "podMonitorSelectorNilUsesHelmValues"),
        )
        if spec.get(key) is False
    ]
    if not open_to:
        return NOT_MET, (
            f"{d.chart('kube-prometheus-stack')}'s Prometheus selects only its own release's monitors: "
            "a workload's ServiceMonitor is never scraped"
        )
    return MET, f"{d.chart('kube-prometheus-stack')}: Prometheus discovers {' and '.join(open_to)} of any workload"


def _robust_controller(d: Declared, minor: str) -> Judgement:
    installed = d.installed("ai_operators")
    if not installed:
        return NOT_MET, "no AI operator with CRDs and webhooks (Kueue, JobSet, KubeRay, Kubeflow) is installed"
    queues = [_name(r) for r in d.objects("kueue.x-k8s.io", "ClusterQueue")]
    reconciled = ""
    if queues and "kueue" in d.releases:
        reconciled = f"; Kueue reconciles the declared ClusterQueues {', '.join(queues)}"
    return MET, f"{', '.join(installed)}{reconciled}"


JUDGES: dict[str, Callable[[Declared, str], Judgement]] = {
    "dra_support": _dra_support,
    "driver_runtime_management": _driver_runtime_management,
    "gpu_sharing": _gpu_sharing,
    "virtualized_accelerator": _virtualized_accelerator,
    "ai_inference": _ai_inference,
    "advanced_inference_ingress": _advanced_inference_ingress,
    "high_performance_networking": _high_performance_networking,
    "disaggregated_inference": _disaggregated_inference,
    "gang_scheduling": _gang_scheduling,
    "cluster_autoscaling": _cluster_autoscaling,
    "pod_autoscaling": _pod_autoscaling,
    "accelerator_metrics": _accelerator_metrics,
    "ai_service_metrics": _ai_service_metrics,
    "secure_accelerator_access": _secure_accelerator_access,
    "robust_controller": _robust_controller,
}


def assess(registrations: Sequence[Registration], minor: str) -> Assessment:
    """Judge every item of the checklist for Kubernetes ``minor`` against what the plan registers."""
    found = checklist(minor)
    if found is None:
        return Assessment(minor, None)
    declared = Declared(list(registrations))
    verdicts = []
    for item in found.items:
        status, detail = JUDGES[item.id](declared, minor)
        verdicts.append(Verdict(item.id, item.level, item.area, status, detail))
    return Assessment(minor, found, tuple(verdicts))
