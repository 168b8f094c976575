"""serving.models: bad input gets one line naming the field and what is allowed, exit 2 (issue #25)."""

import pytest

from blueprints.serving_spec import ModelSpec, fit_problem, replica_fit_of
from conftest import one_line, run_cli, shipped_cluster, write_stack

BASE = "startup-serving"


def _plan_with(tmp_path, mutate):
    cluster = shipped_cluster(BASE)
    mutate(cluster)
    write_stack(tmp_path, "bad", cluster)
    return run_cli("plan", "--stack", "bad", "--stacks-dir", str(tmp_path))


def _model(cluster):
    return cluster["serving"]["models"]["mistral-7b"]


def test_the_shipped_serving_stack_plans():
    assert run_cli("plan", "--stack", BASE).returncode == 0


@pytest.mark.parametrize(
    "mutate, fragments",
    [
        (
            lambda c: c["nodeGroups"]["gpu"].update(gpuModel="T4", minVcpus=8),  # 16 GB cannot hold 7B at fp16 + KV
            ("serving.models.mistral-7b", "needs 13.5 GiB of weights", "T4", "allowed: a smaller maxContext"),
        ),
        (
            lambda c: _model(c).update(tensorParallel=3),
            ("tensorParallel 3 does not divide mistral-7b's 32 attention heads", "allowed: 1, 2, 4, 8, 16"),
        ),
        (
            lambda c: _model(c).update(minReplicas=4, maxReplicas=2),
            ("minReplicas 4 is above maxReplicas 2", "0 <= minReplicas <= maxReplicas"),
        ),
        (
            lambda c: c["serving"].update(exposure={"mode": "internal", "allowedCidrs": ["0.0.0.0/0"]}),
            ("serving.exposure.allowedCidrs", "0.0.0.0/0 admits every address"),
        ),
        (
            lambda c: _model(c).update(weightsPrefix="s3://someone-elses-bucket/models/"),
            ("serving.models.mistral-7b.weightsPrefix", "not a prefix of the stack's bucket", "models/mistral-7b/"),
        ),
        (
            lambda c: _model(c).update(weightsPrefix="models/../secrets/"),
            ("weightsPrefix", "not a prefix of the stack's bucket"),
        ),
        (
            lambda c: _model(c).update(nodeGroup="nope"),
            ("serving.models.mistral-7b.nodeGroup", "'nope' is not a node group"),
        ),
        (
            lambda c: _model(c).update(signal="kv-cache", target=80),
            ("target 80 for kv-cache is a fraction from 0 to 1",),
        ),
        (lambda c: c["serving"].update(namespace="monitoring"), ("serving.namespace", "'monitoring' is already used")),
        # Issue #35 item 10: configurations that cannot work.
        (
            lambda c: c["serving"]["models"].update({"mistral-7b-epp": dict(_model(c))}),
            (
                "serving",
                "models.mistral-7b-epp: its objects",
                "Deployment mistral-7b-epp",
                "Service mistral-7b-epp",
                "ServiceAccount mistral-7b-epp",
                "PodMonitor mistral-7b-epp",
                "already declared by model mistral-7b",
            ),
        ),
        (
            lambda c: c["serving"]["models"].update({"inference-gateway": dict(_model(c))}),
            (
                "models.inference-gateway: its objects NetworkPolicy inference-gateway-callers",
                "the serving namespace (its Gateway",
            ),
        ),
        (
            lambda c: _model(c).update(minReplicas=100, maxReplicas=100),
            (
                "cluster.serving.models.mistral-7b.minReplicas",
                "take 100 GPUs",
                "holds 10 at maxNodes (10 x 1 L4)",
                "allowed: minReplicas summing to at most 10",
            ),
        ),
        (
            lambda c: (
                c["serving"]["models"].update({"second": {**_model(c), "minReplicas": 4}}),
                _model(c).update(minReplicas=7, maxReplicas=10),
            ),
            ("cluster.serving.models.mistral-7b.minReplicas", "take 11 GPUs (mistral-7b 7 x 1 + second 4 x 1)"),
        ),
        (lambda c: _model(c).update(target=1e308), ("serving.models.mistral-7b.target", "allowed: 0.001 to 9.22e+15")),
        (lambda c: _model(c).update(target=float("nan")), ("serving.models.mistral-7b.target",)),
        (lambda c: _model(c).update(target=float("inf")), ("serving.models.mistral-7b.target",)),
        (lambda c: _model(c).update(target=0.0001), ("serving.models.mistral-7b.target", "allowed: 0.001 to")),
        (
            lambda c: c["serving"].update(
                exposure={"mode": "internal", "allowedCidrs": ["0.0.0.0/1", "128.0.0.0/1"], "tls": {"secretName": "t"}}
            ),
            ("serving.exposure.allowedCidrs", "together admit every address (0.0.0.0/0)"),
        ),
        (
            lambda c: c.setdefault("kubernetes", {}).update(podAutoscaling={"enabled": False}),
            ("cluster.kubernetes.podAutoscaling.enabled", "served models scale through KEDA"),
        ),
    ],
)
def test_bad_serving_input_is_one_line(tmp_path, mutate, fragments):
    line = one_line(_plan_with(tmp_path, mutate))
    for fragment in fragments:
        assert fragment in line, line


def test_the_fit_reuses_the_sizing_memory_model():
    """Mistral 7B (32 layers, 8 KV heads x 128): KV = 2 x 32 x 1024 x 2 B per token = 128 KiB; 4096 x 8 = 4 GiB."""
    m = ModelSpec(model="mistral-7b", weights_prefix="models/m/", node_group="g", max_context=4096, max_batch=8)
    fit = replica_fit_of(m, 22.35)
    weights, kv = fit.weights_gib, fit.kv_gib
    assert round(weights, 2) == round(7.24e9 * 2 / 2**30, 2) and kv == pytest.approx(4.0)
    assert fit_problem("m", m, "L4", 22.35, "g6.xlarge") is None  # 17.5 <= 17.9 usable
    assert fit_problem("m", m, "T4", 14.57, "g4dn.xlarge") is not None
    assert fit_problem("m", m.model_copy(update={"tensor_parallel": 2}), "T4", 14.57, "g4dn.12xlarge") is None
