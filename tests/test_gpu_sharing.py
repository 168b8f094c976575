"""Issue #39 (GPU sharing that still autoscales): a node group's `sharing` becomes the GPU Operator's per-group
device-plugin configuration, chosen by the group's node label; the autoscaler's scale-from-zero template, Kueue's
quotas and the plan's cost are in the shared units the device plugin advertises; bad input is one line, exit 2."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from google.protobuf import struct_pb2

from blueprints.cli import main
from blueprints.offline import readiness_sharing
from components.kubernetes.nodes import (
    ACK_DEVICE_PLUGIN_OFF,
    ACK_GPU_SCHEDULE_LABEL,
    DEVICE_PLUGIN_CONFIG_LABEL,
    GPU_RESOURCE,
)
from conftest import data_plan, resources

ROOT = Path(__file__).resolve().parent.parent
TEST_STACKS = ROOT / "tests" / "data" / "stacks"
TEMPLATE = "k8s.io/cluster-autoscaler/node-template/"
GROUP, REPLICAS = "notebooks", 4


@pytest.fixture(scope="module")
def plan():
    return data_plan("time-slicing")


def _group(plan):
    return next(g for g in plan.resolved.node_groups if g.name == GROUP)


def test_the_time_slicing_stack_plans_with_exit_0(plan):
    assert plan.exit_code == 0, [f.message for f in plan.readiness_blocking()]


def test_the_autoscaler_template_advertises_the_shared_count_and_the_label_that_selects_the_config(plan):
    group = _group(plan)
    group_tags = {
        t["tag"]["key"]: t["tag"]["value"]
        for t in resources(plan, "aws:autoscaling/tag:Tag")
        if t["tag"]["key"].startswith(TEMPLATE) and t["autoscalingGroupName"] == _asg_of(plan)
    }
    assert group_tags[f"{TEMPLATE}resources/{GPU_RESOURCE}"] == str(group.shape.gpu.count * REPLICAS)
    assert group_tags[f"{TEMPLATE}label/{DEVICE_PLUGIN_CONFIG_LABEL}"] == GROUP
    [node_group] = [
        n
        for n in resources(plan, "aws:eks/nodeGroup:NodeGroup")
        if n["labels"].get("gpu-blueprints/node-group") == GROUP
    ]
    assert node_group["labels"][DEVICE_PLUGIN_CONFIG_LABEL] == GROUP


def _asg_of(plan) -> str:
    """The Auto Scaling group name the notebooks group's template tags are on."""
    for t in resources(plan, "aws:autoscaling/tag:Tag"):
        if t["tag"]["key"] == f"{TEMPLATE}label/gpu-blueprints/node-group" and t["tag"]["value"] == GROUP:
            return t["autoscalingGroupName"]
    raise AssertionError("no node-template tag names the notebooks group")


def test_the_operator_config_the_label_names_shares_each_gpu_replicas_times(plan):
    [release] = [r for r in resources(plan, "kubernetes:helm.sh/v3:Release") if r["name"] == "gpu-operator"]
    config = release["values"]["devicePlugin"]["config"]
    assert config["create"] is True and config["name"]
    entry = yaml.safe_load(config["data"][GROUP])
    assert entry["version"] == "v1"
    [shared] = entry["sharing"]["timeSlicing"]["resources"]
    assert shared == {"name": GPU_RESOURCE, "replicas": REPLICAS}
    # every other node keeps whole GPUs
    assert yaml.safe_load(config["data"][config["default"]]) == {"version": "v1"}


def test_kueue_quotas_are_in_shared_units(plan):
    group = _group(plan)
    team_gpus = plan.resolved.spec.kubernetes.teams[GROUP].gpus
    [queue] = [
        q for q in resources(plan, "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue") if q["metadata"]["name"] == GROUP
    ]
    [flavor] = [f for g in queue["spec"]["resourceGroups"] for f in g["flavors"] if f["name"] == f"gpu-{GROUP}"]
    quota = {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
    assert quota[GPU_RESOURCE] == team_gpus * REPLICAS
    # the CPU of the nodes those shared GPUs come with: team_gpus x replicas slices over slices per node
    nodes = -(-team_gpus * REPLICAS // (group.shape.gpu.count * REPLICAS))
    assert quota["cpu"] == nodes * group.shape.vcpus


def test_the_cost_section_shows_the_price_of_one_shared_slice(plan):
    group = _group(plan)
    [rate] = [r for r in plan.cost.rates if r["nodeGroup"] == GROUP]
    assert rate["sharing"]["slicesPerNode"] == group.shape.gpu.count * REPLICAS
    assert rate["sharing"]["usdPerSliceHour"] == round(group.usd_per_hour / (group.shape.gpu.count * REPLICAS), 4)
    assert all("sharing" not in r for r in plan.cost.rates if r["nodeGroup"] != GROUP)


def _bad(tmp_path, capsys, change):
    stack = yaml.safe_load((TEST_STACKS / "Pulumi.time-slicing.yaml").read_text())
    cluster = stack["config"]["gpu-cluster-blueprints:cluster"]
    change(cluster)
    (tmp_path / "Pulumi.bad.yaml").write_text(yaml.safe_dump(stack))
    code = main(["plan", "--stack", "bad", "--stacks-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0], err
    return err[0]


def test_fewer_than_two_replicas_is_one_line_exit_2(tmp_path, capsys):
    line = _bad(tmp_path, capsys, lambda c: c["nodeGroups"][GROUP]["sharing"].update(replicas=1))
    assert "nodeGroups.notebooks.sharing.replicas" in line and "2" in line


def test_mps_on_mig_slices_is_one_line_exit_2(tmp_path, capsys):
    def change(c):
        c["nodeGroups"][GROUP] = {
            "gpuModel": "A100-80GB",
            "gpusPerNode": 8,
            "migProfile": "all-1g.10gb",
            "sharing": {"strategy": "mps", "replicas": 2},
        }

    assert "mps" in _bad(tmp_path, capsys, change)


def test_sharing_on_an_ack_pool_at_zero_is_one_line_exit_2(tmp_path, capsys):
    """Alibaba Cloud's autoscaler builds an empty pool's node from its instance type: whole GPUs only."""

    def change(c):
        c.update(cloud="alicloud", region="cn-hangzhou")
        c["nodeGroups"][GROUP]["gpuModel"] = "A10"

    line = _bad(tmp_path, capsys, change)
    assert "nodeGroups.notebooks.sharing" in line and "minNodes" in line


def test_mig_on_an_ack_pool_at_zero_is_one_line_exit_2(tmp_path, capsys):
    def change(c):
        c.update(cloud="alicloud", region="cn-hangzhou")
        c["nodeGroups"][GROUP] = {"gpuModel": "A100-80GB", "gpusPerNode": 1, "minNodes": 0, "desiredNodes": 0}
        c["nodeGroups"][GROUP]["migProfile"] = "all-1g.10gb"

    line = _bad(tmp_path, capsys, change)
    assert "nodeGroups.notebooks.migProfile" in line and "minNodes" in line


def test_ack_pools_share_gpus_through_the_gpu_operator_and_plan_with_exit_0():
    """ACK's own device plugin is off on our GPU pools, so the GPU Operator's per-group config shares them there too;
    the pool keeps a node, from which the autoscaler reads the shared count."""
    plan = data_plan("time-slicing-aliyun")
    assert plan.exit_code == 0, [f.message for f in plan.readiness_blocking()]
    [pool] = [
        p
        for p in resources(plan, "alicloud:cs/nodePool:NodePool")
        if any(label["key"] == DEVICE_PLUGIN_CONFIG_LABEL for label in p.get("labels") or [])
    ]
    labels = {label["key"]: label["value"] for label in pool["labels"]}
    assert labels[DEVICE_PLUGIN_CONFIG_LABEL] == GROUP and labels[ACK_GPU_SCHEDULE_LABEL] == ACK_DEVICE_PLUGIN_OFF
    [release] = [r for r in resources(plan, "kubernetes:helm.sh/v3:Release") if r["name"] == "gpu-operator"]
    entry = yaml.safe_load(release["values"]["devicePlugin"]["config"]["data"][GROUP])
    assert entry["sharing"]["timeSlicing"]["resources"] == [{"name": GPU_RESOURCE, "replicas": REPLICAS}]


def test_readiness_blocks_a_template_that_advertises_whole_gpus_for_a_shared_group(plan):
    assert readiness_sharing.check(plan.registrations) == []
    key = f"{TEMPLATE}resources/{GPU_RESOURCE}"
    asg = _asg_of(plan)
    whole = []
    for r in plan.registrations:
        tag = r.inputs.get("tag") or {}
        if r.type == "aws:autoscaling/tag:Tag" and tag.get("key") == key and r.inputs["autoscalingGroupName"] == asg:
            properties = struct_pb2.Struct()
            properties.update({**r.inputs, "tag": {**tag, "value": str(_group(plan).shape.gpu.count)}})
            r = dataclasses.replace(r, properties=properties)
        whole.append(r)
    [finding] = readiness_sharing.check(whole)
    assert finding.check == "shared-gpus-from-zero" and finding.level == "blocking"


@pytest.mark.parametrize("field", ["sharing", "migProfile"])
def test_shared_or_mig_gpus_under_karpenter_are_one_line_exit_2(tmp_path, capsys, field):
    """Karpenter sizes nodes from the instance type's whole GPUs: it cannot see shared counts or MIG resources."""

    def change(c):
        c["autoscaling"] = {"engine": "karpenter"}
        if field == "migProfile":
            c["nodeGroups"][GROUP] = {"gpuModel": "H100", "gpusPerNode": 1, "rdma": False, "migProfile": "all-1g.10gb"}

    line = _bad(tmp_path, capsys, change)
    assert f"nodeGroups.notebooks.{field}" in line and "Karpenter" in line


def test_ai_conformance_counts_the_operators_per_group_time_slicing_as_gpu_sharing(plan):
    items = {i["id"]: i for i in plan.to_json()["aiConformance"]["items"]}
    assert items["gpu_sharing"]["status"] == "met" and GROUP in items["gpu_sharing"]["detail"]
