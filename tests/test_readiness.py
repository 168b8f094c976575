"""The offline readiness check: each gap it exists to catch, on registrations as the program sent them
(edited the way a broken program would have sent them), and through the CLI's exit code."""

from __future__ import annotations

import dataclasses

import pytest
from google.protobuf import json_format, struct_pb2

from blueprints.offline.readiness import BLOCKING, WARNING, check
from conftest import run_cli, shipped_cluster, shipped_plan, write_stack


def without(plan, drop) -> list:
    return [r for r in plan.registrations if not drop(r)]


def edited(registration, change):
    """The registration as if the program had sent other inputs."""
    inputs = json_format.MessageToDict(registration.properties)
    change(inputs)
    properties = struct_pb2.Struct()
    json_format.ParseDict(inputs, properties)
    return dataclasses.replace(registration, properties=properties)


def gaps(findings, check_name, level=BLOCKING):
    return [f for f in findings if f.check == check_name and f.level == level]


def is_system_group(r) -> bool:
    return r.name.endswith("-system")  # the system node group / pool, its launch template and component


@pytest.mark.parametrize("stack", ["research-a100", "enterprise-aliyun"])
def test_shipped_stacks_have_no_blocking_gap(stack):
    assert [f for f in shipped_plan(stack).readiness if f.level == BLOCKING] == []


@pytest.mark.parametrize("stack", ["research-a100", "startup-t4-aliyun"])
def test_gpu_only_tainted_topology_fails(stack):
    """The topology every stack shipped before the system group: one tainted GPU group, min 0."""
    findings = check(without(shipped_plan(stack), is_system_group))
    [capacity] = gaps(findings, "system-capacity")
    assert "nowhere to run" in capacity.message and "systemNodes" in capacity.fix
    stranded = {f.resource for f in gaps(findings, "pod-placement")}
    if stack == "research-a100":
        assert {
            "eks add-on Deployment coredns",
            "chart gpu-operator Deployment gpu-operator",
            "chart gpu-operator Deployment gpu-operator-node-feature-discovery-master",
            "chart cluster-autoscaler Deployment cluster-autoscaler-aws-cluster-autoscaler",
            "add-on aws-ebs-csi-driver Deployment ebs-csi-controller",
        } <= stranded
    else:
        assert "chart gpu-operator Deployment gpu-operator" in stranded


def test_a_single_system_node_is_a_warning():
    plan = shipped_plan("startup-t4")

    def one_node(inputs):
        inputs["scalingConfig"]["minSize"] = 1

    regs = [
        edited(r, one_node) if r.type == "aws:eks/nodeGroup:NodeGroup" and is_system_group(r) else r
        for r in plan.registrations
    ]
    [warning] = gaps(check(regs), "system-capacity", WARNING)
    assert "systemNodes.minNodes: 2" in warning.fix


def test_missing_claim_and_missing_volume_are_blocking():
    plan = shipped_plan("research-a100")
    [no_claim] = gaps(
        check(without(plan, lambda r: r.type == "kubernetes:core/v1:PersistentVolumeClaim")), "file-system-claim"
    )
    assert "no claim bound" in no_claim.message and no_claim.resource == "research-a100-lustre"
    [no_volume] = gaps(
        check(without(plan, lambda r: r.type.startswith("kubernetes:core/v1:Persistent"))), "file-system-claim"
    )
    assert "no PersistentVolume" in no_volume.message


def test_role_without_its_service_account_is_blocking():
    plan = shipped_plan("research-a100")
    trainer = lambda r: r.type == "kubernetes:core/v1:ServiceAccount" and r.inputs["metadata"]["name"] == "trainer"  # noqa: E731
    gaps_ = gaps(check(without(plan, trainer)), "workload-identity")
    assert sorted(g.resource for g in gaps_) == ["research-a100-trainer", "research-a100-trainer-research"]
    assert any("training/trainer" in g.message for g in gaps_) and any("research/trainer" in g.message for g in gaps_)

    def unannotated(inputs):
        inputs["metadata"]["annotations"] = {}

    regs = [
        dataclasses.replace(edited(r, unannotated), dependencies=[]) if trainer(r) else r for r in plan.registrations
    ]
    assert gaps(check(regs), "workload-identity")
    assert all("is not annotated" in g.message for g in gaps(check(regs), "workload-identity"))


def test_rrsa_role_without_its_service_account_is_blocking():
    plan = shipped_plan("enterprise-aliyun")
    found = gaps(
        check(
            without(
                plan,
                lambda r: r.type == "kubernetes:core/v1:ServiceAccount" and r.inputs["metadata"]["name"] == "trainer",
            )
        ),
        "workload-identity",
    )
    assert "enterprise-aliyun-trainer" in [g.resource for g in found]


def test_gpu_group_without_node_template_tags_cannot_scale_from_zero():
    plan = shipped_plan("research-a100")
    [gap] = gaps(check(without(plan, lambda r: r.type == "aws:autoscaling/tag:Tag")), "scale-from-zero")
    assert "resources/nvidia.com/gpu" in gap.message and "resources/vpc.amazonaws.com/efa" in gap.message
    assert "taint/nvidia.com/gpu" in gap.message


def test_gpu_agent_that_selects_no_gpu_node_is_blocking(plan_variant):
    """NVIDIA's device plugin chart requires NFD/GFD labels; without NFD it needs nvidia.com/gpu.present."""
    plan = plan_variant("startup-t4", lambda c: c.setdefault("kubernetes", {}).update(gpuStack="device-plugin"))
    assert not plan.readiness_blocking()

    def unlabelled(inputs):
        inputs["labels"].pop("nvidia.com/gpu.present")

    regs = [
        edited(r, unlabelled) if r.type == "aws:eks/nodeGroup:NodeGroup" and not is_system_group(r) else r
        for r in plan.registrations
    ]
    messages = [f.message for f in gaps(check(regs), "gpu-agents")]
    assert any("nvidia-device-plugin selects no node" in m for m in messages)
    assert any("dcgm-exporter selects no node" in m for m in messages)


def test_agents_follow_a_taint_the_stack_adds_and_a_foreign_taint_is_caught(plan_variant):
    def dedicated(c):
        c.setdefault("nodeGroups", {}).setdefault("gpu", {})["taints"] = [
            {"key": "nvidia.com/gpu", "value": "present"},
            {"key": "dedicated", "value": "training"},
        ]

    plan = plan_variant("research-a100", dedicated)
    assert not plan.readiness_blocking()  # the platform's tolerations follow the spec's taints

    def foreign(inputs):
        inputs["taints"].append({"key": "team", "value": "x", "effect": "NO_EXECUTE"})

    regs = [
        edited(r, foreign) if r.type == "aws:eks/nodeGroup:NodeGroup" and not is_system_group(r) else r
        for r in plan.registrations
    ]
    assert any("team=x:NoExecute" in f.message for f in gaps(check(regs), "gpu-agents"))


def test_chart_version_without_recorded_facts_is_a_warning():
    plan = shipped_plan("startup-t4")

    def bumped(inputs):
        inputs["version"] = "99.0.0"

    regs = [
        edited(r, bumped) if r.type == "kubernetes:helm.sh/v3:Release" and r.inputs["name"] == "gpu-operator" else r
        for r in plan.registrations
    ]
    [warning] = gaps(check(regs), "chart-facts", WARNING)
    assert "gpu-operator 99.0.0" in warning.message


@pytest.mark.parametrize(
    "stack, expected", [("startup-t4", "no autoscaler is installed"), ("startup-t4-aliyun", "its auto scaling is off")]
)
def test_scale_to_zero_without_autoscaling_fails_the_plan(tmp_path, stack, expected):
    cluster = shipped_cluster(stack)
    cluster["autoscaling"] = {"enabled": False}
    write_stack(tmp_path, "no-autoscaler", cluster)
    run = run_cli("plan", "--stack", "no-autoscaler", "--stacks-dir", str(tmp_path), "--policy-pack", "none")
    assert run.returncode == 1, run.stderr
    assert "[blocking] scale-from-zero" in run.stdout and expected in run.stdout


def test_readiness_is_in_the_json_plan_and_decides_the_exit_code(plan_variant):
    data = plan_variant("startup-t4", lambda c: c.update(autoscaling={"enabled": False})).to_json()
    assert not [f for f in data["findings"] if f["enforcementLevel"] == "mandatory"]  # the packs pass...
    assert [f["check"] for f in data["readiness"] if f["level"] == "blocking"] == ["scale-from-zero"]
    assert data["exitCode"] == 1  # ...the readiness gap alone fails the plan
    assert shipped_plan("startup-t4").to_json()["exitCode"] == 0
