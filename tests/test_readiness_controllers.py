"""The plan's controller check (blueprints/offline/readiness_controllers.py, facts in catalog/controllers.yaml): every
controller the plan installs has each kind its pinned version watches, from its own chart or from a CRD or release
ordered before it, and (when the platform declares it) RBAC to list and watch it; a gap is blocking.

Run over every shipped and test stack, and over the shipped serving plan with one thing taken away: the
InferenceObjective CRD (as on main before #35 item 1), its order, its served version, the EPP's RBAC, a chart's CRDs."""

from __future__ import annotations

import copy
import dataclasses
import re

import pytest
import yaml
from google.protobuf import struct_pb2

from blueprints.offline import readiness, readiness_controllers
from blueprints.offline.plan import make_plan
from blueprints.stackconfig import ROOT
from catalog.controllers import controllers, for_chart, for_image
from components.kubernetes.charts import charts
from components.kubernetes.inference_gateway import EPP_IMAGE, INFERENCE_OBJECTIVE_CRD
from components.kubernetes.serving import QUERIES
from conftest import SHIPPED, resources, shipped_plan

STACK = "startup-serving"
TEST_STACKS = ROOT / "tests" / "data" / "stacks"
OBJECTIVES = "inferenceobjectives.inference.networking.x-k8s.io"
EPP = "startup-serving-route-mistral-7b-epp"


def with_inputs(reg, inputs):
    properties = struct_pb2.Struct()
    properties.update(inputs)
    return dataclasses.replace(reg, properties=properties)


def crd(regs, name):
    [found] = [r for r in regs if r.type == readiness_controllers.CRD and r.inputs["metadata"]["name"] == name]
    return found


def without(regs, gone):
    """The registrations with `gone` removed, and every dependency on it."""
    return [
        dataclasses.replace(r, dependencies=[d for d in r.dependencies if d != gone.urn]) for r in regs if r is not gone
    ]


def controller_findings(regs):
    return [(f.check, f.level, f.resource) for f in readiness_controllers.check(regs)]


@pytest.mark.parametrize(
    "stack, stacks_dir",
    [(s, None) for s in SHIPPED] + [(p.stem.split(".", 1)[1], TEST_STACKS) for p in TEST_STACKS.glob("Pulumi.*.yaml")],
)
def test_every_shipped_and_test_stack_has_every_controllers_kinds(stack, stacks_dir):
    plan = shipped_plan(stack) if stacks_dir is None else make_plan(stack, stacks_dir)
    installed = readiness_controllers._installed(plan.registrations)
    assert installed and all(row is not None and row.version == version for row, _, version, _ in installed)
    # Each endpoint picker is found, through the registry mirror too (one per InferencePool).
    pickers = [reg for row, reg, _, _ in installed if row.name == "endpoint-picker"]
    assert len(pickers) == len(resources(plan, "kubernetes:inference.networking.k8s.io/v1:InferencePool"))
    assert [f for f in plan.readiness if f.check.startswith("controller-")] == []


def test_without_the_inferenceobjective_crd_the_endpoint_picker_is_a_blocking_finding():
    """The serving plan as main declared it before #35 item 1: only the InferencePool CRD."""
    regs = list(shipped_plan(STACK).registrations)
    old = without(regs, crd(regs, OBJECTIVES))
    findings = [f for f in readiness.check(old) if f.check.startswith("controller-")]
    assert [(f.check, f.level, f.resource) for f in findings] == [("controller-kind-missing", "blocking", EPP)]
    assert "InferenceObjective" in findings[0].message and "inferenceobjective_reconciler.go" in findings[0].message


def test_a_crd_not_ordered_before_the_endpoint_picker_is_blocking():
    regs = list(shipped_plan(STACK).registrations)
    objective = crd(regs, OBJECTIVES)
    [route] = [r for r in regs if objective.urn in r.dependencies]  # the InferenceRoute, parent of the EPP
    unordered = [dataclasses.replace(route, dependencies=[d for d in route.dependencies if d != objective.urn])]
    regs = [unordered[0] if r is route else r for r in regs]
    assert controller_findings(regs) == [("controller-kind-order", "blocking", EPP)]


def test_a_crd_that_does_not_serve_the_watched_version_is_blocking():
    regs = list(shipped_plan(STACK).registrations)
    objective = crd(regs, OBJECTIVES)
    inputs = copy.deepcopy(objective.inputs)
    inputs["spec"]["versions"][0]["name"] = "v1"  # EPP v1.0.2 watches v1alpha2
    regs = [with_inputs(objective, inputs) if r is objective else r for r in regs]
    assert controller_findings(regs) == [("controller-kind-version", "blocking", EPP)]


def test_an_endpoint_picker_role_without_a_watched_kind_is_blocking():
    regs = list(shipped_plan(STACK).registrations)
    roles = [r for r in regs if r.type == readiness_controllers.ROLE]
    [role] = [r for r in roles if r.inputs["metadata"]["name"] == "mistral-7b-epp"]
    inputs = copy.deepcopy(role.inputs)
    inputs["rules"] = [rule for rule in inputs["rules"] if "inferenceobjectives" not in rule["resources"]]
    regs = [with_inputs(role, inputs) if r is role else r for r in regs]
    [finding] = readiness_controllers.check(regs)
    assert (finding.check, finding.level, finding.resource) == ("controller-kind-rbac", "blocking", EPP)
    assert "inferenceobjectives" in finding.fix


def test_without_the_inferencepool_crd_every_controller_watching_it_is_blocking():
    """Envoy Gateway watches it through its values (extensionManager.backendResources), Envoy AI Gateway and the EPP
    in their code."""
    regs = list(shipped_plan(STACK).registrations)
    gone = without(regs, crd(regs, "inferencepools.inference.networking.k8s.io"))
    assert sorted(controller_findings(gone)) == [
        ("controller-kind-missing", "blocking", "startup-serving-ai-gateway"),
        ("controller-kind-missing", "blocking", "startup-serving-gateway-helm"),
        ("controller-kind-missing", "blocking", EPP),
    ]


def test_kinds_another_chart_installs_need_that_release_installing_them_before():
    """Envoy AI Gateway watches Gateway API kinds that gateway-helm's crds subchart installs (crds.enabled)."""
    regs = list(shipped_plan(STACK).registrations)
    [envoy] = [r for r in regs if r.type == readiness.HELM_RELEASE and r.inputs["name"] == "gateway-helm"]
    inputs = copy.deepcopy(envoy.inputs)
    inputs["values"]["crds"] = {"enabled": False}
    changed = [with_inputs(envoy, inputs) if r is envoy else r for r in regs]
    missing = {f.message.split(" watches ")[1].split(" ")[0] for f in readiness_controllers.check(changed)}
    assert missing == {"Gateway", "HTTPRoute", "HTTPRouteFilter"}
    [ai] = [r for r in regs if r.type == readiness.HELM_RELEASE and r.inputs["name"] == "ai-gateway-helm"]
    unordered = dataclasses.replace(ai, dependencies=[d for d in ai.dependencies if d != envoy.urn])
    order = readiness_controllers.check([unordered if r is ai else r for r in regs])
    assert {(f.check, f.resource) for f in order} == {("controller-kind-order", "startup-serving-ai-gateway")}


def test_a_controller_at_a_version_the_catalog_has_not_read_is_a_warning():
    regs = list(shipped_plan(STACK).registrations)
    [epp] = [r for r in regs if r.name == EPP]
    inputs = copy.deepcopy(epp.inputs)
    container = inputs["spec"]["template"]["spec"]["containers"][0]
    container["image"] = container["image"].replace(":v1.0.2", ":v1.1.0")
    [finding] = readiness_controllers.check([with_inputs(epp, inputs) if r is epp else r for r in regs])
    assert (finding.check, finding.level, finding.resource) == ("controller-kinds-unread", "warning", EPP)
    assert "recorded at v1.0.2" in finding.message


def test_every_pinned_chart_and_the_endpoint_picker_have_a_row_at_their_pin():
    """Bumping a pin without reading what the new version watches fails here."""
    for name, chart in charts().items():
        row = for_chart(name)
        assert row is not None and row.version == chart.version, f"{name} {chart.version}: catalog/controllers.yaml"
    repository, _, tag = EPP_IMAGE.partition("/")[2].rpartition(":")
    assert for_image(repository).version == tag
    for row in controllers().values():
        assert row.source.repo and row.source.tag and row.source.commit and row.source.file
        assert all(k.file for k in row.watches)
        # A kind said to come with the chart is of a group the chart installs.
        assert all(row.chart_crds and k.group in row.chart_crds.groups for k in row.watches if k.origin == "chart")


def test_a_chart_whose_own_crds_are_switched_off_leaves_its_controller_without_its_kinds():
    """KEDA's operator watches its six kinds, which its chart installs unless crds.install is false."""
    regs = list(shipped_plan(STACK).registrations)
    [keda] = [r for r in regs if r.type == readiness.HELM_RELEASE and r.inputs["name"] == "keda"]
    inputs = copy.deepcopy(keda.inputs)
    inputs["values"]["crds"] = {"install": False}
    findings = readiness_controllers.check([with_inputs(keda, inputs) if r is keda else r for r in regs])
    assert {(f.check, f.level, f.resource) for f in findings} == {
        ("controller-kind-missing", "blocking", "startup-serving-keda")
    }
    assert len(findings) == 6


def test_the_endpoint_picker_scores_kv_cache_on_the_gauge_vllm_0_12_serves():
    """EPP v1.0.2's default is vllm:gpu_cache_usage_perc, which vLLM 0.12.0 does not have (#35 item 5); the flag names
    the gauge the model's own kv-cache scaling reads."""
    [deployment] = [d for d in resources(shipped_plan(STACK), "kubernetes:apps/v1:Deployment") if "epp" in str(d)]
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    flag = args.index("--kv-cache-usage-percentage-metric")
    assert args[flag + 1] == "vllm:kv_cache_usage_perc" == re.match(r"avg\(([^{]+)\{", QUERIES["kv-cache"]).group(1)


def test_the_installed_inferenceobjective_crd_is_the_one_epp_v1_0_2_watches():
    found = yaml.safe_load(INFERENCE_OBJECTIVE_CRD.read_text())
    [kind] = [k for k in for_image("gateway-api-inference-extension/epp").watches if k.kind == "InferenceObjective"]
    assert (found["spec"]["group"], found["spec"]["names"]["kind"]) == (kind.group, kind.kind)
    assert [v["name"] for v in found["spec"]["versions"] if v["served"]] == [kind.version]
    assert found["metadata"]["annotations"]["inference.networking.k8s.io/bundle-version"] == "v1.0.2"
