"""Serving models (issue #25): the objects ModelServing registers, validated against the Kubernetes and pinned CRD
schemas; the autoscaling query unit-tested by promtool against recorded series; the serving role reads only its
prefix; and readiness findings for a model too large, a bad tensor-parallel degree, a missing scrape path
(the route: tests/test_inference_gateway.py)."""

from __future__ import annotations

import copy
import json
import subprocess
from dataclasses import replace

import jsonschema
import kubernetes_validate
import pytest
import yaml
from google.protobuf import struct_pb2

from blueprints.offline import readiness_serving
from blueprints.stackconfig import ROOT
from components.kubernetes.nodes import GPU_RESOURCE, NODE_GROUP_LABEL
from components.kubernetes.serving import load_query
from conftest import resources, shipped_plan, validate_crd

STACK = "startup-serving"
CRDS = ROOT / "tests" / "data" / "crds"
PROMTOOL = ROOT / "tools" / "bin" / "promtool"


def _one(plan, type_):
    """The model's own object of a kind (the endpoint picker beside it has a Deployment and Service too)."""
    [found] = [
        r
        for r in resources(plan, type_)
        if (r.get("metadata") or {}).get("namespace") == "serving"
        and not (r.get("metadata") or {}).get("name", "").endswith("-epp")
    ]
    return found


def test_the_model_server_asks_for_its_gpus_on_its_group_and_is_probed_on_health():
    plan = shipped_plan(STACK)
    deployment = _one(plan, "kubernetes:apps/v1:Deployment")
    pod = deployment["spec"]["template"]["spec"]
    [vllm] = pod["containers"]
    assert vllm["image"] == "vllm/vllm-openai:v0.12.0"
    assert vllm["resources"]["limits"][GPU_RESOURCE] == "1" and vllm["resources"]["requests"][GPU_RESOURCE] == "1"
    assert pod["nodeSelector"] == {NODE_GROUP_LABEL: "gpu"}
    assert {t["key"] for t in pod["tolerations"]} == {"nvidia.com/gpu"}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert vllm[probe]["httpGet"] == {"path": "/health", "port": 8000}
    args = vllm["args"]
    assert args[args.index("--served-model-name") + 1] == "mistral-7b"
    assert args[args.index("--load-format") + 1] == "runai_streamer"
    assert args[args.index("--max-num-seqs") + 1] == "8" and args[args.index("--dtype") + 1] == "float16"
    env = {e["name"]: e for e in vllm["env"]}["WEIGHTS_URI"]
    assert vllm["securityContext"]["runAsNonRoot"] and vllm["securityContext"]["readOnlyRootFilesystem"]
    assert env["value"].startswith("s3://startup-serving-data-")
    assert env["value"].endswith("/models/mistral-7b-instruct/")
    assert pod["serviceAccountName"] == "mistral-7b"
    assert deployment["metadata"]["annotations"]["pulumi.com/skipAwait"] == "true"  # weights come after `up`


def test_every_serving_object_is_valid_against_its_schema():
    plan = shipped_plan(STACK)
    version = f"{plan.resolved.spec.kubernetes_version}.0"
    builtin = {
        "kubernetes:apps/v1:Deployment",
        "kubernetes:core/v1:Service",
        "kubernetes:core/v1:ServiceAccount",
        "kubernetes:networking.k8s.io/v1:NetworkPolicy",
    }
    for r in plan.registrations:
        if r.type in builtin and r.inputs["metadata"].get("namespace") == "serving":
            kubernetes_validate.validate(r.inputs, version, strict=True)
    for kind, folder, api in (
        ("ScaledObject", "keda-2.20.2", "keda.sh/v1alpha1"),
        ("PodMonitor", "prometheus-operator-0.93.1", "monitoring.coreos.com/v1"),
    ):
        schema = json.loads((CRDS / folder / f"{kind}.json").read_text())
        obj = _one(plan, f"kubernetes:{api}:{kind}")
        validate_crd(obj, schema)
        broken = copy.deepcopy(obj)
        broken["spec"]["minReplicaCount" if kind == "ScaledObject" else "podMetricsEndpoints"] = "zero"
        with pytest.raises(jsonschema.ValidationError):
            validate_crd(broken, schema)


def test_keda_scales_the_deployment_on_vllm_queue_depth_read_from_the_shipped_prometheus():
    plan = shipped_plan(STACK)
    scaled = _one(plan, "kubernetes:keda.sh/v1alpha1:ScaledObject")["spec"]
    assert scaled["scaleTargetRef"] == {"name": "mistral-7b"}
    assert (scaled["minReplicaCount"], scaled["maxReplicaCount"]) == (1, 10)
    [trigger] = scaled["triggers"]
    assert trigger["type"] == "prometheus" and trigger["metricType"] == "AverageValue"
    assert trigger["metadata"]["query"] == 'sum(vllm:num_requests_waiting{namespace="serving",model_name="mistral-7b"})'
    assert trigger["metadata"]["threshold"] == "4"
    assert trigger["metadata"]["serverAddress"] == "http://prometheus-operated.monitoring.svc:9090"
    monitor = _one(plan, "kubernetes:monitoring.coreos.com/v1:PodMonitor")["spec"]
    pod_labels = _one(plan, "kubernetes:apps/v1:Deployment")["spec"]["template"]["metadata"]["labels"]
    assert all(pod_labels[k] == v for k, v in monitor["selector"]["matchLabels"].items())
    assert monitor["podMetricsEndpoints"][0]["path"] == "/metrics"
    releases = {r["name"]: r for r in resources(plan, "kubernetes:helm.sh/v3:Release")}
    assert releases["keda"]["version"] == "2.20.2" and releases["keda"]["values"]["nodeSelector"]


@pytest.mark.skipif(not PROMTOOL.exists(), reason="promtool is installed by `make tools`")
@pytest.mark.parametrize(
    "signal, series, expected",
    [
        # Two replicas of the model waiting 3 and 5 requests, another model's 9 not counted: KEDA divides 8 by 2.
        (
            "requests-waiting",
            [
                'vllm:num_requests_waiting{namespace="serving",model_name="m",pod="m-a"} 3',
                'vllm:num_requests_waiting{namespace="serving",model_name="m",pod="m-b"} 5',
                'vllm:num_requests_waiting{namespace="serving",model_name="other",pod="o"} 9',
            ],
            8,
        ),
        (
            "kv-cache",
            [
                'vllm:kv_cache_usage_perc{namespace="serving",model_name="m",pod="m-a"} 0.5',
                'vllm:kv_cache_usage_perc{namespace="serving",model_name="m",pod="m-b"} 0.9',
            ],
            0.7,
        ),
        (
            "gpu-utilization",
            [
                'DCGM_FI_DEV_GPU_UTIL{namespace="serving",pod="m-5d9-x",gpu="0"} 80',
                'DCGM_FI_DEV_GPU_UTIL{namespace="training",pod="m-5d9-y",gpu="0"} 10',
                'DCGM_FI_DEV_GPU_UTIL{namespace="serving",pod="mixtral-1",gpu="0"} 5',
            ],
            0.8,
        ),
    ],
)
def test_the_load_query_against_recorded_series(tmp_path, signal, series, expected):
    rule = {"record": "model_load", "expr": load_query(signal, "serving", "m")}
    rules = {"groups": [{"name": "load", "rules": [rule]}]}
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rules))
    test = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [{"series": s.rsplit(" ", 1)[0], "values": f"{s.rsplit(' ', 1)[1]}x2"} for s in series],
                "promql_expr_test": [
                    {
                        "expr": "model_load",
                        "eval_time": "1m",
                        "exp_samples": [{"labels": "model_load", "value": expected}],
                    }
                ],
            }
        ],
    }
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test))
    result = subprocess.run(
        [str(PROMTOOL), "test", "rules", "test.yaml"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_serving_role_reads_only_its_models_prefix():
    plan = shipped_plan(STACK)
    [policy] = [
        json.loads(r.inputs["policy"])
        for r in plan.registrations
        if r.type == "aws:iam/rolePolicy:RolePolicy" and r.name == f"{STACK}-serve-mistral-7b"
    ]
    by_sid = {s["Sid"]: s for s in policy["Statement"]}
    assert by_sid["ReadWeightsObjects"]["Action"] == ["s3:GetObject", "s3:GetObjectVersion"]
    assert by_sid["ReadWeightsObjects"]["Resource"][0].endswith("/models/mistral-7b-instruct/*")
    assert by_sid["ReadWeightsList"]["Condition"] == {"StringLike": {"s3:prefix": ["models/mistral-7b-instruct/*"]}}
    assert by_sid["DecryptWeights"]["Action"] == ["kms:Decrypt"]
    assert all(s["Effect"] == "Allow" and not any(a.endswith("*") for a in s["Action"]) for s in policy["Statement"])
    [trust] = [
        json.loads(r.inputs["assumeRolePolicy"])
        for r in plan.registrations
        if r.type == "aws:iam/role:Role" and r.name == f"{STACK}-serve-mistral-7b"
    ]
    assert "system:serviceaccount:serving:mistral-7b" in json.dumps(trust)


# ----------------------------------------------------------------------------------------------- readiness


def _mutated(change):
    """The shipped plan's registrations with the model server's registrations changed by ``change``."""
    regs = []
    for r in shipped_plan(STACK).registrations:
        inputs = copy.deepcopy(r.inputs)
        if change(r.type, inputs) is False:
            continue
        properties = struct_pb2.Struct()
        properties.update(inputs)
        regs.append(replace(r, properties=properties))
    return regs


def _container(inputs):
    return inputs["spec"]["template"]["spec"]["containers"][0]


def _set_flag(flag, value):
    def change(type_, inputs):
        if type_ == readiness_serving.DEPLOYMENT and inputs["metadata"].get("name") == "mistral-7b":
            args = _container(inputs)["args"]
            args[args.index(flag) + 1] = value

    return change


def test_the_shipped_serving_stack_is_ready():
    assert readiness_serving.check(shipped_plan(STACK).registrations) == []
    assert shipped_plan(STACK).exit_code == 0


@pytest.mark.parametrize(
    "change, check, fragment",
    [
        (_set_flag("--max-num-seqs", "256"), "serving-fit", "128.0 GiB KV cache (4096 tokens x 256 sequences)"),
        (_set_flag("--tensor-parallel-size", "3"), "serving-tensor-parallel", "does not divide mistral-7b's 32"),
        (lambda t, i: False if t.endswith(":PodMonitor") else None, "serving-metrics", "has no scrape path"),
    ],
)
def test_each_gap_is_a_blocking_finding_with_its_fix(change, check, fragment):
    findings = readiness_serving.check(_mutated(change))
    [found] = [f for f in findings if f.check == check]
    assert found.level == "blocking" and fragment in found.message and found.fix


def test_scale_to_zero_on_its_own_metric_is_reported(plan_variant):
    plan = plan_variant(STACK, lambda c: c["serving"]["models"]["mistral-7b"].update(minReplicas=0))
    assert [f.check for f in readiness_serving.check(plan.registrations)] == ["serving-wake"]


def test_a_gap_makes_the_plan_exit_1(tmp_path):
    """The CLI path: a stack whose monitoring is off leaves the load query nothing to read."""
    from conftest import run_cli, shipped_cluster, write_stack

    cluster = shipped_cluster(STACK)
    cluster.setdefault("kubernetes", {})["monitoring"] = {"enabled": False}
    write_stack(tmp_path, "gap", cluster)
    result = run_cli("plan", "--stack", "gap", "--stacks-dir", str(tmp_path))
    assert result.returncode == 1 and "serving-metrics" in result.stdout


# ----------------------------------------------------------------------------------------------- ACK


def test_on_ack_the_weights_are_a_read_only_oss_volume_whose_role_reads_only_the_prefix():
    stack = "startup-serving-aliyun"
    plan = shipped_plan(stack)
    version = f"{plan.resolved.spec.kubernetes_version}.0"
    [pv] = resources(plan, "kubernetes:core/v1:PersistentVolume")
    claim = _one(plan, "kubernetes:core/v1:PersistentVolumeClaim")
    for manifest in (pv, claim):
        kubernetes_validate.validate(manifest, version, strict=True)
    csi = pv["spec"]["csi"]
    assert csi["driver"] == "ossplugin.csi.alibabacloud.com" and csi["readOnly"] is True
    assert pv["spec"]["accessModes"] == ["ReadOnlyMany"] and claim["spec"]["volumeName"] == pv["metadata"]["name"]
    attributes = csi["volumeAttributes"]
    assert attributes["path"] == "/models/mistral-7b-instruct" and attributes["authType"] == "rrsa"
    assert attributes["url"] == "http://oss-cn-hangzhou-internal.aliyuncs.com"
    assert attributes["roleName"] == f"{stack}-serve-mistral-7b"
    [vllm] = _one(plan, "kubernetes:apps/v1:Deployment")["spec"]["template"]["spec"]["containers"]
    assert "--load-format" not in vllm["args"]
    assert {e["name"]: e["value"] for e in vllm["env"]}["WEIGHTS_URI"] == "/models"
    assert {"name": "weights", "mountPath": "/models", "readOnly": True} in vllm["volumeMounts"]
    [policy] = [
        json.loads(r.inputs["policyDocument"])
        for r in plan.registrations
        if r.type == "alicloud:ram/policy:Policy" and r.name == f"{stack}-serve-mistral-7b"
    ]
    objects, listing, kms = policy["Statement"]
    assert objects["Action"] == ["oss:GetObject"] and objects["Resource"][0].endswith("/models/mistral-7b-instruct/*")
    assert listing["Condition"] == {"StringLike": {"oss:Prefix": ["models/mistral-7b-instruct/*"]}}
    assert kms["Action"] == ["kms:Decrypt"]
    [trust] = [
        r.inputs["assumeRolePolicyDocument"]
        for r in plan.registrations
        if r.type == "alicloud:ram/role:Role" and r.name == f"{stack}-serve-mistral-7b"
    ]
    assert "system:serviceaccount:ack-csi-fuse:csi-fuse-ossfs" in trust
    assert readiness_serving.check(plan.registrations) == []


def test_gpu_utilization_needs_the_operators_exporter(plan_variant):
    def gpu(c):
        c["serving"]["models"]["mistral-7b"].update(signal="gpu-utilization", target=0.7)

    assert readiness_serving.check(plan_variant(STACK, gpu).registrations) == []
    plugin = plan_variant(STACK, lambda c: (gpu(c), c.setdefault("kubernetes", {}).update(gpuStack="device-plugin")))
    [found] = readiness_serving.check(plugin.registrations)
    assert found.check == "serving-metrics" and "GPU Operator" in found.message
