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
from components.kubernetes.inference_gateway import wake_query
from components.kubernetes.nodes import GPU_RESOURCE, NODE_GROUP_LABEL
from components.kubernetes.serving import load_query
from conftest import resources, shipped_plan, validate_crd

STACK = "startup-serving"
CRDS = ROOT / "tests" / "data" / "crds"
PROMTOOL = ROOT / "tools" / "bin" / "promtool"


def _named(plan, type_, name):
    [found] = [r for r in resources(plan, type_) if (r.get("metadata") or {}).get("name") == name]
    return found


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
    # The shipped stack scales from zero (issue #35 item 11): the load trigger, and the picker's wake trigger.
    assert (scaled["minReplicaCount"], scaled["maxReplicaCount"]) == (0, 10)
    trigger, wake = scaled["triggers"]
    assert wake["name"] == "wake"
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
    inputs = [{"series": s.rsplit(" ", 1)[0], "values": f"{s.rsplit(' ', 1)[1]}x2"} for s in series]
    _promtool(tmp_path, load_query(signal, "serving", "m"), "1m", inputs, "1m", expected)


def _promtool(tmp_path, expr, interval, inputs, eval_time, value):
    """promtool evaluates ``expr`` as a recording rule over the recorded series and compares it with ``value``."""
    rules = {"groups": [{"name": "q", "rules": [{"record": "model_q", "expr": expr}]}]}
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rules))
    test = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": interval,
        "tests": [
            {
                "interval": interval,
                "input_series": inputs,
                "promql_expr_test": [
                    {"expr": "model_q", "eval_time": eval_time, "exp_samples": [{"labels": "model_q", "value": value}]}
                ],
            }
        ],
    }
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test))
    result = subprocess.run(
        [str(PROMTOOL), "test", "rules", "test.yaml"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


REFUSED = 'inference_model_request_error_total{job="serving/m-epp",error_code="ServiceUnavailable",model_name="m"}'
RUNNING = 'inference_model_running_requests{job="serving/m-epp",model_name="m"}'


def _scrapes(before: str, after: str, at: int = 38) -> str:
    """A series scraped every 15 s for 10 minutes: ``before`` until scrape ``at``, then ``after`` ('_' = absent)."""
    return " ".join([before] * at + [after] * (41 - at))


@pytest.mark.skipif(not PROMTOOL.exists(), reason="promtool is installed by `make tools`")
@pytest.mark.parametrize(
    "series, expected",
    [
        # Zero replicas: the picker's first refusals create the series 30 s ago (two scrapes: increase() alone
        # would still read nothing).
        ([(REFUSED, _scrapes("_", "3"))], 1),
        # A later wake: the counter kept from the last one rises.
        ([(REFUSED, _scrapes("5", "7"))], 1),
        # The picker restarted (its counter reset to 1) and refused again.
        ([(REFUSED, _scrapes("9", "1", at=36))], 1),
        # Requests in flight through the picker keep the model awake though none is refused.
        ([(REFUSED, _scrapes("5", "5")), (RUNNING, _scrapes("0", "2"))], 1),
        # No requests: the counter stands, nothing in flight.
        ([(REFUSED, _scrapes("5", "5")), (RUNNING, _scrapes("0", "0"))], 0),
        # The last refusal was more than the window ago: the model may go back to zero.
        ([(REFUSED, _scrapes("5", "6", at=20))], 0),
        # Another model's picker refusing, or ours shedding load (429, not 503): not a wake.
        (
            [
                (REFUSED.replace("serving/m-epp", "serving/other-epp"), _scrapes("5", "9")),
                (REFUSED.replace("ServiceUnavailable", "InferencePoolResourceExhausted"), _scrapes("5", "9")),
            ],
            0,
        ),
    ],
)
def test_the_wake_query_against_recorded_series(tmp_path, series, expected):
    inputs = [{"series": name, "values": values} for name, values in series]
    _promtool(tmp_path, wake_query("serving", "m"), "15s", inputs, "10m", expected)


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


def _mutated(change, plan=None):
    """The shipped plan's (or ``plan``'s) registrations changed by ``change``; False drops one."""
    regs = []
    for r in (plan or shipped_plan(STACK)).registrations:
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


def _at_zero(plan_variant):
    return plan_variant(STACK, lambda c: c["serving"]["models"]["mistral-7b"].update(minReplicas=0))


def test_at_zero_replicas_the_endpoint_pickers_refusals_wake_the_model(plan_variant):
    plan = _at_zero(plan_variant)
    scaled = _one(plan, "kubernetes:keda.sh/v1alpha1:ScaledObject")
    validate_crd(scaled, json.loads((CRDS / "keda-2.20.2" / "ScaledObject.json").read_text()))
    load, wake = scaled["spec"]["triggers"]
    assert scaled["spec"]["minReplicaCount"] == 0 and "vllm:num_requests_waiting" in load["metadata"]["query"]
    assert wake["name"] == "wake" and wake["type"] == "prometheus" and wake["metricType"] == "AverageValue"
    # 1 while in demand, over a threshold of 1 a replica: it wakes the model and never asks for a second replica.
    assert wake["metadata"] | {} == {
        "serverAddress": "http://prometheus-operated.monitoring.svc:9090",
        "query": wake_query("serving", "mistral-7b"),
        "threshold": "1",
        "activationThreshold": "0",
    }
    # The series it reads are the picker's own, as its PodMonitor labels them (job = <namespace>/<monitor>).
    monitor = _named(plan, "kubernetes:monitoring.coreos.com/v1:PodMonitor", "mistral-7b-epp")
    assert f'job="{monitor["metadata"]["namespace"]}/{monitor["metadata"]["name"]}"' in wake["metadata"]["query"]
    assert readiness_serving.check(plan.registrations) == []


@pytest.mark.parametrize(
    "drop, fragment",
    [
        ("trigger", "no trigger reads the requests its endpoint picker refuses"),
        ("monitor", 'which no PodMonitor scrapes (job="serving/mistral-7b-epp")'),
    ],
)
def test_scale_to_zero_that_nothing_wakes_is_reported(plan_variant, drop, fragment):
    def change(type_, inputs):
        if drop == "trigger" and type_ == readiness_serving.SCALED_OBJECT:
            inputs["spec"]["triggers"] = inputs["spec"]["triggers"][:1]
        return not (drop == "monitor" and type_.endswith(":PodMonitor") and inputs["metadata"]["name"].endswith("-epp"))

    [found] = readiness_serving.check(_mutated(change, _at_zero(plan_variant)))
    # Issue #35 (f): a model nothing wakes never serves again once at zero: blocking.
    assert found.check == "serving-wake" and found.level == "blocking" and fragment in found.message and found.fix


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
