"""Kubernetes AI Conformance self-assessment (issue 25 item 7): the checklists are upstream's, and each item is
judged from what the plan registers, so removing the component that meets an item makes it unmet."""

from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from google.protobuf import struct_pb2

from blueprints.offline.conformance import JUDGES, MET, NOT_MET, assess
from blueprints.offline.engine import Registration
from blueprints.offline.render import render_markdown, render_text
from catalog.ai_conformance import base_conformance, checklist, minors, table
from conftest import SHIPPED, shipped_plan

UPSTREAM = Path(__file__).parent / "data" / "ai_conformance"
SERVING_ITEMS = {"ai_inference"}  # met once a model is served behind a route


def verdicts(plan, minor: str | None = None) -> dict[str, Any]:
    return {v.id: v for v in assess(plan.registrations, minor or plan.resolved.spec.kubernetes_version).verdicts}


# ----------------------------------------------------------------------------- the catalog is upstream's
@pytest.mark.parametrize("path", sorted(UPSTREAM.glob("AIConformance-*.yaml")), ids=lambda p: p.stem)
def test_catalog_items_are_the_upstream_checklists_items(path):
    minor = path.stem.removeprefix("AIConformance-")
    doc = yaml.safe_load(path.read_text())
    assert doc["metadata"]["kubernetesVersion"] == f"v{minor}"
    upstream = [
        (item["id"], area, item["level"], item["description"]) for area, items in doc["spec"].items() for item in items
    ]
    ours = checklist(minor)
    assert [(i.id, i.area, i.level, i.description) for i in ours.items] == upstream
    assert ours.path == f"docs/{path.name}"
    source_md = (UPSTREAM / "SOURCE.md").read_text()
    assert re.search(
        rf"\| {re.escape(path.name)} \| docs/{re.escape(path.name)} \| {ours.commit} \| {ours.date} \|", source_md
    )


def test_every_upstream_version_is_in_the_catalog_and_every_item_has_a_judge():
    assert sorted(minors()) == sorted(p.stem.removeprefix("AIConformance-") for p in UPSTREAM.glob("*.yaml"))
    ids = {item.id for minor in minors() for item in checklist(minor).items}
    assert ids <= set(JUDGES)
    assert table()["snapshot"] in (UPSTREAM / "SOURCE.md").read_text()


def test_the_issue_s_checklist_facts():
    must_135 = {i.id for i in checklist("1.35").items if i.level == "MUST"}
    must_136 = {i.id for i in checklist("1.36").items if i.level == "MUST"}
    assert "dra_support" in must_135 and "dra_support" not in must_136
    assert len(must_136) == 8 and {"ai_inference", "pod_autoscaling"} <= must_136


# ----------------------------------------------------------------------------- shipped stacks
@pytest.mark.parametrize("stack", SHIPPED)
def test_every_shipped_stack_meets_the_platform_must_items(stack):
    """Every MUST item but the serving ones is met by what the platform installs, with the component named."""
    plan = shipped_plan(stack)
    found = verdicts(plan)
    must = {k: v for k, v in found.items() if v.level == "MUST"}
    assert {k for k, v in must.items() if v.status != MET} <= SERVING_ITEMS, {
        k: v.detail for k, v in must.items() if v.status != MET
    }
    assert "gpu-operator" in found["accelerator_metrics"].detail
    assert "kueue" in found["gang_scheduling"].detail
    assert "kube-prometheus-stack" in found["ai_service_metrics"].detail
    # every cluster ships the custom metrics API (the Prometheus Adapter reading Prometheus), serving or not
    assert found["pod_autoscaling"].status == MET
    assert (
        "Prometheus Adapter (prometheus-adapter 5.3.0) serves custom.metrics.k8s.io" in found["pod_autoscaling"].detail
    )


def test_every_shipped_stack_meets_ai_inference_through_the_platforms_gateway():
    """The Gateway API implementation is a platform capability: a stack that serves nothing still has it."""
    for stack in ("research-a100", "startup-t4-aliyun", "startup-serving"):
        found = verdicts(shipped_plan(stack))["ai_inference"]
        assert found.status == MET and "Envoy Gateway (gateway-helm v1.9.0)" in found.detail, stack
        assert "GatewayClass envoy-gateway" in found.detail


@pytest.mark.parametrize("dropped", ["release", "class"])
def test_a_stack_without_the_gateway_implementation_reports_ai_inference_unmet(dropped):
    """The plan as it was before the platform installed Envoy Gateway: no release, or no GatewayClass, is unmet."""
    regs = [
        r
        for r in shipped_plan("research-a100").registrations
        if not (
            (
                dropped == "release"
                and r.type == "kubernetes:helm.sh/v3:Release"
                and r.inputs.get("name") == "gateway-helm"
            )
            or (dropped == "class" and r.type.endswith(":GatewayClass"))
        )
    ]
    found = {v.id: v for v in assess(regs, "1.35").verdicts}["ai_inference"]
    assert found.status == NOT_MET
    assert ("Gateway API implementation" if dropped == "release" else "GatewayClass") in found.detail


@pytest.mark.parametrize(
    "field, missing",
    [
        ("podAutoscaling", "no custom metrics API (custom.metrics.k8s.io)"),
        ("monitoring", "KEDA (keda 2.20.2) serves external.metrics.k8s.io only"),
    ],
)
def test_a_stack_without_keda_or_its_prometheus_reports_pod_autoscaling_unmet(plan_variant, field, missing):
    plan = plan_variant("research-a100", lambda c: c.setdefault("kubernetes", {}).update({field: {"enabled": False}}))
    found = verdicts(plan)["pod_autoscaling"]
    assert found.status == NOT_MET and missing in found.detail
    releases = {r.inputs.get("name") for r in plan.registrations if r.type == "kubernetes:helm.sh/v3:Release"}
    assert ("keda" in releases) == (field == "monitoring")


def test_unmet_items_do_not_change_the_exit_code_and_show_in_every_format():
    plan = shipped_plan("startup-t4")
    data = plan.to_json()["aiConformance"]
    assert plan.exit_code == 0 and data["should"]["met"] < data["should"]["judged"]
    assert data["checklist"]["commit"] == checklist("1.35").commit
    text = render_text(plan)
    assert f"AI conformance (Kubernetes 1.35): {data['must']['met']}/{data['must']['judged']} MUST met" in text
    assert "[SHOULD] gpu_sharing: not met" in text
    assert "| MUST | `gang_scheduling` | met |" in render_markdown(plan)


# ----------------------------------------------------------------------------- removing what meets an item
def test_a_stack_without_kueue_has_no_gang_scheduling(plan_variant):
    assert verdicts(shipped_plan("startup-t4"))["gang_scheduling"].status == MET
    plan = plan_variant(
        "startup-t4", lambda c: c.setdefault("kubernetes", {}).setdefault("queueing", {}).update(enabled=False)
    )
    assert verdicts(plan)["gang_scheduling"].status == NOT_MET


def test_a_stack_without_the_autoscaler_has_no_cluster_autoscaling(plan_variant):
    assert verdicts(shipped_plan("startup-t4"))["cluster_autoscaling"].status == MET
    plan = plan_variant("startup-t4", lambda c: c.setdefault("autoscaling", {}).update(enabled=False))
    found = verdicts(plan)["cluster_autoscaling"]
    assert found.status == NOT_MET and "no cluster autoscaler" in found.detail


def test_a_stack_without_monitoring_has_no_ai_service_metrics(plan_variant):
    plan = plan_variant(
        "startup-t4", lambda c: c.setdefault("kubernetes", {}).setdefault("monitoring", {}).update(enabled=False)
    )
    assert verdicts(plan)["ai_service_metrics"].status == NOT_MET
    assert verdicts(plan)["accelerator_metrics"].status == MET  # the exporter still serves /metrics


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(value)
    return s


def _with_values(regs, chart: str, change) -> list[Registration]:
    out = []
    for r in regs:
        if r.type == "kubernetes:helm.sh/v3:Release" and r.inputs.get("name") == chart:
            inputs = copy.deepcopy(r.inputs)  # a registration's inputs are shared: edit a copy
            change(inputs["values"])
            r = dataclasses.replace(r, properties=_struct(inputs))
        out.append(r)
    return out


def test_a_cluster_without_the_dcgm_exporter_has_no_accelerator_metrics():
    """The spec has no switch for the GPU Operator's exporter, so the chart's values are changed as registered."""
    regs = shipped_plan("startup-t4").registrations
    off = _with_values(regs, "gpu-operator", lambda v: v["dcgmExporter"].update(enabled=False))
    found = {v.id: v for v in assess(off, "1.35").verdicts}["accelerator_metrics"]
    assert found.status == NOT_MET and "no accelerator metrics exporter" in found.detail


def test_dcgm_counters_without_gpu_memory_are_not_met():
    regs = list(shipped_plan("startup-t4").registrations)
    for i, r in enumerate(regs):
        if r.type == "kubernetes:core/v1:ConfigMap" and (r.inputs.get("metadata") or {}).get("name") == "gpu-metrics":
            inputs = copy.deepcopy(r.inputs)  # a registration's inputs are shared: edit a copy
            inputs["data"] = {k: v.replace("DCGM_FI_DEV_FB_USED", "X") for k, v in inputs["data"].items()}
            regs[i] = dataclasses.replace(r, properties=_struct(inputs))
    found = {v.id: v for v in assess(regs, "1.35").verdicts}["accelerator_metrics"]
    assert found.status == NOT_MET and "DCGM_FI_DEV_FB_USED" in found.detail


def test_the_device_plugin_stack_is_judged_by_its_own_charts(plan_variant):
    plan = plan_variant("startup-t4", lambda c: c.setdefault("kubernetes", {}).update(gpuStack="device-plugin"))
    found = verdicts(plan)
    assert found["accelerator_metrics"].status == MET and "dcgm-exporter" in found["accelerator_metrics"].detail
    # The device plugin chart alone leaves the node's runtime as the image ships it: the runtime half is not met.
    secure = found["secure_accelerator_access"]
    assert secure.status == NOT_MET and "nvidia-device-plugin" in secure.detail
    assert "does not configure the container runtime" in secure.detail


# ----------------------------------------------------------------------------- serving resources flip the items
def _object(urn_tail: str, type_: str, inputs: dict[str, Any]) -> Registration:
    return Registration(
        urn=f"urn:pulumi:test::p::{type_}::{urn_tail}",
        id="",
        type=type_,
        name=urn_tail,
        parent="",
        provider="",
        custom=True,
        protect=False,
        dependencies=[],
        property_dependencies={},
        properties=_struct(inputs),
    )


def _release(chart: str) -> Registration:
    return _object(chart, "kubernetes:helm.sh/v3:Release", {"name": chart, "version": "1.0.0", "values": {}})


GATEWAY = "kubernetes:gateway.networking.k8s.io/v1:"
SERVED = [
    _release("gateway-helm"),
    _object("gw", GATEWAY + "Gateway", {"metadata": {"name": "inference"}, "spec": {"gatewayClassName": "eg"}}),
    _object(
        "route",
        GATEWAY + "HTTPRoute",
        {
            "metadata": {"name": "llama"},
            "spec": {
                "rules": [
                    {
                        "backendRefs": [
                            {"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "llama"}
                        ]
                    }
                ]
            },
        },
    ),
    _object("pool", "kubernetes:inference.networking.k8s.io/v1:InferencePool", {"metadata": {"name": "llama"}}),
    _release("keda"),
    _object(
        "vllm",
        "kubernetes:apps/v1:Deployment",
        {
            "metadata": {"name": "llama"},
            "spec": {
                "template": {
                    "spec": {"containers": [{"name": "vllm", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}
                }
            },
        },
    ),
    _object(
        "so",
        "kubernetes:keda.sh/v1alpha1:ScaledObject",
        {
            "metadata": {"name": "llama"},
            "spec": {
                "scaleTargetRef": {"name": "llama"},
                "minReplicaCount": 0,
                "triggers": [{"type": "prometheus", "metadata": {"query": "sum(vllm:num_requests_waiting)"}}],
            },
        },
    ),
]


def test_serving_resources_meet_the_inference_items():
    regs = list(shipped_plan("research-a100").registrations) + SERVED
    found = {v.id: v for v in assess(regs, "1.36").verdicts}
    assert found["ai_inference"].status == MET and "Envoy Gateway" in found["ai_inference"].detail
    assert found["pod_autoscaling"].status == MET and "ScaledObject llama" in found["pod_autoscaling"].detail
    assert found["advanced_inference_ingress"].status == MET


@pytest.mark.parametrize(
    "dropped, item",
    [("gateway-helm", "ai_inference"), ("route", "advanced_inference_ingress")],
)
def test_each_missing_serving_piece_leaves_its_item_unmet(dropped, item):
    base = [r for r in shipped_plan("research-a100").registrations if r.inputs.get("name") != dropped]
    regs = base + [r for r in SERVED if r.name != dropped]
    found = {v.id: v for v in assess(regs, "1.36").verdicts}
    assert found[item].status == NOT_MET


def _without_keda(regs):
    return [r for r in regs if not (r.type == "kubernetes:helm.sh/v3:Release" and r.inputs.get("name") == "keda")]


def _without(regs, chart):
    return [r for r in regs if not (r.type == "kubernetes:helm.sh/v3:Release" and r.inputs.get("name") == chart)]


def test_keda_alone_serves_no_custom_metrics_and_an_hpa_alone_is_no_custom_metrics_api():
    """KEDA registers external.metrics.k8s.io only (kedacore/charts v2.20.2 metrics-server/apiservice.yaml): without
    the Prometheus Adapter the item is not met, whatever HPA is declared."""
    hpa = _object(
        "hpa",
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
        {"metadata": {"name": "llama"}, "spec": {"metrics": [{"type": "Pods", "pods": {"metric": {"name": "x"}}}]}},
    )
    base = list(shipped_plan("research-a100").registrations)
    found = {v.id: v for v in assess(_without(base, "prometheus-adapter") + [hpa], "1.35").verdicts}["pod_autoscaling"]
    assert found.status == NOT_MET and "KEDA (keda 2.20.2) serves external.metrics.k8s.io only" in found.detail
    found = {v.id: v for v in assess(_without_keda(base), "1.35").verdicts}["pod_autoscaling"]
    assert found.status == MET and "KEDA" not in found.detail


def test_an_adapter_without_gpu_rules_does_not_meet_pod_autoscaling():
    regs = _with_values(
        shipped_plan("research-a100").registrations,
        "prometheus-adapter",
        lambda v: v["rules"].update(custom=[r for r in v["rules"]["custom"] if "DCGM" not in r["seriesQuery"]]),
    )
    found = {v.id: v for v in assess(regs, "1.35").verdicts}["pod_autoscaling"]
    assert found.status == NOT_MET and "serves no accelerator metric" in found.detail


@pytest.mark.parametrize("stack", SHIPPED)
def test_every_shipped_stack_serves_gpu_and_model_metrics_on_the_custom_metrics_api(stack):
    """The adapter's rules, as registered, serve the DCGM and vLLM gauges as pod metrics, from the monitoring
    stack's Prometheus, on the system nodes, and the reason text names exactly those series."""
    plan = shipped_plan(stack)
    [adapter] = [
        r.inputs
        for r in plan.registrations
        if r.type == "kubernetes:helm.sh/v3:Release" and r.inputs.get("name") == "prometheus-adapter"
    ]
    values = adapter["values"]
    assert values["rules"]["default"] is False
    assert values["prometheus"] == {"url": "http://prometheus-operated.monitoring.svc", "port": 9090}
    assert values["nodeSelector"] == {"gpu-blueprints/node-group": "system"}
    assert adapter["namespace"] == "monitoring" and adapter["version"] == "5.3.0"
    series = " ".join(r["seriesQuery"] for r in values["rules"]["custom"])
    found = verdicts(plan)["pod_autoscaling"]
    for name in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "num_requests_waiting", "kv_cache_usage_perc"):
        assert name in series and name in found.detail
    assert found.status == MET


def test_a_scaler_of_a_workload_without_gpus_is_not_named_as_gpu_autoscaling():
    cpu = _object(
        "vllm",
        "kubernetes:apps/v1:Deployment",
        {
            "metadata": {"name": "llama"},
            "spec": {"template": {"spec": {"containers": [{"name": "vllm", "resources": {"limits": {"cpu": "4"}}}]}}},
        },
    )
    base = list(shipped_plan("research-a100").registrations)
    gpu = {v.id: v for v in assess(base + SERVED, "1.35").verdicts}["pod_autoscaling"]
    regs = base + [cpu if r.name == "vllm" else r for r in SERVED]
    found = {v.id: v for v in assess(regs, "1.35").verdicts}["pod_autoscaling"]
    assert "in use by ScaledObject llama" in gpu.detail and "ScaledObject llama" not in found.detail
    assert found.status == MET  # the capability is installed; the CPU workload's scaler is not its evidence


# ----------------------------------------------------------------------------- the cluster's own minor
def test_the_checklist_follows_the_cluster_minor(plan_variant):
    plan = plan_variant("startup-t4", lambda c: c.update(kubernetesVersion="1.36"))
    data = plan.to_json()["aiConformance"]
    assert data["kubernetesVersion"] == "1.36" and data["checklist"]["commit"] == checklist("1.36").commit
    ids = {i["id"] for i in data["items"]}
    assert "dra_support" not in ids and "advanced_inference_ingress" in ids
    assert assess(plan.registrations, "1.32").checklist is None  # CNCF publishes none for 1.32


def test_high_performance_networking_follows_the_efa_groups():
    efa = {v.id: v for v in assess(shipped_plan("research-a100").registrations, "1.36").verdicts}
    assert efa["high_performance_networking"].status == MET
    assert "aws-efa-k8s-device-plugin" in efa["high_performance_networking"].detail
    plain = {v.id: v for v in assess(shipped_plan("startup-t4").registrations, "1.36").verdicts}
    assert plain["high_performance_networking"].status == "not applicable"
    without = [
        r
        for r in shipped_plan("research-a100").registrations
        if not (r.type == "kubernetes:helm.sh/v3:Release" and r.inputs.get("name") == "aws-efa-k8s-device-plugin")
    ]
    assert {v.id: v for v in assess(without, "1.36").verdicts}["high_performance_networking"].status == NOT_MET


# ----------------------------------------------------------------------------- "met" follows the readiness verdict
def test_every_met_item_names_the_registrations_that_meet_it():
    """A met item carries the Pulumi names of what meets it, so the readiness check's findings can be laid on them."""
    for stack in ("startup-serving", "startup-t4-aliyun"):
        plan = shipped_plan(stack)
        names = {r.name for r in plan.registrations}
        for v in assess(plan.registrations, "1.35", plan.readiness).verdicts:
            if v.status == MET:
                assert v.by and set(v.by) <= names, (stack, v.id)


def test_a_serving_stack_whose_endpoint_picker_cannot_start_does_not_meet_the_inference_items():
    """Deliberately broken: the serving plan without the InferenceObjective CRD its endpoint picker watches (as main
    declared it before #35). The readiness check calls the picker broken, so the routed items are not met."""
    regs = list(shipped_plan("startup-serving").registrations)
    [objective] = [
        r
        for r in regs
        if r.type == "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
        and r.inputs["metadata"]["name"] == "inferenceobjectives.inference.networking.x-k8s.io"
    ]
    broken = [
        dataclasses.replace(r, dependencies=[d for d in r.dependencies if d != objective.urn])
        for r in regs
        if r is not objective
    ]
    found = {v.id: v for v in assess(broken, "1.36").verdicts}
    for item in ("ai_inference", "advanced_inference_ingress"):
        assert found[item].status == NOT_MET, item
        assert "readiness check finds it broken: controller-kind-missing on startup-serving-route-mistral-7b-epp" in (
            found[item].detail
        )
    assert found["gang_scheduling"].status == MET  # nothing else is touched
    whole = {v.id: v for v in assess(regs, "1.36").verdicts}
    assert whole["ai_inference"].status == MET and whole["advanced_inference_ingress"].status == MET


def test_a_blocking_finding_on_a_charts_pods_unmeets_every_item_that_chart_meets():
    from blueprints.offline.readiness import BLOCKING, WARNING, Finding

    plan = shipped_plan("startup-t4")
    gap = Finding("controller-placement", BLOCKING, "chart gpu-operator Deployment gpu-operator", "fits no node", "")
    found = {v.id: v for v in assess(plan.registrations, "1.35", [gap]).verdicts}
    for item in ("secure_accelerator_access", "accelerator_metrics", "driver_runtime_management"):
        assert found[item].status == NOT_MET and "controller-placement on chart gpu-operator" in found[item].detail
    assert found["gang_scheduling"].status == MET
    warned = {v.id: v for v in assess(plan.registrations, "1.35", [dataclasses.replace(gap, level=WARNING)]).verdicts}
    assert warned["accelerator_metrics"].status == MET  # a warning is not a broken component


# ----------------------------------------------------------------------------- secure_accelerator_access: the runtime
RUNTIME_SETTINGS = (
    "accept-nvidia-visible-devices-envvar-when-unprivileged=false, accept-nvidia-visible-devices-as-volume-mounts=true"
)


@pytest.mark.parametrize("stack", SHIPPED)
def test_every_shipped_stack_sets_the_runtime_half_of_secure_accelerator_access(stack):
    """The plan registers the toolkit's two settings, CDI off and the plugin's volume-mount device lists, on both
    clouds (on ACK, ACK's own device plugin off on every GPU pool); the reason text names exactly those settings."""
    plan = shipped_plan(stack)
    [operator] = [
        r.inputs
        for r in plan.registrations
        if r.type == "kubernetes:helm.sh/v3:Release" and r.inputs.get("name") == "gpu-operator"
    ]
    values = operator["values"]
    env = {e["name"]: e["value"] for e in values["toolkit"]["env"]}
    assert values["toolkit"]["enabled"] is True and values["cdi"] == {"enabled": False}
    assert env == {
        "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED": "false",
        "ACCEPT_NVIDIA_VISIBLE_DEVICES_AS_VOLUME_MOUNTS": "true",
    }
    assert values["devicePlugin"]["enabled"] is True
    assert {"name": "DEVICE_LIST_STRATEGY", "value": "volume-mounts"} in values["devicePlugin"]["env"]
    found = verdicts(plan)["secure_accelerator_access"]
    assert found.status == MET
    assert RUNTIME_SETTINGS in found.detail and "DEVICE_LIST_STRATEGY=volume-mounts" in found.detail
    assert "not judged" not in found.detail
    if plan.resolved.spec.cloud == "alicloud":
        pools = [r for r in plan.registrations if r.type == "alicloud:cs/nodePool:NodePool"]
        gpu = [p for p in pools if any(label["key"] == "nvidia.com/gpu.present" for label in p.inputs["labels"])]
        assert gpu and all({"key": "ack.node.gpu.schedule", "value": "disabled"} in p.inputs["labels"] for p in gpu), (
            "ACK's own device plugin must be off where the operator's runs"
        )
        assert "ack.node.gpu.schedule=disabled" in found.detail


@pytest.mark.parametrize(
    "change, gap",
    [
        (lambda v: v["toolkit"].update(enabled=False), "container toolkit is off"),
        (lambda v: v["toolkit"].update(env=[]), "toolkit.env does not set"),
        (lambda v: v["cdi"].update(enabled=True), "cdi.enabled is on"),
        (lambda v: v["devicePlugin"].update(env=[]), "DEVICE_LIST_STRATEGY=volume-mounts"),
    ],
)
def test_each_missing_runtime_setting_leaves_secure_accelerator_access_unmet(change, gap):
    regs = _with_values(shipped_plan("startup-t4").registrations, "gpu-operator", change)
    found = {v.id: v for v in assess(regs, "1.35").verdicts}["secure_accelerator_access"]
    assert found.status == NOT_MET and gap in found.detail


def test_an_ack_gpu_pool_where_acks_own_device_plugin_runs_is_unmet():
    regs = []
    for r in shipped_plan("startup-t4-aliyun").registrations:
        if r.type == "alicloud:cs/nodePool:NodePool":
            inputs = copy.deepcopy(r.inputs)  # a registration's inputs are shared: edit a copy
            inputs["labels"] = [label for label in inputs["labels"] if label["key"] != "ack.node.gpu.schedule"]
            r = dataclasses.replace(r, properties=_struct(inputs))
        regs.append(r)
    found = {v.id: v for v in assess(regs, "1.35").verdicts}["secure_accelerator_access"]
    assert found.status == NOT_MET and "ACK's own device plugin still runs on" in found.detail


# ----------------------------------------------------------------------------- base conformance per minor
@pytest.mark.parametrize("stack", ["startup-t4", "startup-t4-aliyun"])
def test_each_cloud_names_its_base_conformance_entry_for_the_cluster_minor(plan_variant, stack):
    """cncf/k8s-ai-conformance scripts/validate.go requires k8sConformanceUrl; the plan names the platform's entry
    for the cluster's own minor (ACK's product directory in cncf/k8s-conformance is `alicloud`)."""
    product = "alicloud" if stack.endswith("aliyun") else "eks"
    data = shipped_plan(stack).to_json()["aiConformance"]
    assert data["k8sConformanceUrl"] == (
        f"https://github.com/cncf/k8s-conformance/tree/master/v{data['kubernetesVersion']}/{product}"
    )
    assert f"base conformance (k8sConformanceUrl): {data['k8sConformanceUrl']}" in render_text(shipped_plan(stack))
    newer = plan_variant(stack, lambda c: c.update(kubernetesVersion="1.36"))
    assert newer.to_json()["aiConformance"]["k8sConformanceUrl"].endswith(f"/v1.36/{product}")


def test_every_checklist_minor_has_both_clouds_base_conformance_entries():
    for minor in minors():
        for cloud, product in (("eks", "eks"), ("ack", "alicloud")):
            entry = base_conformance(cloud, minor)
            assert entry is not None and entry.path == f"v{minor}/{product}" and len(entry.commit) == 40


# ----------------------------------------------------------------------------- robust_controller: an AI operator
@pytest.mark.parametrize("stack", SHIPPED)
def test_every_shipped_stack_runs_kuberay_admitted_through_kueue(stack):
    """KubeRay's operator (pinned chart, system nodes) beside Kueue, whose integrations admit RayJob and RayCluster;
    the reason text names the operator and the frameworks the plan registers."""
    plan = shipped_plan(stack)
    releases = {r.inputs["name"]: r.inputs for r in plan.registrations if r.type == "kubernetes:helm.sh/v3:Release"}
    ray = releases["kuberay-operator"]
    assert ray["version"] == "1.7.0" and ray["values"]["nodeSelector"] == {"gpu-blueprints/node-group": "system"}
    config = yaml.safe_load(releases["kueue"]["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert {"ray.io/rayjob", "ray.io/raycluster"} <= set(config["integrations"]["frameworks"])
    found = verdicts(plan)["robust_controller"]
    assert found.status == MET
    assert found.detail.startswith("KubeRay (kuberay-operator 1.7.0): its CRDs come with the chart")
    assert "admitted all or nothing through Kueue (ray.io/rayjob, ray.io/raycluster)" in found.detail
    assert not [f for f in plan.readiness if f.resource == f"{stack}-kuberay-operator"]


def test_kueue_alone_is_no_ai_operator():
    """The plan as it was before KubeRay: Kueue, JobSet and LWS are not the Ray/Kubeflow operator the item asks."""
    regs = _without(shipped_plan("startup-t4").registrations, "kuberay-operator")
    found = {v.id: v for v in assess(regs, "1.35").verdicts}["robust_controller"]
    assert found.status == NOT_MET and "Kueue queues jobs but is not one" in found.detail


def test_a_kuberay_that_cannot_start_does_not_meet_robust_controller():
    from blueprints.offline.readiness import BLOCKING, Finding

    plan = shipped_plan("startup-t4")
    gap = Finding("controller-kind-missing", BLOCKING, "startup-t4-kuberay-operator", "RayCluster not served", "")
    found = {v.id: v for v in assess(plan.registrations, "1.35", [gap]).verdicts}["robust_controller"]
    assert found.status == NOT_MET and "controller-kind-missing on startup-t4-kuberay-operator" in found.detail


# ----------------------------------------------------------------------------- each MUST item's reason, as registered
def _releases(plan) -> dict[str, dict]:
    return {r.inputs["name"]: r.inputs for r in plan.registrations if r.type == "kubernetes:helm.sh/v3:Release"}


@pytest.mark.parametrize("stack", SHIPPED)
def test_the_remaining_must_items_reason_text_is_what_the_plan_registers(stack):
    """dra_support, gang_scheduling, cluster_autoscaling, accelerator_metrics and ai_service_metrics: each reason names
    the versions, switches and groups as the plan registers them (ai_inference, pod_autoscaling,
    secure_accelerator_access and robust_controller have tests of their own above)."""
    plan = shipped_plan(stack)
    releases, found = _releases(plan), verdicts(plan)
    assert all(v.status == MET for v in found.values() if v.level == "MUST"), stack
    cloud = "ACK" if plan.resolved.spec.cloud == "alicloud" else "EKS"
    minor = plan.resolved.spec.kubernetes_version
    assert found["dra_support"].detail.startswith(f"{cloud} {minor} control plane serves resource.k8s.io")
    kueue = releases["kueue"]
    assert found["gang_scheduling"].detail.startswith(f"Kueue (kueue {kueue['version']}) admits a job's pods")
    config = yaml.safe_load(kueue["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert ("waitForPodsReady holds admission" in found["gang_scheduling"].detail) == bool(config["waitForPodsReady"])
    for group in plan.resolved.node_groups:
        assert f"{group.name}" in found["cluster_autoscaling"].detail
    if cloud == "EKS":
        scaler = releases["cluster-autoscaler"]
        assert found["cluster_autoscaling"].detail.startswith(f"cluster-autoscaler {scaler['version']} scales GPU")
    else:
        assert found["cluster_autoscaling"].detail.startswith("ACK node autoscaling scales GPU groups")
    operator = releases["gpu-operator"]
    assert found["accelerator_metrics"].detail.startswith(
        f"DCGM exporter from gpu-operator {operator['version']}: per-GPU DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED"
    )
    spec = releases["kube-prometheus-stack"]["values"]["prometheus"]["prometheusSpec"]
    assert (
        spec["serviceMonitorSelectorNilUsesHelmValues"] is False
        and spec["podMonitorSelectorNilUsesHelmValues"] is False
    )
    assert found["ai_service_metrics"].detail == (
        f"kube-prometheus-stack {releases['kube-prometheus-stack']['version']}: Prometheus discovers ServiceMonitors "
        "and PodMonitors of any workload"
    )
