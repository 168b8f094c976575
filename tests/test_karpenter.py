"""Issue #40: Karpenter as an EKS stack's autoscaling engine (autoscaling.engine: karpenter).

Each GPU group becomes one EC2NodeClass and one NodePool from the same resolved spec the Cluster Autoscaler's managed
node group is built from; the controller, its role and interruption queue come with it; consolidation never takes a
node from under a running gang; readiness warns where Kueue's ProvisioningRequest admission meets Karpenter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from blueprints.offline import readiness
from blueprints.offline.engine import Registration
from blueprints.stackconfig import ROOT
from components.kubernetes.karpenter import DO_NOT_DISRUPT
from components.kubernetes.nodes import GATE_TAINT, GPU_RESOURCE
from conftest import NODE_GROUP_TYPES, data_plan, group_label, resources

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
RESERVATION = "cr-0123456789abcdef0"


def two_groups(engine: str):
    """research-a100 with a second, spot inference group and a reserved training group pinned to a zone."""

    def change(cluster: dict) -> None:
        cluster["autoscaling"] = {"engine": engine}
        cluster["nodeGroups"] = {
            "gpu": {
                "gpuModel": "A100-80GB",
                "gpusPerNode": 8,
                "capacity": "reservation",
                "capacityReservationId": RESERVATION,
                "zone": "us-east-1b",
                "minNodes": 0,
                "desiredNodes": 0,
                "maxNodes": 3,
            },
            "infer": {
                "gpuModel": "L4",
                "gpusPerNode": 1,
                "rdma": False,
                "capacity": "spot",
                "maxNodes": 5,
                "labels": {"workload": "inference"},
            },
        }

    return change


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from blueprints.offline.plan import make_plan
    from conftest import shipped_cluster, write_stack

    folder = tmp_path_factory.mktemp("stacks")
    plans = {}
    for engine in ("cluster-autoscaler", "karpenter"):
        cluster = shipped_cluster("research-a100")
        two_groups(engine)(cluster)
        write_stack(folder, engine, cluster)
        plans[engine] = make_plan(engine, folder)
    return plans


def _pools(plan) -> dict[str, dict]:
    return {r["metadata"]["name"]: r["spec"] for r in resources(plan, NODE_POOL)}


def _classes(plan) -> dict[str, dict]:
    return {r["metadata"]["name"]: r["spec"] for r in resources(plan, NODE_CLASS)}


def test_each_gpu_group_is_one_node_pool_and_no_managed_node_group(both):
    karpenter = both["karpenter"]
    groups = sorted(karpenter.resolved.spec.node_groups)
    assert sorted(_pools(karpenter)) == sorted(_classes(karpenter)) == groups
    gpu_node_groups = [r for t in NODE_GROUP_TYPES for r in resources(karpenter, t) if group_label(r) != "system"]
    assert gpu_node_groups == []
    assert [r["name"] for r in resources(karpenter, "kubernetes:helm.sh/v3:Release") if r["name"] == "karpenter"]
    assert not [r for r in resources(karpenter, "kubernetes:helm.sh/v3:Release") if r["name"] == "cluster-autoscaler"]


def test_node_pool_carries_the_managed_groups_instance_type_labels_taints_and_gpu_limit(both):
    """The same resolved spec: what the Cluster Autoscaler's node group says, the NodePool says."""
    managed = {group_label(r): r for r in resources(both["cluster-autoscaler"], "aws:eks/nodeGroup:NodeGroup")}
    resolved = {g.name: g for g in both["karpenter"].resolved.node_groups}
    for name, pool in _pools(both["karpenter"]).items():
        group, template = managed[name], pool["template"]
        requirements = {r["key"]: r["values"] for r in template["spec"]["requirements"]}
        assert requirements["node.kubernetes.io/instance-type"] == [resolved[name].shape.instance_type]
        assert template["metadata"]["labels"] == group["labels"]
        effects = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
        managed_taints = [
            {"key": t["key"], "value": t.get("value", ""), "effect": effects[t["effect"]]} for t in group["taints"]
        ]
        both_taints = template["spec"].get("taints", []) + template["spec"].get("startupTaints", [])
        key = lambda t: json.dumps(t, sort_keys=True)  # noqa: E731
        assert sorted(map(key, both_taints)) == sorted(map(key, managed_taints))
        gpus = resolved[name].shape.gpu.count
        assert pool["limits"] == {GPU_RESOURCE: str(group["scalingConfig"]["maxSize"] * gpus)}


def test_capacity_type_zone_and_reservation_follow_the_group(both):
    pools, classes = _pools(both["karpenter"]), _classes(both["karpenter"])
    gpu = {r["key"]: r["values"] for r in pools["gpu"]["template"]["spec"]["requirements"]}
    infer = {r["key"]: r["values"] for r in pools["infer"]["template"]["spec"]["requirements"]}
    assert gpu["karpenter.sh/capacity-type"] == ["reserved"] and infer["karpenter.sh/capacity-type"] == ["spot"]
    assert gpu["topology.kubernetes.io/zone"] == ["us-east-1b"]
    assert classes["gpu"]["capacityReservationSelectorTerms"] == [{"id": RESERVATION}]
    assert "capacityReservationSelectorTerms" not in classes["infer"]


def test_the_acceptance_gate_is_a_startup_taint(both):
    spec = _pools(both["karpenter"])["gpu"]["template"]["spec"]
    assert GATE_TAINT in spec["startupTaints"] and GATE_TAINT not in spec.get("taints", [])


def test_gpu_pools_only_consolidate_when_empty_and_never_expire_or_drift_under_a_job(both):
    for pool in _pools(both["karpenter"]).values():
        disruption = pool["disruption"]
        assert disruption["consolidationPolicy"] == "WhenEmpty"
        assert {"nodes": "0", "reasons": ["Drifted", "Underutilized"]} in disruption["budgets"]
        assert pool["template"]["spec"]["expireAfter"] == "Never"
        assert "terminationGracePeriod" not in pool["template"]["spec"]  # it would override do-not-disrupt


def test_local_nvme_is_striped_where_the_managed_group_stripes_it(both):
    plan = both["karpenter"]
    for group in plan.resolved.node_groups:
        raid0 = plan.resolved.spec.storage.local_nvme_scratch and group.shape.local_nvme_gb > 0
        assert _classes(plan)[group.name].get("instanceStorePolicy") == ("RAID0" if raid0 else None)
    assert any(g.shape.local_nvme_gb for g in plan.resolved.node_groups)


def test_root_volumes_are_encrypted_with_the_stack_key_and_imds_v2_only(both):
    for spec in _classes(both["karpenter"]).values():
        (device,) = spec["blockDeviceMappings"]
        assert device["ebs"]["encrypted"] is True and device["ebs"]["kmsKeyID"].startswith("arn:")
        assert spec["metadataOptions"]["httpTokens"] == "required"


def test_cost_is_the_same_node_hours_either_way(both):
    karpenter, autoscaler = both["karpenter"].cost.to_json(), both["cluster-autoscaler"].cost.to_json()
    for key in ("hourlyUsd", "monthlyUsd", "worstCase", "byComponent", "budget", "unpriced"):
        assert karpenter.get(key) == autoscaler.get(key), key
    assert karpenter["byComponent"]["gpu-nodes"]["hourlyUsd"] > 0


def test_interruption_queue_is_encrypted_tls_only_and_fed_by_the_documented_rules():
    plan = data_plan("karpenter")
    (queue,) = resources(plan, "aws:sqs/queue:Queue")
    assert queue["sqsManagedSseEnabled"] is True and queue["messageRetentionSeconds"] == 300
    (policy,) = resources(plan, "aws:sqs/queuePolicy:QueuePolicy")
    statements = {s["Sid"]: s for s in json.loads(policy["policy"])["Statement"]}
    assert statements["DenyHTTP"]["Effect"] == "Deny"
    assert statements["DenyHTTP"]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    patterns = sorted(
        json.loads(r["eventPattern"])["detail-type"][0] for r in resources(plan, "aws:cloudwatch/eventRule:EventRule")
    )
    assert patterns == sorted(
        [
            "AWS Health Event",
            "EC2 Spot Instance Interruption Warning",
            "EC2 Instance Rebalance Recommendation",
            "EC2 Instance State-change Notification",
            "EC2 Capacity Reservation Instance Interruption Warning",
        ]
    )
    assert len(resources(plan, "aws:cloudwatch/eventTarget:EventTarget")) == 5
    assert [e["type"] for e in resources(plan, "aws:eks/accessEntry:AccessEntry")].count("EC2_LINUX") == 1


def test_the_controller_runs_on_the_system_group_with_its_queue():
    plan = data_plan("karpenter")
    (release,) = [r for r in resources(plan, "kubernetes:helm.sh/v3:Release") if r["name"] == "karpenter"]
    assert release["chart"] == "oci://public.ecr.aws/karpenter/karpenter" and release["version"] == "1.14.1"
    values = release["values"]
    assert values["nodeSelector"]["gpu-blueprints/node-group"] == "system"
    assert values["settings"]["clusterName"] == "karpenter" and values["settings"]["interruptionQueue"]


def test_the_example_gang_carries_do_not_disrupt():
    job = yaml.safe_load((ROOT / "examples/first-training-job/jobset.yaml").read_text())
    for replicated in job["spec"]["replicatedJobs"]:
        pod = replicated["template"]["spec"]["template"]
        assert pod["metadata"]["annotations"][DO_NOT_DISRUPT] == "true"


def _admission_check(controller: str) -> Registration:
    from google.protobuf import struct_pb2

    properties = struct_pb2.Struct()
    properties.update(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "AdmissionCheck",
            "metadata": {"name": "capacity"},
            "spec": {"controllerName": controller},
        }
    )
    return Registration(
        urn="urn:pulumi:karpenter::p::kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck::capacity",
        id="",
        type="kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck",
        name="capacity",
        parent="",
        provider="",
        custom=True,
        protect=False,
        dependencies=[],
        property_dependencies={},
        properties=properties,
    )


def _warnings(regs) -> list[readiness.Finding]:
    return [f for f in readiness.check(regs) if f.check == "provisioning-request-with-karpenter"]


def test_readiness_warns_where_provisioning_request_admission_meets_karpenter():
    karpenter = data_plan("karpenter").registrations
    (finding,) = _warnings([*karpenter, _admission_check("kueue.x-k8s.io/provisioning-request")])
    assert finding.level == readiness.WARNING and "kueue/issues/5133" in finding.message
    assert _warnings([*karpenter, _admission_check("example.com/other-check")]) == []
    assert _warnings(karpenter) == []


def test_no_warning_with_the_cluster_autoscaler():
    from conftest import shipped_plan

    regs = shipped_plan("research-a100").registrations
    assert _warnings([*regs, _admission_check("kueue.x-k8s.io/provisioning-request")]) == []


def test_test_stack_plans_with_exit_zero(capsys):
    from blueprints.cli import main

    assert main(["plan", "--stack", "karpenter", "--stacks-dir", str(Path(ROOT, "tests/data/stacks"))]) == 0


@pytest.mark.parametrize(
    "base, change, fragments",
    [
        (
            "research-a100-aliyun",
            lambda c: c.update(autoscaling={"engine": "karpenter"}),
            ("autoscaling.engine: karpenter does not run on Alibaba Cloud",),
        ),
        (
            "research-a100",
            lambda c: c.update(
                autoscaling={"engine": "karpenter"},
                nodeGroups={
                    "gpu": {
                        "gpuModel": "A100-80GB",
                        "gpusPerNode": 8,
                        "capacity": "reservation",
                        "capacityReservationId": "arn:aws:resource-groups:us-east-1:123456789012:group/odcrs",
                        "zone": "us-east-1c",
                    }
                },
            ),
            ("nodeGroups.gpu.capacityReservationId", "(cr-...)"),
        ),
        (
            "research-a100",
            lambda c: c.update(
                autoscaling={"engine": "karpenter"},
                nodeGroups={"gpu": {"gpuModel": "A100-80GB", "gpusPerNode": 8, "capacity": "capacity-block"}},
            ),
            ("capacityReservationId",),
        ),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, base, change, fragments):
    from blueprints.cli import main
    from conftest import shipped_cluster, write_stack

    cluster = shipped_cluster(base)
    change(cluster)
    write_stack(tmp_path, "bad", cluster)
    code = main(["plan", "--stack", "bad", "--stacks-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0]
    for fragment in fragments:
        assert fragment in err[0]


def test_the_plan_notes_what_a_node_pool_does_not_hold():
    from blueprints.resolver import resolve
    from blueprints.stackconfig import parse_cluster
    from conftest import shipped_cluster

    def notes(engine: str, min_nodes: int) -> list[str]:
        cluster = shipped_cluster("research-a100")
        cluster["autoscaling"] = {"engine": engine}
        cluster["nodeGroups"] = {"gpu": {"gpuModel": "A100-80GB", "gpusPerNode": 8, "minNodes": min_nodes}}
        return [n for g in resolve(parse_cluster(cluster, "test")).node_groups for n in g.notes]

    assert any("minNodes" in n and "Karpenter" in n for n in notes("karpenter", 1))
    assert not any("Karpenter" in n for n in notes("karpenter", 0) + notes("cluster-autoscaler", 1))
