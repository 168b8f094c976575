"""Kubernetes AI Conformance self-assessment: each MUST and SHOULD item of the CNCF checklist for the cluster's
Kubernetes minor (catalog/ai_conformance.yaml), judged met, not met or not applicable from what the plan registers
(Helm releases and their values, add-ons, CRD objects, node groups), naming what meets it or what is missing.

It is a report: an unmet item changes no exit code (README: AI conformance). "Met" means the cluster this plan
creates has the mechanism the item asks for; the demonstration the CNCF submission asks for is still to be run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from catalog import load_catalog
from catalog.ai_conformance import BaseConformance, Checklist, base_conformance, checklist, table
from catalog.clouds import type_of
from components.kubernetes.nodes import (
    ACK_DEVICE_PLUGIN_OFF,
    ACK_GPU_SCHEDULE_LABEL,
    DRA,
    ERDMA_RESOURCE,
    FABRIC_DEVICES_LABEL,
    GPU_RESOURCE,
)
from components.kubernetes.platform import DEVICE_LIST_STRATEGY, EFA_DRA_DRIVER, RUNTIME_ISOLATION_ENV

from .engine import Registration
from .readiness import (
    ACK_CLUSTER,
    BLOCKING,
    EKS_CLUSTER,
    HELM_RELEASE,
    POD_TEMPLATES,
    Finding,
    Pool,
    _has_efa,
    _pools,
)
from .readiness import check as readiness_check

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
    by: tuple[str, ...] = ()  # the registrations (Pulumi names) that meet it; empty unless met

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "area": self.area,
            "status": self.status,
            "detail": self.detail,
            "by": list(self.by),
        }


@dataclass(frozen=True)
class Assessment:
    minor: str
    checklist: Checklist | None  # None: CNCF publishes no checklist for this minor
    verdicts: tuple[Verdict, ...] = ()
    base: BaseConformance | None = None  # the platform's cncf/k8s-conformance entry for this minor

    def count(self, level: str, status: str = MET) -> int:
        return sum(1 for v in self.verdicts if v.level == level and v.status == status)

    def judged(self, level: str) -> int:
        return sum(1 for v in self.verdicts if v.level == level and v.status != NOT_APPLICABLE)

    def to_json(self) -> dict[str, Any]:
        if self.checklist is None:
            return {"kubernetesVersion": self.minor, "checklist": None, "items": []}
        return {
            "kubernetesVersion": self.minor,
            "k8sConformanceUrl": self.base.url if self.base is not None else None,
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

    def release(self, name: str) -> tuple[Registration, ...]:
        """The Helm release of chart ``name``, as a one-item tuple (empty when not installed)."""
        return (self.releases[name],) if name in self.releases else ()

    def charts(self, table_key: str) -> tuple[Registration, ...]:
        """The releases of one judging list the plan installs."""
        return tuple(self.releases[name] for name in self.facts[table_key] if name in self.releases)

    def pool_registrations(self, pools: Sequence[Pool]) -> tuple[Registration, ...]:
        urns = {p.urn for p in pools}
        return tuple(r for r in self.regs if r.urn in urns)

    def parents(self, regs: Sequence[Registration]) -> tuple[Registration, ...]:
        """The component each registration belongs to (its parent), for a whole serving path: a route's component
        holds its InferencePool and endpoint picker, a model's its Deployment and scaler."""
        urns = {r.parent for r in regs}
        return tuple(r for r in self.regs if r.urn in urns)

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
# (status, detail) or, when met, (status, detail, the registrations that meet it): a met item names what meets it, so
# a blocking readiness finding on any of them (or on what they hold) turns it unmet (see `_broken`).
Judgement = tuple[str, str] | tuple[str, str, tuple[Registration, ...]]


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
        return (
            MET,
            f"{plane}; {', '.join(drivers)} publishes the GPUs as ResourceSlices",
            (
                d.cluster,
                *d.charts("dra_drivers"),
            ),
        )
    return (
        MET,
        (
            f"{plane}; no DRA driver is installed, so GPUs are still requested by count through the "
            "device plugin (add NVIDIA's k8s-dra-driver-gpu to claim them by attribute)"
        ),
        (d.cluster,),
    )


def _device_plugin(d: Declared) -> tuple[str, tuple[Registration, ...]] | None:
    if "gpu-operator" in d.releases and _enabled(d.values("gpu-operator"), "devicePlugin"):
        return f"NVIDIA device plugin from {d.chart('gpu-operator')}", d.release("gpu-operator")
    if "nvidia-device-plugin" in d.releases:
        return d.chart("nvidia-device-plugin"), d.release("nvidia-device-plugin")
    if d.cloud == "ack" and d.cluster is not None:
        return d.facts["ack_device_plugin"], (d.cluster,)
    return None


def _env(section: Mapping[str, Any]) -> dict[str, str]:
    return {str(e.get("name")): str(e.get("value")) for e in section.get("env") or []}


def _runtime_gaps(d: Declared) -> list[str]:
    """What keeps the container runtime from refusing GPUs a container was not given: the GPU Operator's toolkit with
    RUNTIME_ISOLATION_ENV, CDI off, its device plugin passing device lists as volume mounts, and on ACK no other
    device plugin on the GPU pools."""
    values = d.values("gpu-operator")
    toolkit, plugin = values.get("toolkit") or {}, values.get("devicePlugin") or {}
    gaps = []
    if not _enabled(values, "toolkit"):
        gaps.append("the GPU Operator's container toolkit is off, so the node image's runtime settings apply")
    wrong = [f"{k}={v}" for k, v in RUNTIME_ISOLATION_ENV.items() if _env(toolkit).get(k) != v]
    if _enabled(values, "toolkit") and wrong:
        gaps.append(f"toolkit.env does not set {', '.join(wrong)}")
    if _enabled(values, "cdi"):
        gaps.append("cdi.enabled is on (the runtime then reads CDI annotations, not volume-mount device lists)")
    if _env(plugin).get("DEVICE_LIST_STRATEGY") != DEVICE_LIST_STRATEGY:
        gaps.append(f"devicePlugin.env does not set DEVICE_LIST_STRATEGY={DEVICE_LIST_STRATEGY}")
    if d.cloud == "ack":
        open_pools = [p.name for p in d.gpu_pools if p.labels.get(ACK_GPU_SCHEDULE_LABEL) != ACK_DEVICE_PLUGIN_OFF]
        if open_pools:
            gaps.append(
                f"ACK's own device plugin still runs on {', '.join(open_pools)} "
                f"(label {ACK_GPU_SCHEDULE_LABEL}={ACK_DEVICE_PLUGIN_OFF} keeps it off)"
            )
    return gaps


def _secure_accelerator_access(d: Declared, minor: str) -> Judgement:
    """Both halves the item names: the device plugin allocates GPUs per container, and the container runtime gives a
    container only those (it ignores NVIDIA_VISIBLE_DEVICES set by an unprivileged container). The runtime half is
    judged only where the plan configures the runtime, through the GPU Operator (components/kubernetes/platform.py
    RUNTIME_ISOLATION_ENV)."""
    if not d.gpu_pools:
        return NOT_APPLICABLE, "no GPU node group"
    if "gpu-operator" not in d.releases or not _enabled(d.values("gpu-operator"), "devicePlugin"):
        found = _device_plugin(d)
        if found is None:
            return NOT_MET, (
                "no GPU device plugin or DRA driver: GPUs are not allocated per container "
                "(keep the GPU Operator's devicePlugin on, or kubernetes.gpuStack: device-plugin)"
            )
        return NOT_MET, (
            f"{found[0]} allocates {GPU} per container, but the plan does not configure the container runtime: an "
            "unprivileged container that sets NVIDIA_VISIBLE_DEVICES=all may see every GPU of its node "
            "(use kubernetes.gpuStack: gpu-operator, whose toolkit and device plugin the platform configures)"
        )
    gaps = _runtime_gaps(d)
    if gaps:
        return NOT_MET, f"the container runtime does not refuse GPUs a container was not given: {'; '.join(gaps)}"
    settings = ", ".join(
        f"{k.lower().replace('_', '-')}={v}" for k, v in RUNTIME_ISOLATION_ENV.items()
    )  # the installer's env names are the config.toml keys, upper-cased
    ack = (
        f"; ACK's own device plugin is off on every GPU pool ({ACK_GPU_SCHEDULE_LABEL}={ACK_DEVICE_PLUGIN_OFF})"
        if d.cloud == "ack"
        else ""
    )
    return (
        MET,
        (
            f"NVIDIA device plugin from {d.chart('gpu-operator')} allocates {GPU} per container and passes the "
            f"device list as volume mounts (DEVICE_LIST_STRATEGY={DEVICE_LIST_STRATEGY}); the operator's NVIDIA "
            f"Container Toolkit, containerd's default runtime (CDI off), sets {settings}: a container without a GPU "
            f"request that sets NVIDIA_VISIBLE_DEVICES=all sees no GPU (privileged pods excepted; team namespaces "
            f"enforce the baseline Pod Security level, which refuses them){ack}"
        ),
        (*d.release("gpu-operator"), *d.pool_registrations(d.gpu_pools)),
    )


def _driver_runtime_management(d: Declared, minor: str) -> Judgement:
    checks = []
    if "gpu-operator" in d.releases:
        checks.append(f"{d.chart('gpu-operator')} validator")
    daemonsets = [r for r in d.objects("apps", "DaemonSet") if _name(r).startswith("gpu-acceptance")]
    acceptance = [_name(r) for r in daemonsets]
    if acceptance:
        checks.append(f"GPU acceptance check on each new GPU node ({', '.join(sorted(acceptance))})")
    if not checks:
        return NOT_MET, (
            "nothing verifies the driver and container runtime on GPU nodes (set kubernetes.acceptance.enabled: true)"
        )
    return MET, "; ".join(checks), (*d.release("gpu-operator"), *daemonsets)


def _gpu_sharing(d: Declared, minor: str) -> Judgement:
    operator = d.values("gpu-operator")
    if "gpu-operator" in d.releases and (operator.get("migManager") or {}).get("enabled"):
        return (
            MET,
            (
                f"MIG partitions from {d.chart('gpu-operator')} (migManager, strategy "
                f"{(operator.get('mig') or {}).get('strategy', 'single')})"
            ),
            d.release("gpu-operator"),
        )
    # Time-slicing or MPS per node group: entries of the operator's devicePlugin.config, chosen by node label.
    entries = ((operator.get("devicePlugin") or {}).get("config") or {}).get("data") or {}
    shared = sorted(k for k, v in entries.items() if "timeSlicing" in str(v) or "mps:" in str(v))
    if "gpu-operator" in d.releases and shared:
        return (
            MET,
            f"time-slicing or MPS from {d.chart('gpu-operator')} (devicePlugin.config entries: {', '.join(shared)})",
            d.release("gpu-operator"),
        )
    plugin = d.values("nvidia-device-plugin")
    if ((plugin.get("config") or {}).get("map") or {}) and "timeSlicing" in str(plugin.get("config")):
        return MET, f"time-slicing in {d.chart('nvidia-device-plugin')}", d.release("nvidia-device-plugin")
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
    gateway_regs = d.objects("gateway.networking.k8s.io", "Gateway")
    route_regs = d.objects("gateway.networking.k8s.io", "HTTPRoute")
    gateways, routes = [_name(r) for r in gateway_regs], [_name(r) for r in route_regs]
    served = f"; Gateway {', '.join(gateways)}; HTTPRoute {', '.join(routes)}" if gateways and routes else ""
    # A declared route is part of the claim: its component (InferencePool, endpoint picker) must start too.
    by = (
        *d.charts("gateway_implementations"),
        *d.objects("gateway.networking.k8s.io", "GatewayClass"),
        *gateway_regs,
        *route_regs,
        *d.parents(route_regs),
    )
    return MET, f"{', '.join(installed)}; GatewayClass {', '.join(classes)}{served}", by


def _routes_to_pool(d: Declared) -> list[Registration]:
    return [
        r
        for r in d.objects("gateway.networking.k8s.io", "HTTPRoute")
        if any(
            ref.get("kind") == "InferencePool"
            for rule in (r.inputs.get("spec") or {}).get("rules") or []
            for ref in rule.get("backendRefs") or []
        )
    ]


def _advanced_inference_ingress(d: Declared, minor: str) -> Judgement:
    pool_regs = (*d.objects(INFERENCE_GROUPS, "InferencePool"), *d.release("inferencepool"))
    pools = [d.chart("inferencepool") if r.type == HELM_RELEASE else _name(r) for r in pool_regs]
    route_regs = _routes_to_pool(d)
    routes = [_name(r) for r in route_regs]
    implementation = _gateway_implementation(d)
    if pools and routes and implementation:
        by = (
            *pool_regs,
            *route_regs,
            *d.parents([*pool_regs, *route_regs]),
            *d.charts("gateway_implementations"),
            *d.objects("gateway.networking.k8s.io", "GatewayClass"),
        )
        return MET, f"InferencePool {', '.join(pools)} behind HTTPRoute {', '.join(routes)} ({implementation})", by
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
    every_efa = [r for r in d.regs if r.type == type_of("aws", "node_group") and _has_efa(d.regs, r)]
    claimed = [r for r in every_efa if (r.inputs.get("labels") or {}).get(FABRIC_DEVICES_LABEL) == DRA]
    efa_groups = [r for r in every_efa if r not in claimed]
    efa = [r.name for r in efa_groups]
    erdma = d.cloud == "ack" and any(
        ERDMA_RESOURCE in str(r.inputs) for r in d.regs if r.type in POD_TEMPLATES or "jobset" in r.type
    )
    if claimed and EFA_DRA_DRIVER in d.releases and (not efa or "aws-efa-k8s-device-plugin" in d.releases):
        plugin = (
            f"; {d.chart('aws-efa-k8s-device-plugin')} exposes vpc.amazonaws.com/efa on {', '.join(efa)} (a device "
            "plugin)"
            if efa
            else ""
        )
        return (
            MET,
            f"{d.chart(EFA_DRA_DRIVER)} (DRANET) publishes the EFA interfaces of {', '.join(r.name for r in claimed)} "
            f"as ResourceSlices, claimed with the GPUs{plugin}",
            (*d.release(EFA_DRA_DRIVER), *every_efa, *(d.release("aws-efa-k8s-device-plugin") if efa else ())),
        )
    if not efa and not erdma and not claimed:
        return NOT_APPLICABLE, "no GPU group has an RDMA fabric (EFA or eRDMA)"
    if efa and not claimed and "aws-efa-k8s-device-plugin" in d.releases:
        return (
            MET,
            (
                f"{d.chart('aws-efa-k8s-device-plugin')} exposes vpc.amazonaws.com/efa on {', '.join(efa)} "
                "(a device plugin, not DRANET)"
            ),
            (*d.release("aws-efa-k8s-device-plugin"), *efa_groups),
        )
    addons = [a.get("name") for a in (d.cluster.inputs.get("addons") or [])] if d.cluster is not None else []
    if erdma and "ack-erdma-controller" in addons:
        return MET, "ack-erdma-controller exposes aliyun/erdma (a device plugin, not DRANET)", (d.cluster,)
    return NOT_MET, "RDMA groups are declared but no device plugin exposes their interfaces to pods"


def _disaggregated_inference(d: Declared, minor: str) -> Judgement:
    workloads = [r for r in d.regs if r.type in POD_TEMPLATES or r.type.endswith(":LeaderWorkerSet")]
    roles = {
        str(v).lower(): r for r in workloads for v in ((r.inputs.get("metadata") or {}).get("labels") or {}).values()
    }
    if {"prefill", "decode"} <= set(roles):
        return MET, "separate prefill and decode workloads are declared", (roles["prefill"], roles["decode"])
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
    return MET, f"{', '.join(installed)} admits a job's pods all or nothing{extra}", d.charts("gang_schedulers")


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
        scalers = tuple(r for r in d.regs if r.type == type_of("alicloud", "autoscaling_config"))
        goat = any(r.inputs.get("scalerType") == "goatscaler" for r in scalers)  # autoscaling.engine instant-elasticity
        scaler = ("ACK GOATScaler (node instant scaling)" if goat else "ACK node autoscaling") if scalers else None
    else:
        engine = next((e for e in ("cluster-autoscaler", "karpenter") if e in d.releases), None)
        scalers = d.release(engine) if engine else ()
        scaler = d.chart(engine) if engine else None
    if scaler is None:
        return NOT_MET, (
            "no cluster autoscaler: GPU groups keep their declared size whatever pods are pending "
            "(set autoscaling.enabled: true)"
        )
    scalable = [p for p in d.gpu_pools if _scalable(p, d)]
    groups = [f"{p.name} ({p.min_nodes}-{p.max_nodes})" for p in scalable]
    if not groups:
        return NOT_MET, (
            f"{scaler} is installed but no GPU group can scale on pending {GPU} pods (raise maxNodes above minNodes)"
        )
    return (
        MET,
        f"{scaler} scales GPU groups {', '.join(groups)} on pending {GPU} pods",
        (*scalers, *d.pool_registrations(scalable)),
    )


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


def _gpu_scalers(d: Declared) -> list[tuple[str, Registration]]:
    """Declared ScaledObjects and custom-metric HPAs whose target asks for GPUs (or is not declared here)."""
    scalers = [("ScaledObject", r) for r in d.objects("keda.sh", "ScaledObject") if "keda" in d.releases]
    scalers += [
        ("HorizontalPodAutoscaler", r)
        for r in d.objects("autoscaling", "HorizontalPodAutoscaler")
        if any(m.get("type") in CUSTOM_METRICS for m in (r.inputs.get("spec") or {}).get("metrics") or [])
    ]
    return [
        (f"{kind} {_name(r)}", r)
        for kind, r in scalers
        if _scale_target_gpus(d, (r.inputs.get("spec") or {}).get("scaleTargetRef") or {}) is not False
    ]


def _custom_series(values: Mapping[str, Any]) -> list[str]:
    """The Prometheus series an adapter's custom rules select (their seriesQuery's __name__ alternatives)."""
    names = []
    for rule in (values.get("rules") or {}).get("custom") or []:
        found = re.search(r'__name__=~"\^?(.*?)\$?"', str(rule.get("seriesQuery", "")))
        if found:
            prefix, _, rest = found.group(1).partition("(")
            names += [prefix + n for n in rest.rstrip(")").split("|")] if rest else [prefix]
    return names


def _pod_autoscaling(d: Declared, minor: str) -> Judgement:
    """Judged from the capability the plan installs, not from a model being served: a custom metrics API
    (custom.metrics.k8s.io, the `custom_metrics_adapters` releases) whose rules serve an accelerator metric and a
    model server's metric from a Prometheus that holds them (the kube-prometheus-stack release), on a cluster with GPU
    groups. KEDA's external metrics are named beside it; declared scalers of GPU workloads are named as its use."""
    if not d.gpu_pools:
        return NOT_APPLICABLE, "no GPU node group"
    adapters = d.charts("custom_metrics_adapters")
    external = d.installed("external_metrics_servers")
    keda = f"; {', '.join(external)} serves external.metrics.k8s.io only" if external else ""
    if not adapters:
        return NOT_MET, (
            f"no custom metrics API (custom.metrics.k8s.io) for the HorizontalPodAutoscaler{keda}: GPU pods cannot "
            "scale on custom metrics (set kubernetes.podAutoscaling.enabled and kubernetes.monitoring.enabled: true "
            "for the Prometheus Adapter)"
        )
    installed = d.installed("custom_metrics_adapters")
    if "kube-prometheus-stack" not in d.releases:
        return NOT_MET, (
            f"{', '.join(installed)} installed but no Prometheus holds GPU or model metrics to serve "
            "(set kubernetes.monitoring.enabled: true)"
        )
    series = [n for r in adapters for n in _custom_series(r.inputs.get("values") or {})]
    gpu = [n for n in series if n in d.facts["core_gpu_metrics"]]
    model = [n for n in series if n.startswith("vllm:")]
    if not gpu:
        return NOT_MET, (
            f"{', '.join(installed)} serves no accelerator metric ({', '.join(d.facts['core_gpu_metrics'])}) as a "
            "custom metric: GPU pods cannot scale on their GPUs' load"
        )
    scalers = _gpu_scalers(d)
    used = f"; in use by {', '.join(label for label, _ in scalers)}" if scalers else ""
    regs = [r for _, r in scalers]
    by = (*adapters, *d.release("kube-prometheus-stack"), *d.charts("external_metrics_servers"), *regs)
    queues = " or their model servers' queues" if model else ""
    besides = keda.replace(" only", " besides") if keda else ""
    return (
        MET,
        (
            f"{', '.join(installed)} serves custom.metrics.k8s.io to the HorizontalPodAutoscaler: pod metrics from "
            f"the Prometheus series {', '.join(gpu + model)} ({d.chart('kube-prometheus-stack')}), so {GPU} pods scale "
            f"on their GPUs' utilization{queues}{besides}{used}"
        ),
        (*by, *d.parents(regs)),
    )


def _accelerator_metrics(d: Declared, minor: str) -> Judgement:
    if not d.gpu_pools:
        return NOT_APPLICABLE, "no GPU node group"
    exporter, by = None, ()
    if "gpu-operator" in d.releases and _enabled(d.values("gpu-operator"), "dcgmExporter"):
        exporter, config, by = (
            f"DCGM exporter from {d.chart('gpu-operator')}",
            ((d.values("gpu-operator").get("dcgmExporter") or {}).get("config") or {}).get("name"),
            d.release("gpu-operator"),
        )
    elif "dcgm-exporter" in d.releases:
        exporter, config, by = d.chart("dcgm-exporter"), None, d.release("dcgm-exporter")
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
    return MET, f"{exporter}: per-GPU {', '.join(d.facts['core_gpu_metrics'])} and more in Prometheus format", by


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
    return (
        MET,
        f"{d.chart('kube-prometheus-stack')}: Prometheus discovers {' and '.join(open_to)} of any workload",
        d.release("kube-prometheus-stack"),
    )


def _robust_controller(d: Declared, minor: str) -> Judgement:
    """An AI operator with CRDs (the checklist's Ray or Kubeflow), installed with its CRDs; its custom resources
    admitted through Kueue where Kueue lists its frameworks. That its controllers can start (every kind they watch
    served, and before them) is the readiness check's controller verdict, which a blocking gap on the release turns
    unmet (see `_broken`)."""
    operators = d.charts("ai_operators")
    if not operators:
        return NOT_MET, (
            "no AI operator with CRDs (KubeRay, Kubeflow Trainer) is installed; Kueue queues jobs but is not one "
            "(set kubernetes.queueing.enabled: true with teams: the platform installs KubeRay beside Kueue)"
        )
    config = str((d.values("kueue").get("managerConfig") or {}).get("controllerManagerConfigYaml", ""))
    parts = []
    for r in operators:
        chart = r.inputs.get("name", "")
        queued = [f for f in d.facts["operator_queue_frameworks"].get(chart, []) if f in config]
        admitted = (
            f"; its custom resources are admitted all or nothing through Kueue ({', '.join(queued)})" if queued else ""
        )
        parts.append(f"{d.facts['ai_operators'][chart]} ({d.chart(chart)}): its CRDs come with the chart{admitted}")
    kueue = d.release("kueue") if "ray.io/rayjob" in config else ()
    return (
        MET,
        "; ".join(parts) + "; the readiness check finds every kind its controllers watch served before they start",
        (*operators, *kueue),
    )


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


# ----------------------------------------------------------------------------- the readiness verdict
def _refers_to(resource: str, r: Registration) -> bool:
    """Whether a readiness finding's resource names this registration: by its Pulumi name, as "Kind name" or
    "Kind namespace/name" (pods the plan declares), or as "chart <chart> ..." (a chart's pods, catalog facts)."""
    if resource == r.name:
        return True
    if r.type == HELM_RELEASE:
        chart = f"chart {r.inputs.get('name', '')}"
        return resource == chart or resource.startswith(f"{chart} ")
    if r.type.startswith("kubernetes:"):
        meta = r.inputs.get("metadata") or {}
        kind = r.type.rpartition(":")[2]
        return resource in (f"{kind} {meta.get('name')}", f"{kind} {meta.get('namespace')}/{meta.get('name')}")
    return False


def _broken(regs: Sequence[Registration], by: Sequence[Registration], findings: Sequence[Finding]) -> list[Finding]:
    """The blocking readiness findings on a registration that meets the item, or on anything it holds (its children,
    transitively): what the readiness check says cannot work on day one cannot meet a checklist item."""
    meeting = {r.urn for r in by}
    parent = {r.urn: r.parent for r in regs}
    broken = []
    for f in findings:
        if f.level != BLOCKING:
            continue
        for r in regs:
            if not _refers_to(f.resource, r):
                continue
            urn: str | None = r.urn
            while urn and urn not in meeting:
                urn = parent.get(urn)
            if urn:
                broken.append(f)
                break
    return broken


def assess(registrations: Sequence[Registration], minor: str, findings: Sequence[Finding] | None = None) -> Assessment:
    """Judge every item of the checklist for Kubernetes ``minor`` against what the plan registers. An item is met
    only when the registrations that meet it carry no blocking readiness finding (``findings``: the plan's readiness
    check; run here when not given)."""
    found = checklist(minor)
    if found is None:
        return Assessment(minor, None)
    regs = list(registrations)
    if findings is None:
        findings = readiness_check(regs)
    declared = Declared(regs)
    verdicts = []
    for item in found.items:
        status, detail, *rest = JUDGES[item.id](declared, minor)
        by: tuple[Registration, ...] = rest[0] if rest else ()
        broken = _broken(regs, by, findings) if status == MET else []
        if broken:
            status = NOT_MET
            detail = f"{detail}, but the readiness check finds it broken: " + "; ".join(
                f"{f.check} on {f.resource}: {f.message}" for f in broken
            )
            by = ()
        verdicts.append(Verdict(item.id, item.level, item.area, status, detail, tuple(r.name for r in by)))
    base = base_conformance(declared.cloud, minor) if declared.cluster is not None else None
    return Assessment(minor, found, tuple(verdicts), base)
