"""Issue #39 item 2: `nodeGroups.<g>.devices: dra` hands a group's GPUs out through NVIDIA's DRA driver (pinned chart,
its kubelet plugin on the group's nodes only, the device plugin kept off them), a ResourceClaimTemplate per DRA group
in each team namespace, Kueue quotas that count the claimed devices; DRA where a cloud's minor does not support it is
one line, exit 2; a DRA group its autoscaler cannot grow from zero is a blocking readiness finding."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from google.protobuf import struct_pb2

from blueprints.cli import main
from blueprints.offline import readiness_devices
from blueprints.offline.plan import make_plan
from blueprints.spec import LABEL_KEY
from components.kubernetes.nodes import (
    DEVICE_PLUGIN_DEPLOY_LABEL,
    DRA_EFA_QUOTA,
    DRA_GPU_QUOTA,
    EFA_PRESENT_LABEL,
    EFA_RESOURCE,
    FABRIC_DEVICES_LABEL,
    GPU_DEVICES_LABEL,
    GPU_RESOURCE,
)
from conftest import data_plan, resources
from kube_schema import validate_builtin

ROOT = Path(__file__).resolve().parent.parent
TEST_STACKS = ROOT / "tests" / "data" / "stacks"
STACK = "dra-devices"
GROUP, PLUGIN_GROUP = "gpu", "notebooks"
TEMPLATE = "k8s.io/cluster-autoscaler/node-template/"


@pytest.fixture(scope="module")
def plan():
    return data_plan(STACK)


def _releases(plan) -> set[str]:
    return {r["name"] for r in resources(plan, "kubernetes:helm.sh/v3:Release")}


def _release(plan, name):
    [values] = [r["values"] for r in resources(plan, "kubernetes:helm.sh/v3:Release") if r["name"] == name]
    return values


def _node_group(plan, group):
    [ng] = [
        n for n in resources(plan, "aws:eks/nodeGroup:NodeGroup") if n["labels"]["gpu-blueprints/node-group"] == group
    ]
    return ng


def test_the_dra_stack_plans_with_exit_0_and_says_why_the_group_uses_dra(plan):
    assert plan.exit_code == 0, [f.message for f in plan.readiness_blocking()]
    note = next(
        n
        for n in plan.resolved.notes
        if n.startswith(f"{GROUP}: devices dra (Kubernetes 1.35; aws supports it from 1.34")
    )
    assert "ResourceClaimTemplate" in note and "its EFA devices are claimed in the same claim (aws-dranet)" in note


def test_below_1_35_a_dra_groups_efa_stays_on_its_device_plugin_and_the_plan_says_why(tmp_path):
    stack = yaml.safe_load((TEST_STACKS / f"Pulumi.{STACK}.yaml").read_text())
    stack["config"]["gpu-cluster-blueprints:cluster"]["kubernetesVersion"] = "1.34"
    (tmp_path / "Pulumi.v134.yaml").write_text(yaml.safe_dump(stack))
    plan = make_plan("v134", tmp_path)
    assert plan.exit_code == 0, [f.message for f in plan.readiness_blocking()]
    assert any(
        "EFA stays on its device plugin (its DRA driver needs Kubernetes 1.35)" in n for n in plan.resolved.notes
    )
    labels = _node_group(plan, GROUP)["labels"]
    assert labels[EFA_PRESENT_LABEL] == "true" and FABRIC_DEVICES_LABEL not in labels
    assert "aws-dranet" not in _releases(plan) and "aws-efa-k8s-device-plugin" in _releases(plan)
    [request] = resources(plan, "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")[0]["spec"]["spec"]["devices"][
        "requests"
    ]
    assert request["exactly"]["deviceClassName"] == "gpu.nvidia.com"


def test_the_driver_runs_on_dra_nodes_only_and_the_device_plugin_stays_off_them(plan):
    values = _release(plan, "dra-driver-nvidia-gpu")
    assert values["kubeletPlugin"]["nodeSelector"] == {GPU_DEVICES_LABEL: "dra"}
    assert values["gpuResourcesEnabledOverride"] is True  # the chart refuses GPU allocation without it
    assert values["resources"] == {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}}
    dra, plugin = _node_group(plan, GROUP)["labels"], _node_group(plan, PLUGIN_GROUP)["labels"]
    assert dra[GPU_DEVICES_LABEL] == "dra" and dra[DEVICE_PLUGIN_DEPLOY_LABEL] == "false"
    assert GPU_DEVICES_LABEL not in plugin and DEVICE_PLUGIN_DEPLOY_LABEL not in plugin
    assert _release(plan, "gpu-operator")["devicePlugin"]["enabled"] is True  # the notebooks group still uses it
    assert _release(plan, "cluster-autoscaler")["extraArgs"]["enable-dynamic-resource-allocation"] == "true"


def test_on_1_35_the_dra_groups_efa_is_claimed_through_dranet_and_the_efa_plugin_stays_off(plan):
    assert _release(plan, "aws-dranet")["nodeSelector"] == {FABRIC_DEVICES_LABEL: "dra"}
    labels = _node_group(plan, GROUP)["labels"]
    assert labels[FABRIC_DEVICES_LABEL] == "dra" and EFA_PRESENT_LABEL not in labels  # the EFA plugin selects that
    assert "aws-efa-k8s-device-plugin" not in _releases(plan)  # no other group has EFA


def test_each_team_namespace_gets_a_claim_template_of_a_nodes_gpus_valid_for_the_minor(plan):
    templates = resources(plan, "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert {t["metadata"]["namespace"] for t in templates} == set(plan.resolved.spec.kubernetes.teams)
    shape = next(g for g in plan.resolved.node_groups if g.name == GROUP).shape
    for t in templates:
        requests = {r["name"]: r["exactly"] for r in t["spec"]["spec"]["devices"]["requests"]}
        assert requests == {
            "gpus": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": shape.gpu.count},
            "efa": {
                "deviceClassName": "efa.networking.k8s.aws",
                "allocationMode": "ExactCount",
                "count": shape.rdma.interfaces,
            },
        }
        obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", **t}
        assert validate_builtin(obj, plan.resolved.spec.kubernetes_version).schema_failures == []


def test_kueue_counts_claimed_gpus_on_the_dra_flavor_only(plan):
    config = yaml.safe_load(_release(plan, "kueue")["managerConfig"]["controllerManagerConfigYaml"])
    assert config["resources"]["deviceClassMappings"] == [
        {"name": DRA_GPU_QUOTA, "deviceClassNames": ["gpu.nvidia.com"]},
        {"name": DRA_EFA_QUOTA, "deviceClassNames": ["efa.networking.k8s.aws"]},
    ]
    # kueue v0.19.2 pkg/config/validation.go validateDeviceClassMappings: each name must be a label key
    assert all(LABEL_KEY.match(m["name"]) for m in config["resources"]["deviceClassMappings"])
    for queue in (q for q in resources(plan, "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")):
        [group] = queue["spec"]["resourceGroups"]
        assert DRA_GPU_QUOTA in group["coveredResources"]
        quota = {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}
        team = plan.resolved.spec.kubernetes.teams[queue["metadata"]["name"]].gpus
        assert quota[f"gpu-{GROUP}"][GPU_RESOURCE] == 0 and quota[f"gpu-{GROUP}"][DRA_GPU_QUOTA] == team
        assert quota[f"gpu-{PLUGIN_GROUP}"][DRA_GPU_QUOTA] == 0 and quota[f"gpu-{PLUGIN_GROUP}"][GPU_RESOURCE] == team
        assert quota[f"gpu-{GROUP}"][DRA_EFA_QUOTA] > 0 and quota[f"gpu-{PLUGIN_GROUP}"][DRA_EFA_QUOTA] == 0
        assert EFA_RESOURCE not in group["coveredResources"]


def test_the_dra_groups_template_advertises_no_device_plugin_gpus(plan):
    asg = {
        t["autoscalingGroupName"]
        for t in resources(plan, "aws:autoscaling/tag:Tag")
        if t["tag"]["key"] == f"{TEMPLATE}label/{GPU_DEVICES_LABEL}"
    }
    gpu_tags = [
        t
        for t in resources(plan, "aws:autoscaling/tag:Tag")
        if t["autoscalingGroupName"] in asg
        and t["tag"]["key"] in (f"{TEMPLATE}resources/{GPU_RESOURCE}", f"{TEMPLATE}resources/{EFA_RESOURCE}")
    ]
    assert asg and gpu_tags == []


def _bad(tmp_path, capsys, change):
    stack = yaml.safe_load((TEST_STACKS / f"Pulumi.{STACK}.yaml").read_text())
    change(stack["config"]["gpu-cluster-blueprints:cluster"])
    (tmp_path / "Pulumi.bad.yaml").write_text(yaml.safe_dump(stack))
    code = main(["plan", "--stack", "bad", "--stacks-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0], err
    return err[0]


def test_dra_below_the_minor_that_supports_it_is_one_line_exit_2(tmp_path, capsys):
    line = _bad(tmp_path, capsys, lambda c: c.update(kubernetesVersion="1.33"))
    assert "nodeGroups.gpu.devices" in line and "1.34" in line


def test_dra_without_the_gpu_operator_is_one_line_exit_2(tmp_path, capsys):
    line = _bad(tmp_path, capsys, lambda c: c.setdefault("kubernetes", {}).update(gpuStack="device-plugin"))
    assert "nodeGroups.gpu.devices" in line and "gpu-operator" in line


def test_dra_with_sharing_is_one_line_exit_2(tmp_path, capsys):
    line = _bad(
        tmp_path, capsys, lambda c: c["nodeGroups"][GROUP].update(sharing={"strategy": "time-slicing", "replicas": 2})
    )
    assert "nodeGroups.gpu.devices" in line


def test_an_unknown_device_model_is_one_line_exit_2(tmp_path, capsys):
    assert "devices" in _bad(tmp_path, capsys, lambda c: c["nodeGroups"][GROUP].update(devices="cdi"))


def _with_min_nodes(plan, minimum):
    out = []
    for r in plan.registrations:
        if r.type == "aws:eks/nodeGroup:NodeGroup" and (r.inputs.get("labels") or {}).get(GPU_DEVICES_LABEL):
            properties = struct_pb2.Struct()
            properties.update({**r.inputs, "scalingConfig": {**r.inputs["scalingConfig"], "minSize": minimum}})
            r = dataclasses.replace(r, properties=properties)
        out.append(r)
    return out


def _blocking(findings):
    return [f for f in findings if f.level == "blocking"]


def test_the_validator_warning_names_the_dra_groups_of_a_mixed_cluster(plan):
    [warning] = [f for f in readiness_devices.check(plan.registrations) if f.check == "dra-operator-validator"]
    assert warning.level == "warning" and f"DRA nodes of {GROUP}" in warning.message


def test_readiness_blocks_a_dra_group_the_cluster_autoscaler_must_grow_from_zero(plan):
    assert _blocking(readiness_devices.check(plan.registrations)) == []
    [finding] = _blocking(readiness_devices.check(_with_min_nodes(plan, 0)))
    assert finding.check == "dra-from-zero" and finding.level == "blocking"
    assert "cluster-autoscaler" in finding.message and "aws_cloud_provider.go" in finding.message


def test_readiness_blocks_a_dra_group_without_the_driver(plan):
    regs = [r for r in plan.registrations if r.inputs.get("name") != "dra-driver-nvidia-gpu"]
    assert [f.check for f in _blocking(readiness_devices.check(regs))] == ["dra-driver-missing"]


def test_karpenter_ignores_dra_requests_so_a_dra_pool_is_blocking(tmp_path):
    stack = yaml.safe_load((TEST_STACKS / f"Pulumi.{STACK}.yaml").read_text())
    cluster = stack["config"]["gpu-cluster-blueprints:cluster"]
    cluster["autoscaling"] = {"engine": "karpenter"}
    cluster["nodeGroups"][GROUP].update(capacity="on-demand", minNodes=0, desiredNodes=0)
    for key in ("capacityReservationId", "zone"):
        cluster["nodeGroups"][GROUP].pop(key)
    (tmp_path / "Pulumi.karp.yaml").write_text(yaml.safe_dump(stack))
    findings = [f for f in make_plan("karp", tmp_path).readiness_blocking() if f.check == "dra-from-zero"]
    assert len(findings) == 1 and "karpenter" in findings[0].message and "IGNORE_DRA_REQUESTS" in findings[0].message


def test_ai_conformance_names_the_installed_dra_driver(plan):
    from blueprints.offline.conformance import MET, assess

    [dra] = [
        v for v in assess(plan.registrations, plan.resolved.spec.kubernetes_version).verdicts if v.id == "dra_support"
    ]
    assert dra.status == MET and "NVIDIA DRA Driver for GPUs (dra-driver-nvidia-gpu 0.4.1) publishes" in dra.detail


def test_the_example_claims_a_nodes_gpus_through_the_plans_template_and_its_gang_is_admissible(plan):
    import json

    import jsonpatch

    from blueprints.offline.readiness_queues import admissible
    from kube_schema import crd_schema, validate_custom

    example = ROOT / "examples" / "first-training-job"
    job = jsonpatch.apply_patch(
        yaml.safe_load((example / "jobset.yaml").read_text()), json.loads((example / "dra-patch.json").read_text())
    )
    replicated = job["spec"]["replicatedJobs"][0]
    pod = replicated["template"]["spec"]["template"]["spec"]
    [container] = pod["containers"]
    assert not {GPU_RESOURCE, EFA_RESOURCE} & set(container["resources"]["limits"])
    assert container["resources"]["claims"] == [{"name": "gpus"}]
    [claim] = pod["resourceClaims"]
    [template] = [
        t
        for t in resources(plan, "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
        if t["metadata"]["name"] == claim["resourceClaimTemplateName"]
        and t["metadata"]["namespace"] == job["metadata"]["namespace"]
    ]
    counts = {r["name"]: r["exactly"]["count"] for r in template["spec"]["spec"]["devices"]["requests"]}
    per_pod, efa = counts["gpus"], counts["efa"]
    assert f"--nproc-per-node={per_pod}" in container["command"][-1]  # one process per claimed GPU
    assert pod["nodeSelector"] == {"gpu-blueprints/node-group": GROUP}
    pods = replicated["replicas"] * replicated["template"]["spec"]["parallelism"]
    queues = {
        q["metadata"]["name"]: q["spec"] for q in resources(plan, "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    }
    team = job["metadata"]["namespace"]
    assert admissible(queues, team, f"gpu-{GROUP}", DRA_GPU_QUOTA) >= pods * per_pod
    assert admissible(queues, team, f"gpu-{GROUP}", DRA_EFA_QUOTA) >= pods * efa
    schema = crd_schema(job["apiVersion"], job["kind"])
    report = validate_custom(job, schema)
    assert report.schema_failures == [] and report.cel_failures == []


def test_on_ack_a_dra_group_that_scales_from_zero_is_a_warning_the_autoscaler_is_undocumented(tmp_path):
    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.research-a100-aliyun.yaml").read_text())
    cluster = stack["config"]["gpu-cluster-blueprints:cluster"]
    cluster["kubernetesVersion"] = "1.35"
    cluster["nodeGroups"] = {GROUP: {"gpuModel": "A100-80GB", "gpusPerNode": 4, "devices": "dra", "maxNodes": 2}}
    (tmp_path / "Pulumi.ack.yaml").write_text(yaml.safe_dump(stack))
    plan = make_plan("ack", tmp_path)
    [pool] = [
        p
        for p in resources(plan, "alicloud:cs/nodePool:NodePool")
        if {"key": GPU_DEVICES_LABEL, "value": "dra"} in p["labels"]
    ]
    assert {"key": DEVICE_PLUGIN_DEPLOY_LABEL, "value": "false"} in pool["labels"]
    [finding] = [f for f in readiness_devices.check(plan.registrations) if f.check == "dra-from-zero"]
    assert (
        finding.level == "warning" and "ack-autoscaler" not in finding.message and "not open source" in finding.message
    )
    assert _release(plan, "dra-driver-nvidia-gpu")["nvidiaDriverRoot"] == "/"  # ACK GPU nodes ship the driver


def test_high_performance_networking_names_dranet_for_the_claimed_efa(tmp_path):
    from blueprints.offline.conformance import MET, assess

    stack = yaml.safe_load((TEST_STACKS / f"Pulumi.{STACK}.yaml").read_text())
    stack["config"]["gpu-cluster-blueprints:cluster"]["kubernetesVersion"] = "1.36"  # the SHOULD that names DRANET
    (tmp_path / "Pulumi.v136.yaml").write_text(yaml.safe_dump(stack))
    plan = make_plan("v136", tmp_path)
    [hpn] = [v for v in assess(plan.registrations, "1.36").verdicts if v.id == "high_performance_networking"]
    assert hpn.status == MET and hpn.detail.startswith("aws-dranet 1.0.0 (DRANET) publishes the EFA interfaces of")


AUTOSCALER_GPU_LABEL = "k8s.amazonaws.com/accelerator"  # cluster-autoscaler cloudprovider/aws GPULabel


def test_dra_nodes_do_not_carry_the_autoscalers_gpu_label(plan):
    """A node with the AWS provider's GPU label and no nvidia.com/gpu allocatable is an unready GPU to the Cluster
    Autoscaler unless its GpuConfig names a DRA driver, which the AWS provider's never does (cluster-autoscaler-1.35.2
    processors/customresources/gpu_processor.go gpuExposedViaDra, utils/gpu/gpu.go GetNodeGPUFromCloudProvider):
    a DRA node advertises no nvidia.com/gpu, so it must not carry that label, nor its node template."""
    tags = resources(plan, "aws:autoscaling/tag:Tag")
    for group, carried in ((GROUP, False), (PLUGIN_GROUP, True)):
        assert (AUTOSCALER_GPU_LABEL in _node_group(plan, group)["labels"]) is carried, group
        asg = next(
            t["autoscalingGroupName"]
            for t in tags
            if t["tag"]["key"] == f"{TEMPLATE}label/gpu-blueprints/node-group" and t["tag"]["value"] == group
        )
        keys = {t["tag"]["key"] for t in tags if t["autoscalingGroupName"] == asg}
        assert (f"{TEMPLATE}label/{AUTOSCALER_GPU_LABEL}" in keys) is carried, group


def test_a_dra_group_below_two_nodes_gets_no_topology_since_kueue_provisions_nothing_for_claims(tmp_path):
    """Kueue's Provisioning check asks for nodes only for pods requesting its managedResources, and a claim is no
    request (kueue v0.19.2 pkg/controller/admissionchecks/provisioning/controller.go reqIsNeeded, podUses): a DRA
    group that may have fewer than two Ready nodes gets no Topology (with a note), not a check that brings none."""
    stack = yaml.safe_load((TEST_STACKS / f"Pulumi.{STACK}.yaml").read_text())
    stack["config"]["gpu-cluster-blueprints:cluster"]["nodeGroups"][GROUP].update(minNodes=1, desiredNodes=1)
    (tmp_path / "Pulumi.one.yaml").write_text(yaml.safe_dump(stack))
    plan = make_plan("one", tmp_path)
    assert plan.exit_code == 0, [f.message for f in plan.readiness_blocking()]
    kinds = {r.inputs.get("kind") for r in plan.registrations}
    assert not kinds & {"Topology", "ProvisioningRequestConfig", "AdmissionCheck"}
    assert "enable-provisioning-requests" not in _release(plan, "cluster-autoscaler")["extraArgs"]
    assert any(n.startswith(f"{GROUP}: no topology-aware queueing") and "claim" in n for n in plan.resolved.notes)
