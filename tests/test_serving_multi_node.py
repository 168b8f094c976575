"""A model whose replica spans nodes (issue #25 item 2): a LeaderWorkerSet (kubernetes-sigs/lws, pinned) running vLLM
over Ray as vLLM's LWS page describes, scaled by KEDA through the LWS scale subresource; validated against the
pinned CRD schemas; bad input exits 2 in one line, and a group that cannot hold a replica is a readiness finding."""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import jsonschema
import kubernetes_validate
import pytest
from google.protobuf import struct_pb2

from blueprints.offline import readiness_serving
from blueprints.offline.plan import make_plan
from blueprints.stackconfig import ROOT
from components.kubernetes.nodes import GPU_RESOURCE, NODE_GROUP_LABEL
from conftest import one_line, resources, run_cli, shipped_cluster, shipped_plan, validate_crd, write_stack

CRDS = ROOT / "tests" / "data" / "crds"
LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
# Llama 3.1 405B at bf16 (754 GiB of weights) needs more than one node of the research preset's group (at least 4
# A100 80GB a node; the resolver picks p4de.24xlarge): with 4 GPUs a node, 4 nodes a replica.
MODEL = {
    "model": "llama-3.1-405b",
    "weightsPrefix": "models/llama-3.1-405b/",
    "nodeGroup": "gpu",
    "precision": "bf16",
    "tensorParallel": 4,
    "pipelineParallel": 4,
    "maxContext": 8192,
    "maxBatch": 8,
    "minReplicas": 1,
    "maxReplicas": 2,
}


def _cluster(**model) -> dict:
    cluster = shipped_cluster("research-a100")
    cluster["nodeGroups"] = {"gpu": {"maxNodes": 8}}
    cluster["serving"] = {"models": {"llama-405b": {**MODEL, **model}}}
    return cluster


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    folder = tmp_path_factory.mktemp("multi-node")
    write_stack(folder, "multi-node", _cluster())
    return make_plan("multi-node", folder)


def _one(plan, type_):
    """The model's own object of a kind in the serving namespace (not the endpoint picker's, named <model>-epp)."""
    meta = lambda r: r.get("metadata") or {}  # noqa: E731
    [found] = [
        r
        for r in resources(plan, type_)
        if meta(r).get("namespace") == "serving" and not meta(r).get("name", "").endswith("-epp")
    ]
    return found


def test_a_replica_spanning_nodes_is_a_leader_worker_set_over_ray(plan):
    lws = _one(plan, LWS)
    group = lws["spec"]["leaderWorkerTemplate"]
    assert lws["spec"]["replicas"] == 1 and group["size"] == 4
    assert group["restartPolicy"] == "RecreateGroupOnPodRestart"  # one failed pod restarts the whole replica
    leader, worker = group["leaderTemplate"], group["workerTemplate"]
    for pod in (leader["spec"], worker["spec"]):
        [container] = pod["containers"]
        assert container["resources"]["requests"][GPU_RESOURCE] == "4"  # tensorParallel GPUs on each node
        assert pod["nodeSelector"] == {NODE_GROUP_LABEL: "gpu"} and pod["serviceAccountName"] == "llama-405b"
    [lead] = leader["spec"]["containers"]
    assert "multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE)" in lead["command"][2]
    args = lead["args"]
    assert args[args.index("--tensor-parallel-size") + 1] == "4"
    assert args[args.index("--pipeline-parallel-size") + 1] == "4"
    assert args[args.index("--distributed-executor-backend") + 1] == "ray"
    [work] = worker["spec"]["containers"]
    assert "multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)" in work["command"][2]
    assert "args" not in work and "readinessProbe" not in work  # workers serve no HTTP
    # No Deployment runs the engine (the serving namespace's one Deployment is the endpoint picker of the route).
    serving = [d for d in resources(plan, "kubernetes:apps/v1:Deployment") if d["metadata"]["namespace"] == "serving"]
    assert [d["metadata"]["name"] for d in serving] == ["llama-405b-epp"]


def test_only_the_leader_is_routed_to_and_scraped(plan):
    lws = _one(plan, LWS)["spec"]["leaderWorkerTemplate"]
    leader, worker = lws["leaderTemplate"]["metadata"]["labels"], lws["workerTemplate"]["metadata"]["labels"]
    service = _one(plan, "kubernetes:core/v1:Service")["spec"]["selector"]
    monitor = _one(plan, "kubernetes:monitoring.coreos.com/v1:PodMonitor")["spec"]["selector"]["matchLabels"]
    pool = _one(plan, "kubernetes:inference.networking.k8s.io/v1:InferencePool")["spec"]["selector"]["matchLabels"]
    for selector in (service, monitor, pool):
        assert all(leader.get(k) == v for k, v in selector.items())
        assert not all(worker.get(k) == v for k, v in selector.items())


def test_keda_scales_the_leader_worker_set_and_the_lws_chart_is_pinned_on_the_system_nodes(plan):
    scaled = _one(plan, "kubernetes:keda.sh/v1alpha1:ScaledObject")["spec"]
    assert scaled["scaleTargetRef"] == {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "name": "llama-405b",
    }
    assert (scaled["minReplicaCount"], scaled["maxReplicaCount"]) == (1, 2)  # replicas are whole groups
    # KEDA scales a custom resource only through its /scale subresource (keda.sh/docs/2.20/concepts/
    # scaling-deployments): the pinned CRD has one, on the replica count of groups.
    scale = json.loads((CRDS / "lws-0.10.0" / "LeaderWorkerSet.subresources.json").read_text())["scale"]
    assert scale["specReplicasPath"] == ".spec.replicas" and scale["labelSelectorPath"] == ".status.hpaPodSelector"
    release = next(r for r in resources(plan, "kubernetes:helm.sh/v3:Release") if r["name"] == "lws")
    assert release["version"] == "0.10.0" and release["chart"] == "oci://registry.k8s.io/lws/charts/lws"
    assert release["namespace"] == "lws-system" and release["values"]["nodeSelector"] == {NODE_GROUP_LABEL: "system"}


def test_the_leader_worker_set_and_its_scaler_validate_against_the_pinned_crds(plan):
    for kind, folder in (("LeaderWorkerSet", "lws-0.10.0"), ("ScaledObject", "keda-2.20.2")):
        schema = json.loads((CRDS / folder / f"{kind}.json").read_text())
        obj = _one(plan, LWS if kind == "LeaderWorkerSet" else "kubernetes:keda.sh/v1alpha1:ScaledObject")
        validate_crd(obj, schema)
    broken = copy.deepcopy(_one(plan, LWS))
    broken["spec"]["leaderWorkerTemplate"]["restartPolicy"] = "Sometimes"  # not in the CRD's enum
    with pytest.raises(jsonschema.ValidationError):
        validate_crd(broken, json.loads((CRDS / "lws-0.10.0" / "LeaderWorkerSet.json").read_text()))
    # The pod templates inside are core/v1 PodTemplateSpecs: strict against the Kubernetes schema.
    version = f"{plan.resolved.spec.kubernetes_version}.0"
    for part in ("leaderTemplate", "workerTemplate"):
        template = _one(plan, LWS)["spec"]["leaderWorkerTemplate"][part]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **template["metadata"]}}
        kubernetes_validate.validate({**pod, "spec": template["spec"]}, version, strict=True)


def test_the_lws_namespace_is_the_platforms_so_no_team_may_take_it(plan):
    from blueprints.platform_namespaces import PLATFORM_NAMESPACES

    namespaces = {r["namespace"] for r in resources(plan, "kubernetes:helm.sh/v3:Release")}
    assert "lws-system" in namespaces and namespaces <= PLATFORM_NAMESPACES


def test_the_multi_node_plan_is_ready(plan):
    assert readiness_serving.check(plan.registrations) == [] and plan.exit_code == 0


def test_a_model_within_one_node_stays_a_deployment():
    plan = shipped_plan("startup-serving")
    assert not resources(plan, LWS)
    assert "lws" not in {r["name"] for r in resources(plan, "kubernetes:helm.sh/v3:Release")}


# ----------------------------------------------------------------------------------------------- bad input, exit 2
@pytest.mark.parametrize(
    "model, group, fragments",
    [
        (
            {"pipelineParallel": 4},
            {"maxNodes": 2},
            ("models.llama-405b.pipelineParallel: a replica spans 4 nodes", "holds at most 2", "allowed: up to 2"),
        ),
        (
            {"tensorParallel": 8, "pipelineParallel": 2},
            {"maxNodes": 8},
            ("tensorParallel: 8 GPUs per node but nodes of gpu have 4", "pipelineParallel, the nodes per replica"),
        ),
        (
            {"pipelineParallel": 2},
            {"maxNodes": 8},
            (
                "needs 754.4 GiB of weights",
                "on p4de.24xlarge on each of 2 nodes leave 512.0 GiB",
                "pipelineParallel (nodes per replica)",
            ),
        ),
        ({"pipelineParallel": 65}, {"maxNodes": 8}, ("pipelineParallel", "less than or equal to 64")),
    ],
)
def test_bad_multi_node_input_is_one_line(tmp_path, model, group, fragments):
    cluster = _cluster(**model)
    cluster["nodeGroups"]["gpu"].update(group)
    write_stack(tmp_path, "bad", cluster)
    line = one_line(run_cli("plan", "--stack", "bad", "--stacks-dir", str(tmp_path)))
    for fragment in fragments:
        assert fragment in line, line


# ----------------------------------------------------------------------------------------------- readiness
def _mutated(plan, change):
    regs = []
    for r in plan.registrations:
        inputs = copy.deepcopy(r.inputs)
        if change(r.type, inputs) is False:
            continue
        properties = struct_pb2.Struct()
        properties.update(inputs)
        regs.append(replace(r, properties=properties))
    return regs


def _group_size(size):
    def change(type_, inputs):
        if type_ == LWS:
            inputs["spec"]["leaderWorkerTemplate"]["size"] = size

    return change


def _findings(regs, check):
    return [f for f in readiness_serving.check(regs) if f.check == check]


def test_a_group_too_small_for_a_replica_is_blocking(plan):
    [found] = _findings(_mutated(plan, _group_size(9)), "serving-group-size")  # maxNodes 8
    assert found.level == "blocking" and "a replica spans 9 nodes" in found.message and "maxNodes 8" in found.message
    assert "raise the group's maxNodes to at least 9" in found.fix


def test_more_replicas_than_the_group_holds_is_a_warning(plan):
    [found] = _findings(_mutated(plan, _group_size(5)), "serving-group-size")  # 2 x 5 > 8
    assert found.level == "warning" and "at most 1 replicas ever run" in found.message


def test_without_the_lws_controller_the_set_is_never_created(plan):
    regs = _mutated(plan, lambda t, i: False if t.endswith(":Release") and i.get("name") == "lws" else None)
    [found] = _findings(regs, "serving-multi-node")
    assert found.level == "blocking" and "lws chart" in found.fix


def test_a_pod_asking_for_more_gpus_than_a_node_has_never_schedules(plan):
    def change(type_, inputs):
        if type_ == LWS:
            args = inputs["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]["args"]
            args[args.index("--tensor-parallel-size") + 1] = "16"  # divides the 128 heads; p4de.24xlarge has 8

    [found] = _findings(_mutated(plan, change), "serving-fit")
    assert found.level == "blocking" and "asks for 16 GPUs" in found.message and "never schedules" in found.message


def test_the_tensor_parallel_degree_must_still_divide_the_heads(plan):
    def change(type_, inputs):
        if type_ == LWS:
            args = inputs["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]["args"]
            args[args.index("--tensor-parallel-size") + 1] = "3"

    [found] = _findings(_mutated(plan, change), "serving-tensor-parallel")
    assert found.level == "blocking" and "does not divide llama-3.1-405b's 128" in found.message


def test_a_multi_node_model_without_a_fabric_is_warned(tmp_path):
    cluster = _cluster()
    cluster["nodeGroups"]["gpu"]["rdma"] = False
    write_stack(tmp_path, "tcp", cluster)
    plan = make_plan("tcp", tmp_path)
    [found] = _findings(plan.registrations, "serving-fabric")
    assert found.level == "warning" and "no RDMA fabric" in found.message and plan.exit_code == 0


def test_a_scaled_object_aimed_at_a_deployment_of_that_name_does_not_scale_the_set(plan):
    def change(type_, inputs):
        if type_.endswith(":ScaledObject"):
            inputs["spec"]["scaleTargetRef"] = {"name": "llama-405b"}  # kind defaults to Deployment

    [found] = _findings(_mutated(plan, change), "serving-autoscaling")
    assert "has no ScaledObject" in found.message
