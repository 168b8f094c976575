"""Issue #39 (topology-aware gangs): RDMA groups whose nodes carry the cloud's network labels get a Kueue Topology
and a flavor that names it; on a group that scales from zero the flavor's jobs pass Kueue's Provisioning admission
check, so the Cluster Autoscaler adds their nodes before Kueue places them. The training example asks for a level of
it and, from the plan's own objects, fits one block on the shipped research stacks; readiness says where a Topology
cannot place anything."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonpatch
import pytest
import yaml
from google.protobuf import struct_pb2

from blueprints.offline.plan import make_plan
from blueprints.offline.readiness import Pod, _pools, admits
from blueprints.offline.readiness_queues import node_devices
from blueprints.offline.readiness_topology import (
    flavor_pool,
    gang_fits,
    provisioning_gaps,
    topologies,
    topology_flavors,
)
from catalog.topology import HOSTNAME
from components.kubernetes.nodes import STARTUP_TAINT_PREFIX
from conftest import shipped_plan

ROOT = Path(__file__).resolve().parent.parent
TEST_STACKS = ROOT / "tests" / "data" / "stacks"
EXAMPLE = ROOT / "examples" / "first-training-job"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


@pytest.fixture(scope="module")
def gangs():
    return make_plan("topology-gangs", TEST_STACKS)


def example_job(patch: str = "") -> dict:
    """The example as its README applies it, with one of its patches or none."""
    job = yaml.safe_load((EXAMPLE / "jobset.yaml").read_text())
    return jsonpatch.apply_patch(job, json.loads((EXAMPLE / patch).read_text())) if patch else job


def pod_set(job: dict) -> tuple[dict, int, dict[str, int]]:
    """The example's one pod set: its pod template, how many pods, and the devices each asks for."""
    replicated = job["spec"]["replicatedJobs"][0]
    template = replicated["template"]["spec"]["template"]
    pods = replicated["replicas"] * replicated["template"]["spec"]["parallelism"]
    [container] = template["spec"]["containers"]
    per_pod = {k: int(v) for k, v in container["resources"]["limits"].items() if k in DEVICES}
    return template, pods, per_pod


DEVICES = ("nvidia.com/gpu", "vpc.amazonaws.com/efa")
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"


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


def test_the_required_patch_asks_for_a_level_of_the_flavors_topology_and_its_gang_fits_one_block(gangs):
    template, pods, per_pod = pod_set(example_job("topology-patch.json"))
    annotations = template["metadata"]["annotations"]
    assert PREFERRED not in annotations and annotations["karpenter.sh/do-not-disrupt"] == "true"
    assert annotations[REQUIRED] in topologies(gangs.registrations)["aws-network-3"]
    assert pods == 2 and per_pod == {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 4}
    assert gang_fits(gangs.registrations, "gpu-gpu", pods, per_pod)
    # and a gang one node larger than the group does not (the block holds the group's four nodes at most)
    assert not gang_fits(gangs.registrations, "gpu-gpu", 5, per_pod)


@pytest.mark.parametrize("stack", ["research-a100", "research-a100-eu"])
def test_the_shipped_research_stack_admits_the_example_gang_in_one_block(stack):
    """From the plan's objects alone: the flavor the example's nodeSelector lands on names a Topology with the level
    the example asks for; the example's team queue runs the Provisioning check there (the group scales from zero,
    and the autoscaler serves ProvisioningRequests); and the gang's GPUs fit one block, the group's maxNodes x the
    node's GPUs."""
    plan = shipped_plan(stack)
    assert plan.exit_code == 0, [f.message for f in plan.readiness_blocking()]
    job = example_job()
    template, pods, per_pod = pod_set(job)
    regs = plan.registrations
    [(flavor, spec)] = [
        (name, spec)
        for name, spec in topology_flavors(regs).items()
        if spec["nodeLabels"].items() <= template["spec"]["nodeSelector"].items()
    ]
    level = template["metadata"]["annotations"][PREFERRED]
    levels = topologies(regs)[spec["topologyName"]]
    assert level in levels and levels[-1] == HOSTNAME
    assert provisioning_gaps(regs, flavor) == []
    # Kueue sets its Provisioning check up only if the ProvisioningRequest API is served when it starts
    [kueue] = [r for r in regs if r.type.startswith("kubernetes:helm.sh/") and r.inputs["chart"].endswith("/kueue")]
    assert any(d.endswith("provisioningrequest-crd") for d in kueue.dependencies)
    queues = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in regs if r.type.endswith(":ClusterQueue")}
    queue = queues[job["metadata"]["namespace"]]
    assert {"name": "gpu-gangs", "onFlavors": [flavor]} in queue["admissionChecksStrategy"]["admissionChecks"]
    pool = flavor_pool(spec, _pools(regs))
    assert pool.min_nodes == 0  # it scales from zero: the ProvisioningRequest is what brings its nodes
    gpus_per_node = node_devices(pool)["nvidia.com/gpu"]
    assert pods * per_pod["nvidia.com/gpu"] <= pool.max_nodes * gpus_per_node  # 2 x 8 <= 2 x 8
    assert gang_fits(regs, flavor, pods, per_pod)
    assert not gang_fits(regs, flavor, pool.max_nodes + 1, per_pod)


def test_the_alibaba_research_stack_keeps_quota_admission_and_the_plan_says_why():
    plan = shipped_plan("research-a100-aliyun")
    assert not topologies(plan.registrations) and not topology_flavors(plan.registrations)
    assert any(
        "no topology-aware queueing" in n and "Lingjun nodes only" in n and "ecs.gn7e" in n for n in plan.resolved.notes
    )
    # without a Topology the example drops its topology request (no-topology-patch.json)
    template, _, _ = pod_set(example_job("no-topology-patch.json"))
    assert not any(k.startswith("kueue.x-k8s.io/podset-") for k in template["metadata"]["annotations"])


def test_without_the_autoscaler_serving_provisioning_requests_a_flavor_at_zero_nodes_is_not_provisioned():
    regs = shipped_plan("research-a100").registrations
    without = [
        r
        for r in regs
        if not (r.type.startswith("kubernetes:helm.sh/") and r.inputs.get("chart") == "cluster-autoscaler")
    ]
    assert provisioning_gaps(without, "gpu-gpu") == ["no Cluster Autoscaler runs with --enable-provisioning-requests"]
    no_crd = [r for r in regs if not r.type.endswith(":CustomResourceDefinition")]
    assert any("CRD" in gap for gap in provisioning_gaps(no_crd, "gpu-gpu"))


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


def test_a_topology_group_that_scales_from_zero_without_provisioning_is_blocking(tmp_path):
    at_zero = {"nodeGroups.gpu.minNodes": 0, "nodeGroups.gpu.desiredNodes": 1}
    # the Cluster Autoscaler adds the gang's nodes through the Provisioning admission check
    plan = _variant(tmp_path, at_zero)
    assert topology_flavors(plan.registrations) and "topology-needs-ready-nodes" not in _checks(plan)
    # with no autoscaler, nothing does: auto gives no Topology, and rdma's is blocking
    assert not topology_flavors(_variant(tmp_path, {**at_zero, "autoscaling": {"enabled": False}}).registrations)
    plan = _variant(
        tmp_path, {**at_zero, "autoscaling": {"enabled": False}, "kubernetes.queueing": {"topology": "rdma"}}
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


@pytest.mark.parametrize("stack", ["research-a100", "research-a100-eu", "enterprise-h100"])
def test_the_example_pod_fits_its_group_as_the_autoscaler_sees_it_from_zero(stack):
    """The autoscaler scales an empty group for a pending pod (or a ProvisioningRequest's pod template) only if the
    pod fits the group's node as the autoscaler builds it: the labels and taints the node group declares, not labels
    a controller adds once a node runs (the acceptance check's verdict label). The acceptance gate is a startup taint,
    which the autoscaler discounts and the scheduler honours, so jobs need no selector on the verdict."""
    template, _, per_pod = pod_set(example_job())
    spec = template["spec"]
    # EKS runs the ExtendedResourceToleration admission plugin (since 1.19, aws/containers-roadmap#739): a pod asking
    # for an extended resource tolerates the NoSchedule taint of that name (kubernetes
    # plugin/pkg/admission/extendedresourcetoleration/admission.go: operator Exists, effect NoSchedule).
    added = [{"key": name, "operator": "Exists", "effect": "NoSchedule"} for name in per_pod]
    pod = Pod("first-training-job", "JobSet", spec["nodeSelector"], [*(spec.get("tolerations") or []), *added])
    pools = _pools(shipped_plan(stack).registrations)
    [pool] = [p for p in pools if p.labels.get("gpu-blueprints/node-group") == "gpu"]
    startup = tuple(t for t in pool.taints if not t[0].startswith(STARTUP_TAINT_PREFIX))
    assert admits(replace(pool, taints=startup), pod), (spec["nodeSelector"], dict(pool.labels))


def test_a_provisioning_check_whose_managed_resources_the_flavors_pods_never_request_is_a_gap(tmp_path):
    """Kueue's Provisioning controller asks for nodes only for pod sets whose containers request one of the
    config's managedResources; with none, it marks the check Ready and creates no ProvisioningRequest (kueue v0.19.2
    pkg/controller/admissionchecks/provisioning/controller.go reqIsNeeded, podUses). MIG-mixed pods request
    nvidia.com/mig-<profile>, not nvidia.com/gpu: a config managing nvidia.com/gpu alone brings them no nodes."""
    regs = _mig_topology_plan(tmp_path).registrations
    assert provisioning_gaps(regs, "gpu-gpu") == []
    gpu_only = []
    for r in regs:
        if r.inputs.get("kind") == "ProvisioningRequestConfig":
            properties = struct_pb2.Struct()
            spec = {**r.inputs["spec"], "managedResources": ["nvidia.com/gpu"]}
            properties.update({**r.inputs, "spec": spec})
            r = replace(r, properties=properties)
        gpu_only.append(r)
    [gap] = provisioning_gaps(gpu_only, "gpu-gpu")
    assert "managedResources" in gap and "nvidia.com/mig-1g.10gb" in gap and "reqIsNeeded" in gap


def _mig_topology_plan(tmp_path: Path):
    """topology-gangs with its group's H100s in MIG slices (mixed strategy) at zero nodes."""
    stack = yaml.safe_load((TEST_STACKS / "Pulumi.topology-gangs.yaml").read_text())
    group = stack["config"]["gpu-cluster-blueprints:cluster"]["nodeGroups"]["gpu"]
    group.update(gpuModel="H100", migProfile="all-balanced", capacity="on-demand", minNodes=0, desiredNodes=0)
    for key in ("capacityReservationId", "zone"):
        group.pop(key)
    (tmp_path / "Pulumi.mig-topology.yaml").write_text(yaml.safe_dump(stack))
    return make_plan("mig-topology", tmp_path)


def test_a_mig_mixed_topology_group_from_zero_has_its_slices_managed_by_the_provisioning_check(tmp_path):
    """MIG mixed pods request nvidia.com/mig-<profile>, never nvidia.com/gpu: the Provisioning check's
    managedResources must name the slices of the flavors it runs on, or Kueue creates no ProvisioningRequest for
    them (kueue v0.19.2 provisioning controller.go reqIsNeeded) and a gang on a group at zero never gets nodes."""
    plan = _mig_topology_plan(tmp_path)
    [config] = [r for r in plan.registrations if r.inputs.get("kind") == "ProvisioningRequestConfig"]
    assert "nvidia.com/mig-1g.10gb" in config.inputs["spec"]["managedResources"]
    assert provisioning_gaps(plan.registrations, "gpu-gpu") == []
    assert "topology-needs-ready-nodes" not in [f.check for f in plan.readiness_blocking()]
