"""Issue #39 (topology-aware gangs): RDMA groups whose nodes carry the cloud's network labels get a Kueue Topology
and a flavor that names it; the training example asks for a level of it and, from the plan's own objects, fits one
block; readiness says where a Topology cannot place anything."""

from __future__ import annotations

import json
from pathlib import Path

import jsonpatch
import pytest
import yaml

from blueprints.offline.plan import make_plan
from blueprints.offline.readiness_topology import gang_fits, topologies, topology_flavors
from catalog.topology import HOSTNAME
from conftest import shipped_plan

ROOT = Path(__file__).resolve().parent.parent
TEST_STACKS = ROOT / "tests" / "data" / "stacks"
EXAMPLE = ROOT / "examples" / "first-training-job"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


@pytest.fixture(scope="module")
def gangs():
    return make_plan("topology-gangs", TEST_STACKS)


def example_job() -> dict:
    """The example as its README applies it with the topology patch."""
    job = yaml.safe_load((EXAMPLE / "jobset.yaml").read_text())
    return jsonpatch.apply_patch(job, json.loads((EXAMPLE / "topology-patch.json").read_text()))


def test_an_rdma_group_with_labelled_nodes_gets_a_topology_its_flavor_names(gangs):
    assert gangs.exit_code == 0, [f.message for f in gangs.readiness_blocking()]
    assert topologies(gangs.registrations) == {
        "aws-network-3": [
            "topology.k8s.aws/network-node-layer-1",
            "topology.k8s.aws/network-node-layer-2",
            "topology.k8s.aws/network-node-layer-3",
            HOSTNAME,
        ]
    }
    flavors = topology_flavors(gangs.registrations)
    assert {name: spec["topologyName"] for name, spec in flavors.items()} == {"gpu-gpu": "aws-network-3"}
    assert flavors["gpu-gpu"]["nodeLabels"] == {"gpu-blueprints/node-group": "gpu"}


def test_the_example_asks_for_a_level_of_the_flavors_topology_and_its_gang_fits_one_block(gangs):
    job = example_job()
    replicated = job["spec"]["replicatedJobs"][0]
    template = replicated["template"]["spec"]["template"]
    level = template["metadata"]["annotations"]["kueue.x-k8s.io/podset-required-topology"]
    assert level in topologies(gangs.registrations)["aws-network-3"]
    pods = replicated["replicas"] * replicated["template"]["spec"]["parallelism"]
    [container] = template["spec"]["containers"]
    limits = container["resources"]["limits"]
    per_pod = {k: int(v) for k, v in limits.items() if k in ("nvidia.com/gpu", "vpc.amazonaws.com/efa")}
    assert pods == 2 and per_pod == {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 4}
    assert gang_fits(gangs.registrations, "gpu-gpu", pods, per_pod)
    # and a gang one node larger than the group does not (the block holds the group's four nodes at most)
    assert not gang_fits(gangs.registrations, "gpu-gpu", 5, per_pod)


def test_a_group_that_scales_from_zero_keeps_quota_admission_and_the_plan_says_why():
    plan = shipped_plan("research-a100")
    assert not topologies(plan.registrations)
    assert not topology_flavors(plan.registrations)
    assert any("no topology-aware queueing" in n and "minNodes is 0" in n for n in plan.resolved.notes)


def _variant(tmp_path: Path, change: dict) -> object:
    stack = yaml.safe_load((TEST_STACKS / "Pulumi.topology-gangs.yaml").read_text())
    cluster = stack["config"]["gpu-cluster-blueprints:cluster"]
    for key, value in change.items():
        node = cluster
        *path, last = key.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    (tmp_path / "Pulumi.v.yaml").write_text(yaml.safe_dump(stack))
    return make_plan("v", tmp_path)


def _checks(plan) -> dict[str, str]:
    return {f.check: f.level for f in plan.readiness}


def test_asking_for_topology_on_a_group_that_scales_from_zero_is_blocking(tmp_path):
    plan = _variant(
        tmp_path,
        {"nodeGroups.gpu.minNodes": 0, "nodeGroups.gpu.desiredNodes": 1, "kubernetes.queueing": {"topology": "rdma"}},
    )
    assert topology_flavors(plan.registrations)
    assert _checks(plan).get("topology-needs-ready-nodes") == "blocking"


ON_ACK = {
    "cloud": "alicloud",
    "region": "cn-hangzhou",
    "nodeGroups.gpu.gpuModel": "H20",
    "nodeGroups.gpu.capacity": "on-demand",
    "nodeGroups.gpu.capacityReservationId": None,
    "nodeGroups.gpu.zone": None,
}


def test_a_level_no_node_carries_is_blocking(tmp_path):
    # ACK labels only Lingjun nodes; an ECS eRDMA shape carries none of its levels
    plan = _variant(tmp_path, {**ON_ACK, "kubernetes.queueing": {"topology": "rdma"}})
    assert topologies(plan.registrations) == {
        "ack-lingjun": ["alibabacloud.com/point-of-delivery", "alibabacloud.com/asw-id", HOSTNAME]
    }
    assert _checks(plan).get("topology-level-unlabelled") == "blocking"
    # and auto, the default, gives such a group no Topology at all
    auto = _variant(tmp_path, ON_ACK)
    assert not topologies(auto.registrations) and "topology-level-unlabelled" not in _checks(auto)


def test_a_team_quota_larger_than_one_block_is_a_warning(tmp_path):
    plan = _variant(tmp_path, {"kubernetes.teams": {"research": {"gpus": 64}}})
    assert _checks(plan).get("gang-larger-than-block") == "warning"
    assert "gang-larger-than-block" not in _checks(make_plan("topology-gangs", TEST_STACKS))
