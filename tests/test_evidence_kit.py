"""The evidence kit (`python -m blueprints conformance`, blueprints/evidence), run against a fake Kubernetes API
server on 127.0.0.1 (tests/fake_kube.py) that answers as a working cluster does, or gets one MUST item wrong."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from blueprints.cli import main
from blueprints.evidence import items as demos
from blueprints.evidence.target import load_target
from blueprints.stackconfig import ROOT, available_stacks
from catalog.ai_conformance import checklist
from fake_kube import FakeCluster, serve

DATA = Path(__file__).resolve().parent / "data" / "ai_conformance"
MUST_135 = [i.id for i in checklist("1.35").items if i.level == "MUST"]
MANAGED = "blueprints-conformance"
FAST = ["--poll", "0.01", "--timeout", "0.5", "--scale-timeout", "0.5"]


@pytest.fixture
def cluster_at(tmp_path):
    servers = []

    def start(broken=frozenset()):
        cluster = FakeCluster(frozenset(broken))
        server = serve(cluster)
        servers.append(server)
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "current-context": "test",
                    "contexts": [{"name": "test", "context": {"cluster": "fake", "user": "kit"}}],
                    "clusters": [{"name": "fake", "cluster": {"server": f"http://127.0.0.1:{server.server_port}"}}],
                    "users": [{"name": "kit", "user": {"token": "t0ken"}}],
                }
            )
        )
        return cluster, kubeconfig

    yield start
    for server in servers:
        server.shutdown()


def kit(capsys, kubeconfig, out, stack="startup-serving"):
    code = main(["conformance", "--stack", stack, "--kubeconfig", str(kubeconfig), "--out", str(out), *FAST])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_must_item_shown_with_evidence_and_nothing_left(cluster_at, tmp_path, capsys):
    cluster, kubeconfig = cluster_at()
    code, out, err = kit(capsys, kubeconfig, tmp_path / "out")
    assert code == 0, out + err
    for n, item in enumerate(MUST_135, 1):  # progress per item, in order, each shown
        assert re.search(rf"^\[\d/9\] {item}: shown \(", out, re.MULTILINE), out
    assert cluster.labelled() == []  # cleaned up
    assert ("DELETE", "/api/v1/namespaces/ai-conformance") in cluster.requests
    run = yaml.safe_load((tmp_path / "out" / "run.yaml").read_text())
    assert run["items"] == dict.fromkeys(demos.DEMONSTRATIONS, "shown") and "Namespace ai-conformance" in run["cleanup"]
    assert [a["manifest"]["kind"] for a in run["preparation"]["applied"]] == ["Namespace"]
    for item in MUST_135:
        evidence = yaml.safe_load((tmp_path / "out" / "evidence" / f"{item}.yaml").read_text())
        assert evidence["status"] == "shown" and evidence["started"] and evidence["finished"]
        assert evidence["observed"] and all(
            re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", o["at"]) for o in evidence["observed"]
        )


def test_the_pod_without_a_request_sees_no_gpu_recorded(cluster_at, tmp_path, capsys):
    _, kubeconfig = cluster_at()
    assert kit(capsys, kubeconfig, tmp_path)[0] == 0
    evidence = yaml.safe_load((tmp_path / "evidence" / "secure_accelerator_access.yaml").read_text())
    [bare] = [a["manifest"] for a in evidence["applied"] if a["manifest"]["metadata"]["name"] == "gpu-not-requested"]
    container = bare["spec"]["containers"][0]
    assert {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"} in container["env"]
    assert "nvidia.com/gpu" not in container["resources"]["limits"]
    assert bare["spec"]["nodeSelector"] == {"gpu-blueprints/node-group": "gpu"}  # on a GPU node
    logs = {o["what"].split(" ")[2]: o["value"] for o in evidence["observed"] if o["what"].startswith("log of")}
    assert logs["gpu-requested"].startswith("GPU 0:")
    assert "GPU 0" not in logs["gpu-not-requested"] and "/dev/nvidia0" not in logs["gpu-not-requested"]


@pytest.mark.parametrize("item", MUST_135)
def test_a_broken_item_exits_1_naming_it(cluster_at, tmp_path, capsys, item):
    cluster, kubeconfig = cluster_at(broken={item})
    code, out, _ = kit(capsys, kubeconfig, tmp_path)
    assert code == 1
    assert f"] {item}: FAILED" in out
    assert re.search(rf"^not shown: {item} \(see ", out, re.MULTILINE), out
    others = [i for i in MUST_135 if i != item]
    assert all(f"] {i}: shown" in out for i in others)
    product = yaml.safe_load((tmp_path / "PRODUCT.yaml").read_text())
    status = {e["id"]: e["status"] for area in product["spec"].values() for e in area}
    assert status[item] == "Not Implemented" and all(status[i] == "Implemented" for i in others)
    assert cluster.labelled() == []


def test_a_wait_is_bounded(cluster_at, tmp_path, capsys):
    _, kubeconfig = cluster_at(broken={"pod_autoscaling"})
    code, out, _ = kit(capsys, kubeconfig, tmp_path)
    assert code == 1
    assert re.search(
        r"pod_autoscaling: FAILED \(\d+s\): the HPA scales on vllm:num_requests_waiting: not within 0.5s", out
    )


def test_a_leftover_that_does_not_go_stops_the_run_before_any_item(cluster_at, tmp_path, capsys):
    cluster, kubeconfig = cluster_at(broken={"stuck"})
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ai-conformance"}}
    cluster.handle("PATCH", "/api/v1/namespaces/ai-conformance", {}, json.dumps(namespace).encode())
    code, out, _ = kit(capsys, kubeconfig, tmp_path)
    assert code == 1
    assert "error: setup: what an earlier run left is gone: not within 0.5s; last seen: " in out
    assert "running" not in out and "not shown: " + ", ".join(demos.DEMONSTRATIONS) in out
    assert cluster.applied == [namespace]  # the kit applied nothing
    evidence = yaml.safe_load((tmp_path / "evidence" / "gang_scheduling.yaml").read_text())
    assert evidence["status"] == "not run" and evidence["summary"].startswith("not run: setup failed: ")


def test_a_rerun_replaces_what_an_earlier_run_left(cluster_at, tmp_path, capsys, monkeypatch):
    cluster, kubeconfig = cluster_at()

    def interrupted(ctx, rec):
        raise KeyboardInterrupt

    monkeypatch.setitem(demos.DEMONSTRATIONS, "pod_autoscaling", interrupted)
    code, out, _ = kit(capsys, kubeconfig, tmp_path)
    assert code == 1 and "interrupted: cleaning up" in out
    assert re.search(r"^interrupted; not shown: .*pod_autoscaling", out, re.MULTILINE)
    assert cluster.labelled() == []  # Ctrl-C still cleans up
    monkeypatch.undo()
    # what a killed run left (a labelled route in the serving namespace) is removed before the run
    left = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "old-route", "namespace": "serving", "labels": {"app.kubernetes.io/managed-by": MANAGED}},
        "spec": {"parentRefs": [{"name": "inference"}]},
    }
    cluster.handle(
        "PATCH",
        "/apis/gateway.networking.k8s.io/v1/namespaces/serving/httproutes/old-route",
        {},
        json.dumps(left).encode(),
    )
    code, out, _ = kit(capsys, kubeconfig, tmp_path)
    assert code == 0, out
    assert "removed what an earlier run left: HTTPRoute serving/old-route" in out
    assert cluster.labelled() == []


@pytest.mark.parametrize("stack", available_stacks())
def test_every_applied_manifest_validates_against_the_pinned_schemas(cluster_at, tmp_path, capsys, stack):
    from kube_schema import crd_schema, validate_builtin, validate_custom

    cluster, kubeconfig = cluster_at()
    code, out, _ = kit(capsys, kubeconfig, tmp_path, stack)
    serving = load_target(stack).serving_namespace is not None
    assert (code, "ai_inference: FAILED" in out) == ((0, False) if serving else (1, True)), out
    kinds = set()
    for obj in cluster.applied:
        kinds.add((obj["apiVersion"], obj["kind"]))
        schema = crd_schema(obj["apiVersion"], obj["kind"]) if "." in obj["apiVersion"].split("/")[0] else None
        report = validate_custom(obj, schema, "1.35") if schema else validate_builtin(obj, "1.35")
        assert report.failures == [], (obj["kind"], obj["metadata"]["name"], report.failures)
    # every kind the kit applies was judged: a custom resource by its pinned CRD, the rest as built-ins
    assert kinds | ({("gateway.networking.k8s.io/v1", "HTTPRoute"), ("v1", "Service")} if not serving else set()) == {
        ("v1", "Namespace"),
        ("v1", "Pod"),
        ("v1", "Service"),
        ("apps/v1", "Deployment"),
        ("batch/v1", "Job"),
        ("autoscaling/v2", "HorizontalPodAutoscaler"),
        ("gateway.networking.k8s.io/v1", "HTTPRoute"),
        ("monitoring.coreos.com/v1", "PodMonitor"),
        ("jobset.x-k8s.io/v1alpha2", "JobSet"),
    }
    for api_version, kind in kinds:
        if "." in api_version.split("/")[0]:
            assert crd_schema(api_version, kind) is not None, kind


def test_product_draft_has_the_upstream_shape(cluster_at, tmp_path, capsys):
    _, kubeconfig = cluster_at()
    assert kit(capsys, kubeconfig, tmp_path)[0] == 0
    text = (tmp_path / "PRODUCT.yaml").read_text()
    mine = yaml.safe_load(text)
    accepted = yaml.safe_load((DATA / "accepted" / "v1.35" / "eks" / "PRODUCT.yaml").read_text())
    template = yaml.safe_load((DATA / "AIConformance-1.35.yaml").read_text())
    assert text.startswith("# Kubernetes AI Conformance Checklist\n")
    assert list(mine) == list(accepted) == ["metadata", "spec"]
    assert list(mine["metadata"]) == list(accepted["metadata"])
    assert mine["metadata"]["kubernetesVersion"] == "v1.35" and mine["metadata"]["platformVersion"] == "v1.35.2-eks.9"
    assert list(mine["spec"]) == list(template["spec"])
    for area, entries in template["spec"].items():
        assert [(e["id"], e["description"], e["level"]) for e in mine["spec"][area]] == [
            (e["id"], e["description"], e["level"]) for e in entries
        ]
        for entry, theirs in zip(mine["spec"][area], accepted["spec"][area]):
            assert list(entry) == list(theirs)
            if entry["level"] == "MUST":  # a local evidence file, as scripts/validate.go accepts, that exists
                assert entry["status"] == "Implemented" and entry["notes"]
                assert [(tmp_path / e).is_file() for e in entry["evidence"]] == [True]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--stack", "nope", "--kubeconfig", "KC"], "error: --stack: no stack 'nope' in stacks/; one of: "),
        (["--stack", "startup-serving"], "error: usage: the following arguments are required: --kubeconfig"),
        (["--stack", "startup-serving", "--kubeconfig", "missing"], "error: --kubeconfig: "),
        (["--stack", "startup-serving", "--kubeconfig", "EMPTY"], "current-context: the context to use"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, message):
    (tmp_path / "KC").write_text("apiVersion: v1\n")
    (tmp_path / "EMPTY").write_text("apiVersion: v1\nkind: Config\n")
    argv = [str(tmp_path / a) if a in ("KC", "EMPTY", "missing") else a for a in argv]
    assert main(["conformance", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_sigterm_mid_item_cleans_up_and_exits_1(cluster_at, tmp_path):
    cluster, kubeconfig = cluster_at(broken={"pod_autoscaling"})  # its wait goes on until the signal
    argv = ["conformance", "--stack", "startup-serving", "--kubeconfig", str(kubeconfig), "--out", str(tmp_path)]
    argv += ["--poll", "0.05", "--timeout", "60", "--scale-timeout", "60"]
    child = subprocess.Popen(
        [sys.executable, "-m", "blueprints", *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines = []
    try:
        for line in child.stdout:
            lines.append(line)
            if "pod_autoscaling: running" in line:
                child.send_signal(signal.SIGTERM)
                break
        out = "".join(lines) + child.stdout.read()
        assert child.wait(timeout=60) == 1, out + child.stderr.read()
    finally:
        child.kill()
    assert "interrupted: cleaning up" in out and "Traceback" not in out
    assert re.search(r"^interrupted; not shown: pod_autoscaling, ai_inference, robust_controller, cluster_autoscaling",
                     out, re.MULTILINE), out  # fmt: skip
    assert cluster.labelled() == []
    assert yaml.safe_load((tmp_path / "run.yaml").read_text())["items"]["pod_autoscaling"] == "not run"
