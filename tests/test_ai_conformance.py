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
from catalog.ai_conformance import checklist, minors, table
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
    # every cluster ships the custom-metrics path (KEDA reading Prometheus), serving or not
    assert found["pod_autoscaling"].status == MET and "KEDA (keda 2.20.2)" in found["pod_autoscaling"].detail


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
    [("podAutoscaling", "no custom-metrics server"), ("monitoring", "no Prometheus holds GPU or model metrics")],
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
    assert (
        found["secure_accelerator_access"].status == MET
        and "nvidia-device-plugin" in found["secure_accelerator_access"].detail
    )


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


def test_the_prometheus_adapter_is_a_custom_metrics_path_too_and_an_hpa_alone_is_not():
    hpa = _object(
        "hpa",
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
        {"metadata": {"name": "llama"}, "spec": {"metrics": [{"type": "Pods", "pods": {"metric": {"name": "x"}}}]}},
    )
    regs = _without_keda(shipped_plan("research-a100").registrations) + [hpa]
    assert {v.id: v for v in assess(regs, "1.35").verdicts}["pod_autoscaling"].status == NOT_MET
    found = {v.id: v for v in assess(regs + [_release("prometheus-adapter")], "1.35").verdicts}["pod_autoscaling"]
    assert found.status == MET and "Prometheus Adapter (prometheus-adapter 1.0.0)" in found.detail


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
