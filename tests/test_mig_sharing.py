"""Issue #39 item 3 (MIG that still autoscales): a cluster whose GPU units differ runs the GPU Operator's mixed MIG
strategy, and the autoscaler's scale-from-zero template, Kueue's quotas, the device plugin's time-slicing and the
plan's per-slice cost all name the same nvidia.com/mig-<profile> resources and counts; a layout the GPU does not take
is one line, exit 2.

Expected counts come from the catalog (the GPU Operator's own MIG layouts, catalog/gpu_models.yaml `mig`) and the
stack file, never from the code under test."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from google.protobuf import struct_pb2

from blueprints import mig
from blueprints.cli import main
from blueprints.offline import readiness_sharing
from catalog import load_catalog
from catalog.gpu_models import gpu_models, mig_layouts
from components.kubernetes.nodes import GPU_RESOURCE, MIG_CONFIG_LABEL
from conftest import data_plan, resources

ROOT = Path(__file__).resolve().parent.parent
TEST_STACKS = ROOT / "tests" / "data" / "stacks"
STACK = yaml.safe_load((TEST_STACKS / "Pulumi.mig-mixed.yaml").read_text())["config"]["gpu-cluster-blueprints:cluster"]
TEMPLATE = "k8s.io/cluster-autoscaler/node-template/"
MIG_GROUPS = ("balanced", "notebooks")


@pytest.fixture(scope="module")
def plan():
    return data_plan("mig-mixed")


def _shape(plan, group: str):
    return next(g for g in plan.resolved.node_groups if g.name == group).shape


def _wanted(plan, group: str) -> dict[str, int]:
    """What one node of a MIG group advertises, from the catalog's layout and the stack's sharing replicas."""
    spec = STACK["nodeGroups"][group]
    shape = _shape(plan, group)
    replicas = (spec.get("sharing") or {}).get("replicas", 1)
    layout = mig_layouts(shape.gpu.model)[spec["migProfile"]]
    return {f"nvidia.com/mig-{p}": shape.gpu.count * n * replicas for p, n in layout.items()}


def _template(plan, group: str) -> dict[str, str]:
    asg = next(
        t["autoscalingGroupName"]
        for t in resources(plan, "aws:autoscaling/tag:Tag")
        if t["tag"]["key"] == f"{TEMPLATE}label/gpu-blueprints/node-group" and t["tag"]["value"] == group
    )
    return {
        t["tag"]["key"].removeprefix(f"{TEMPLATE}resources/"): t["tag"]["value"]
        for t in resources(plan, "aws:autoscaling/tag:Tag")
        if t["autoscalingGroupName"] == asg and t["tag"]["key"].startswith(f"{TEMPLATE}resources/")
    }


def _operator(plan) -> dict:
    [release] = [r for r in resources(plan, "kubernetes:helm.sh/v3:Release") if r["name"] == "gpu-operator"]
    return release["values"]


def test_the_mig_stack_plans_with_exit_0(plan):
    assert plan.exit_code == 0, [f.message for f in plan.readiness_blocking()]


def test_layouts_with_several_profiles_and_mig_beside_whole_gpus_run_the_mixed_strategy(plan):
    values = _operator(plan)
    assert values["mig"]["strategy"] == "mixed"
    assert values["migManager"]["enabled"] is True


def test_the_autoscaler_template_advertises_each_mig_resource_and_count_and_no_whole_gpus(plan):
    for group in MIG_GROUPS:
        template = _template(plan, group)
        gpus = {r: int(n) for r, n in template.items() if r.startswith("nvidia.com/")}
        assert gpus == _wanted(plan, group), group
    # the whole-GPU group beside them keeps nvidia.com/gpu
    assert _template(plan, "gpu")[GPU_RESOURCE] == str(_shape(plan, "gpu").gpu.count)


def test_the_node_group_carries_the_layout_the_mig_manager_applies(plan):
    for group in MIG_GROUPS:
        [node_group] = [
            n
            for n in resources(plan, "aws:eks/nodeGroup:NodeGroup")
            if n["labels"].get("gpu-blueprints/node-group") == group
        ]
        assert node_group["labels"][MIG_CONFIG_LABEL] == STACK["nodeGroups"][group]["migProfile"]


def test_kueue_quotas_are_in_mig_units(plan):
    team = "notebooks"
    team_gpus = STACK["kubernetes"]["teams"][team]["gpus"]
    [queue] = [
        q for q in resources(plan, "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue") if q["metadata"]["name"] == team
    ]
    [group] = queue["spec"]["resourceGroups"]
    flavors = {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}
    for name in MIG_GROUPS:
        gpus_per_node = _shape(plan, name).gpu.count
        per_gpu = {r: n // gpus_per_node for r, n in _wanted(plan, name).items()}
        quota = flavors[f"gpu-{name}"]
        assert quota[GPU_RESOURCE] == 0, name  # these nodes advertise no nvidia.com/gpu
        assert {r: quota[r] for r in per_gpu} == {r: team_gpus * n for r, n in per_gpu.items()}, name
        for r in per_gpu:
            assert r in group["coveredResources"]


def test_time_slicing_on_mig_slices_replicates_the_mig_resource(plan):
    config = _operator(plan)["devicePlugin"]["config"]
    entry = yaml.safe_load(config["data"]["notebooks"])
    replicas = STACK["nodeGroups"]["notebooks"]["sharing"]["replicas"]
    assert entry["sharing"]["timeSlicing"]["resources"] == [
        {"name": r, "replicas": replicas} for r in sorted(_wanted(plan, "notebooks"))
    ]


def test_the_cost_section_prices_one_slice_of_each_mig_resource(plan):
    rates = {r["nodeGroup"]: r for r in plan.cost.rates}
    for group in MIG_GROUPS:
        rate = rates[group]
        node = rate["usdPerHour"]
        shape = _shape(plan, group)
        layout = mig_layouts(shape.gpu.model)[STACK["nodeGroups"][group]["migProfile"]]
        replicas = (STACK["nodeGroups"][group].get("sharing") or {}).get("replicas", 1)
        compute = sum(int(p.split("g.")[0]) * n for p, n in layout.items())  # compute slices the layout uses
        assert rate["sharing"]["resources"] == _wanted(plan, group)
        assert rate["sharing"]["usdPerResourceHour"] == {
            f"nvidia.com/mig-{p}": round(node / shape.gpu.count * int(p.split("g.")[0]) / compute / replicas, 4)
            for p in layout
        }
    # one uniform profile: one price per slice, the node's rate over its slices
    notebooks = rates["notebooks"]["sharing"]
    assert notebooks["usdPerSliceHour"] == round(rates["notebooks"]["usdPerHour"] / notebooks["slicesPerNode"], 4)
    assert rates["balanced"]["sharing"]["usdPerSliceHour"] is None  # unequal slices have no one price


def test_readiness_blocks_a_mig_group_whose_template_says_whole_gpus(plan):
    assert readiness_sharing.check(plan.registrations) == []
    asg_key = f"{TEMPLATE}label/gpu-blueprints/node-group"
    asg = next(
        r.inputs["autoscalingGroupName"]
        for r in plan.registrations
        if r.type == "aws:autoscaling/tag:Tag"
        and r.inputs["tag"]["key"] == asg_key
        and r.inputs["tag"]["value"] == "balanced"
    )
    changed = []
    for r in plan.registrations:
        tag = r.inputs.get("tag") or {}
        if r.type == "aws:autoscaling/tag:Tag" and r.inputs["autoscalingGroupName"] == asg:
            if tag["key"].startswith(f"{TEMPLATE}resources/nvidia.com/mig-"):
                properties = struct_pb2.Struct()
                properties.update({**r.inputs, "tag": {"key": f"{TEMPLATE}resources/{GPU_RESOURCE}", "value": "1"}})
                r = dataclasses.replace(r, properties=properties)
        changed.append(r)
    [finding] = readiness_sharing.check(changed)
    assert (
        finding.check == "shared-gpus-from-zero"
        and finding.level == "blocking"
        and finding.resource == "mig-mixed-balanced"
    )


# The strategy itself, on catalog shapes: single only where nvidia.com/gpu means one thing in the whole cluster.
def _group(model: str, profile=None, **more):
    from blueprints.spec import NodeGroupSpec

    shape = next(s for s in load_catalog().shapes if s.gpu.model == model)
    return NodeGroupSpec(gpu_model=model, gpus_per_node=shape.gpu.count, mig_profile=profile, **more), shape


def test_one_uniform_layout_everywhere_keeps_the_single_strategy_and_counts_instances_as_gpus():
    group, shape = _group("A100-80GB", "all-1g.10gb")
    assert mig.strategy([(group, shape), (group, shape)]) == "single"
    assert mig.advertised(group, shape, "single") == {GPU_RESOURCE: shape.gpu.count * 7}


@pytest.mark.parametrize(
    "groups",
    [
        [("H100", "all-balanced")],  # several profiles on one node: single refuses it
        [("H100", "all-1g.10gb"), ("H100", "all-3g.40gb")],  # two units called nvidia.com/gpu
        [("H100", "all-1g.10gb"), ("L4", None)],  # a seventh of a GPU beside whole GPUs
    ],
)
def test_differing_units_run_the_mixed_strategy(groups):
    assert mig.strategy([_group(m, p) for m, p in groups]) == "mixed"


def test_a100_40gb_takes_four_1g10gb_instances_not_seven():
    group, shape = _group("A100-40GB", "all-1g.10gb")
    assert mig.advertised(group, shape, "mixed") == {"nvidia.com/mig-1g.10gb": shape.gpu.count * 4}


def test_every_mig_model_is_a_catalog_gpu_model():
    from catalog.gpu_models import mig_models

    assert set(mig_models()) <= set(gpu_models()[1])


def _bad(tmp_path, capsys, change) -> str:
    stack = yaml.safe_load((TEST_STACKS / "Pulumi.mig-mixed.yaml").read_text())
    change(stack["config"]["gpu-cluster-blueprints:cluster"])
    (tmp_path / "Pulumi.bad.yaml").write_text(yaml.safe_dump(stack))
    code = main(["plan", "--stack", "bad", "--stacks-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0], err
    return err[0]


def test_a_layout_the_gpu_does_not_take_is_one_line_exit_2(tmp_path, capsys):
    # all-1g.5gb is the A100-40GB's; an H100 (80 GB) has 1g.10gb instances
    line = _bad(tmp_path, capsys, lambda c: c["nodeGroups"]["balanced"].update(migProfile="all-1g.5gb"))
    assert "nodeGroups.balanced.migProfile" in line and "all-1g.10gb" in line


AUTOSCALER_GPU_LABEL = "k8s.amazonaws.com/accelerator"  # cluster-autoscaler cloudprovider/aws GPULabel


def test_mig_only_nodes_do_not_carry_the_autoscalers_gpu_label(plan):
    """kubernetes/autoscaler #8095: with that label and no nvidia.com/gpu the autoscaler deems the GPU unready."""
    labels = {
        n["labels"]["gpu-blueprints/node-group"]: n["labels"] for n in resources(plan, "aws:eks/nodeGroup:NodeGroup")
    }
    for group in MIG_GROUPS:
        assert AUTOSCALER_GPU_LABEL not in labels[group], group
        assert f"{TEMPLATE}label/{AUTOSCALER_GPU_LABEL}" not in _template_keys(plan, group), group
    assert AUTOSCALER_GPU_LABEL in labels["gpu"]  # whole GPUs keep it: the autoscaler waits for their plugin
    assert f"{TEMPLATE}label/{AUTOSCALER_GPU_LABEL}" in _template_keys(plan, "gpu")


def _template_keys(plan, group: str) -> set[str]:
    """Every tag key on the Auto Scaling group of a node group."""
    tags = resources(plan, "aws:autoscaling/tag:Tag")
    asg = next(
        t["autoscalingGroupName"]
        for t in tags
        if t["tag"]["key"] == f"{TEMPLATE}label/gpu-blueprints/node-group" and t["tag"]["value"] == group
    )
    return {t["tag"]["key"] for t in tags if t["autoscalingGroupName"] == asg}


def test_readiness_blocks_a_mig_only_node_group_with_the_autoscalers_gpu_label(plan):
    changed = []
    for r in plan.registrations:
        labels = r.inputs.get("labels") or {}
        if r.type == "aws:eks/nodeGroup:NodeGroup" and labels.get("gpu-blueprints/node-group") == "balanced":
            properties = struct_pb2.Struct()
            properties.update({**r.inputs, "labels": {**labels, AUTOSCALER_GPU_LABEL: "nvidia-h100"}})
            r = dataclasses.replace(r, properties=properties)
        changed.append(r)
    found = [f for f in readiness_sharing.check(changed) if f.check == "mig-node-unready-to-autoscaler"]
    assert [f.resource for f in found] == ["mig-mixed-balanced"] and found[0].level == "blocking"


def test_without_kueue_a_teams_namespace_quota_bounds_its_mig_and_shared_units(tmp_path):
    """ResourceQuota counts what pods request: a team's whole GPUs in each unit a GPU yields (at most)."""
    from blueprints.offline.plan import make_plan

    stack = yaml.safe_load((TEST_STACKS / "Pulumi.mig-mixed.yaml").read_text())
    stack["config"]["gpu-cluster-blueprints:cluster"]["kubernetes"]["queueing"] = {"enabled": False}
    (tmp_path / "Pulumi.noqueue.yaml").write_text(yaml.safe_dump(stack))
    plan = make_plan("noqueue", tmp_path)
    [quota] = [
        q
        for q in resources(plan, "kubernetes:core/v1:ResourceQuota")
        if q["metadata"]["namespace"] == "notebooks" and q["metadata"]["name"] == "gpus"
    ]
    gpus = STACK["kubernetes"]["teams"]["notebooks"]["gpus"]
    per_gpu: dict[str, int] = {}
    for group in MIG_GROUPS:
        for r, n in _wanted(plan, group).items():
            per_gpu[r] = max(per_gpu.get(r, 0), n // _shape(plan, group).gpu.count)
    assert quota["spec"]["hard"] == {
        f"requests.{GPU_RESOURCE}": str(gpus),  # the whole-GPU group: one per GPU
        **{f"requests.{r}": str(gpus * n) for r, n in per_gpu.items()},
    }
