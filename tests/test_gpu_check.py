"""The acceptance check on the CPU with tiny sizes: report format, verdicts, exit codes, CLI errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acceptance import gpu_check
from blueprints.stackconfig import ROOT
from catalog import load_catalog
from catalog.gpu_models import acceptance_expectation, gpu_models
from conftest import shipped_plan

SCRIPT = ROOT / "acceptance" / "gpu_check.py"
CHECK_FIELDS = {"name", "status", "value", "unit", "spec", "ratio", "threshold", "detail"}
REPORT_FIELDS = {
    "formatVersion",
    "node",
    "device",
    "size",
    "torch",
    "cuda",
    "driver",
    "expected",
    "checks",
    "failed",
    "passed",
    "durationSeconds",
}


def _run(tmp_path: Path, expect: dict, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    (tmp_path / "expect.json").write_text(json.dumps(expect))
    report = tmp_path / "report.json"
    run = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--expect",
            str(tmp_path / "expect.json"),
            "--size",
            "tiny",
            "--device",
            "cpu",
            "--report",
            str(report),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return run, json.loads(report.read_text()) if report.exists() else {}


# One passing run serves the tests that read its report, summary and figures (each run starts PyTorch three times:
# the check and its two all-reduce ranks): H100 figures to be judged against, the matmul threshold at zero so the
# verdict passes on a CPU, and --benchmark for the ratios on stdout.
PASSING = {"gpu_model": "H100", "gpu_count": 8, "bf16_tflops": 989, "thresholds": {"matmul": 0.0}}


@pytest.fixture(scope="module")
def cpu_report(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("check"), PASSING, "--benchmark")


def test_report_format_is_what_docs_describe(cpu_report):
    run, report = cpu_report
    assert run.returncode == 0, run.stderr
    assert set(report) == REPORT_FIELDS and report["formatVersion"] == 1 and report["device"] == "cpu"
    names = [c["name"] for c in report["checks"]]
    assert names == [
        "gpu_count",
        "matmul_bf16",
        "matmul_fp16",
        "memory_bandwidth",
        "host_to_device",
        "device_to_host",
        "allreduce_busbw",
        "clock_throttle",
        "ecc",
        "xid",
    ]
    for check in report["checks"]:
        assert set(check) == CHECK_FIELDS and check["status"] in ("pass", "fail", "info", "skip")
    measured = {c["name"]: c for c in report["checks"] if c["value"] is not None}
    assert all(c["value"] > 0 for c in measured.values())
    assert measured["allreduce_busbw"]["detail"].startswith("gloo, 2 ranks")
    doc = (ROOT / "docs" / "acceptance-check.md").read_text()
    assert all(f"`{field}`" in doc for field in REPORT_FIELDS | CHECK_FIELDS)


def test_summary_names_every_check(cpu_report):
    run, report = cpu_report
    assert run.stderr.splitlines()[-len(report["checks"]) - 1].startswith("GPU acceptance on ")
    assert all(c["name"] in run.stderr for c in report["checks"])


def test_a_node_below_its_spec_fails_with_exit_1(tmp_path):
    # A CPU reaches nowhere near an H100's 989 TFLOPS: the judged checks fail and name themselves.
    run, report = _run(tmp_path, {"gpu_model": "H100", "gpu_count": 8, "bf16_tflops": 989, "memory_gbps": 3350})
    assert run.returncode == 1 and report["passed"] is False
    assert report["failed"] == ["matmul_bf16", "memory_bandwidth"]
    bf16 = next(c for c in report["checks"] if c["name"] == "matmul_bf16")
    assert (
        bf16["ratio"] == pytest.approx(bf16["value"] / 989, rel=1e-3)
        and bf16["threshold"] == gpu_check.DEFAULT_THRESHOLDS["matmul"]
    )


def test_thresholds_decide_the_verdict(cpu_report):
    # a CPU is far below 989 TFLOPS (test_a_node_below_its_spec_fails_with_exit_1); a zero threshold passes it
    run, report = cpu_report
    assert run.returncode == 0 and next(c for c in report["checks"] if c["name"] == "matmul_bf16")["status"] == "pass"


def test_benchmark_mode_prints_ratios(cpu_report):
    run, _ = cpu_report
    figures = json.loads(run.stdout)
    assert figures["matmul_bf16"]["ratio"] == pytest.approx(figures["matmul_bf16"]["value"] / 989, rel=1e-2)
    assert figures["durationSeconds"] > 0


@pytest.mark.parametrize(
    "expect, message",
    [
        ({"gpu_count": 8}, "gpu_model (string) and gpu_count (integer) are required"),
        ({"gpu_model": "H100", "gpu_count": 8, "tflops": 1}, "unknown fields ['tflops']"),
        ({"gpu_model": "H100", "gpu_count": 8, "thresholds": {"matmul": 1.5}}, "thresholds must be fractions"),
    ],
)
def test_bad_expectations_are_one_line_and_exit_2(tmp_path, expect, message):
    run, report = _run(tmp_path, expect)
    assert run.returncode == 2 and message in run.stderr and run.stderr.count("\n") == 1 and report == {}


def test_asking_for_cuda_without_a_gpu_exits_3(tmp_path):
    (tmp_path / "e.json").write_text(json.dumps({"gpu_model": "H100", "gpu_count": 8}))
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--expect", str(tmp_path / "e.json"), "--device", "cuda"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 3 and "no CUDA device" in run.stderr


def test_judging_rule():
    assert gpu_check.judged("x", 700, "TFLOPS", 989, 0.7).status == "pass"
    assert gpu_check.judged("x", 690, "TFLOPS", 989, 0.7).status == "fail"
    assert gpu_check.judged("x", 690, "TFLOPS", None, 0.7).status == "info"


def test_every_catalog_gpu_has_figures_with_a_source():
    sources, models = gpu_models()
    assert {s.gpu.model for s in load_catalog().shapes} <= set(models)
    assert all(m.source in sources for m in models.values())
    h100 = acceptance_expectation(load_catalog().get("p5.48xlarge"))
    assert (h100["bf16_tflops"], h100["memory_gbps"], h100["gpu_count"]) == (989, 3350, 8)


def test_the_kubernetes_layer_ships_this_script_and_the_shapes_expectation():
    plan = shipped_plan("enterprise-h100")
    [config] = [
        r.inputs
        for r in plan.registrations
        if r.type == "kubernetes:core/v1:ConfigMap" and r.inputs["metadata"]["name"] == "gpu-acceptance"
    ]
    assert config["data"]["gpu_check.py"] == SCRIPT.read_text()
    assert json.loads(config["data"]["expect-gpu.json"]) == acceptance_expectation(plan.resolved.node_groups[0].shape)
    [daemon_set] = [r.inputs for r in plan.registrations if r.type == "kubernetes:apps/v1:DaemonSet"]
    pod = daemon_set["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"gpu-blueprints/node-group": "gpu"}
    [term] = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [{"key": "gpu-blueprints/acceptance", "operator": "DoesNotExist"}]
    assert "nvidia.com/gpu" not in json.dumps(pod["containers"][0]["resources"])
    assert "--label-node" in pod["containers"][0]["command"][-1]
