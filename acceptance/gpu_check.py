"""Measure what a GPU node delivers against its spec; print a summary, write a JSON report, exit 0/1.

Standalone on purpose: it runs in a pod with only PyTorch (the Kubernetes layer mounts this file from
a ConfigMap), so it imports nothing from the project. The expectation comes as JSON (``--expect``):
GPU model and count, per-GPU figures (null where the vendor publishes none), and the fraction of each
figure a node must reach. ``--size tiny`` runs the same code path on the CPU in seconds (tests, CI).

Exit codes: 0 every judged check passed, 1 a check failed, 2 bad input, 3 the node cannot run it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Optional

REPORT_FORMAT_VERSION = 1
EXIT_PASS, EXIT_FAIL, EXIT_BAD_INPUT, EXIT_UNRUNNABLE = 0, 1, 2, 3
DEFAULT_THRESHOLDS = {"matmul": 0.70, "memory": 0.75, "host_link": 0.50, "allreduce": 0.60}
SIZES = {  # matmul edge, memory bytes, host-link bytes, all-reduce bytes, timed repeats
    "tiny": {"matmul": 256, "memory": 8 << 20, "host": 8 << 20, "allreduce": 4 << 20, "repeats": 3},
    "full": {"matmul": 8192, "memory": 2 << 30, "host": 1 << 30, "allreduce": 1 << 30, "repeats": 20},
}


class BadInput(Exception):
    pass


@dataclass
class Check:
    name: str
    status: str  # pass | fail | info | skip
    value: Optional[float] = None
    unit: str = ""
    spec: Optional[float] = None
    ratio: Optional[float] = None
    threshold: Optional[float] = None
    detail: str = ""


@dataclass
class Expectation:
    gpu_model: str
    gpu_count: int
    bf16_tflops: Optional[float] = None
    fp16_tflops: Optional[float] = None
    memory_gbps: Optional[float] = None
    host_link_gbps: Optional[float] = None
    gpu_link_gbps: Optional[float] = None
    thresholds: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_THRESHOLDS))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Expectation":
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise BadInput(f"expectation: unknown fields {sorted(unknown)}; allowed: {sorted(known)}")
        if not isinstance(data.get("gpu_model"), str) or not isinstance(data.get("gpu_count"), int):
            raise BadInput("expectation: gpu_model (string) and gpu_count (integer) are required")
        thresholds = {**DEFAULT_THRESHOLDS, **(data.get("thresholds") or {})}
        bad = {k: v for k, v in thresholds.items() if k not in DEFAULT_THRESHOLDS or not 0 <= v <= 1}
        if bad:
            raise BadInput(f"expectation: thresholds must be fractions 0..1 for {sorted(DEFAULT_THRESHOLDS)}, got {bad}")
        return cls(**{**data, "thresholds": thresholds})


def _sig(x: float) -> float:
    """Four significant figures: TFLOPS on a CPU and GB/s on an H100 both stay readable."""
    return float(f"{x:.4g}")


def judged(name: str, value: float, unit: str, spec: Optional[float], threshold: float, detail: str = "") -> Check:
    """Pass when value >= threshold x spec; without a spec the figure is reported, not judged."""
    if spec is None:
        return Check(name, "info", _sig(value), unit, detail=detail or "no published spec to judge against")
    ratio = value / spec
    return Check(name, "pass" if ratio >= threshold else "fail", _sig(value), unit, spec, _sig(ratio),
                 threshold, detail)


def _timed(fn: Callable[[], None], repeats: int, sync: Callable[[], None]) -> float:
    """Median seconds of ``fn`` after one warm-up call."""
    fn()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def matmul_tflops(torch, device: str, dtype, edge: int, repeats: int, sync) -> float:
    a = torch.randn(edge, edge, device=device, dtype=dtype)
    b = torch.randn(edge, edge, device=device, dtype=dtype)
    seconds = _timed(lambda: torch.matmul(a, b), repeats, sync)
    return 2 * edge ** 3 / seconds / 1e12


def memory_gbps(torch, device: str, nbytes: int, repeats: int, sync) -> float:
    """Device-to-device copy: each byte is read once and written once."""
    src = torch.empty(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    seconds = _timed(lambda: dst.copy_(src), repeats, sync)
    return 2 * nbytes / seconds / 1e9


def host_link_gbps(torch, device: str, nbytes: int, repeats: int, sync) -> tuple[float, float]:
    """Host-to-device and device-to-host copies from pinned memory."""
    pin = device != "cpu"
    host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=pin)
    dev = torch.empty(nbytes, dtype=torch.uint8, device=device)
    h2d = _timed(lambda: dev.copy_(host, non_blocking=pin), repeats, sync)
    d2h = _timed(lambda: host.copy_(dev, non_blocking=pin), repeats, sync)
    return nbytes / h2d / 1e9, nbytes / d2h / 1e9


def _allreduce_worker(rank: int, world: int, backend: str, nbytes: int, repeats: int, init: str, out: str) -> None:
    import torch
    import torch.distributed as dist

    dist.init_process_group(backend, init_method=init, rank=rank, world_size=world)
    device = f"cuda:{rank}" if backend == "nccl" else "cpu"
    if backend == "nccl":
        torch.cuda.set_device(rank)
    tensor = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    sync = torch.cuda.synchronize if backend == "nccl" else (lambda: None)
    seconds = _timed(lambda: dist.all_reduce(tensor), repeats, lambda: (sync(), dist.barrier()))
    if rank == 0:
        algbw = nbytes / seconds / 1e9
        with open(out, "w", encoding="utf-8") as handle:
            json.dump({"algbw": algbw, "busbw": algbw * 2 * (world - 1) / world, "seconds": seconds}, handle)
    dist.destroy_process_group()


def allreduce_busbw(torch, world: int, backend: str, nbytes: int, repeats: int) -> dict[str, float]:
    """All-reduce across ``world`` local processes; bus bandwidth as nccl-tests defines it."""
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as tmp:
        init = f"file://{tmp}/rendezvous"
        out = os.path.join(tmp, "result.json")
        mp.spawn(_allreduce_worker, args=(world, backend, nbytes, repeats, init, out), nprocs=world, join=True)
        with open(out, encoding="utf-8") as handle:
            return json.load(handle)


def nvidia_smi_health() -> list[Check]:
    """ECC and row-remapping state per GPU, and XID errors in the kernel log where it can be read."""
    if shutil.which("nvidia-smi") is None:
        return [Check("ecc", "skip", detail="nvidia-smi not found"), Check("xid", "skip", detail="nvidia-smi not found")]
    query = "index,ecc.errors.uncorrected.volatile.total,remapped_rows.pending,remapped_rows.failure"
    run = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, timeout=60)
    bad = []
    for line in run.stdout.strip().splitlines():
        index, ecc, pending, failure = [c.strip() for c in line.split(",")]
        if ecc not in ("0", "[N/A]", "N/A") or pending.lower() in ("yes", "1") or failure.lower() in ("yes", "1"):
            bad.append(f"GPU {index}: uncorrected ECC {ecc}, remap pending {pending}, remap failure {failure}")
    checks = [Check("ecc", "fail" if bad else "pass", detail="; ".join(bad) or "no uncorrected errors, no pending remaps")]
    try:
        log = subprocess.run(["dmesg", "--level=err,warn"], capture_output=True, text=True, timeout=30)
        xids = [line for line in log.stdout.splitlines() if "NVRM: Xid" in line]
        if log.returncode != 0:
            checks.append(Check("xid", "skip", detail="kernel log not readable here"))
        else:
            checks.append(Check("xid", "fail" if xids else "pass", value=len(xids), detail="; ".join(xids[-3:])))
    except (OSError, subprocess.TimeoutExpired):
        checks.append(Check("xid", "skip", detail="dmesg unavailable"))
    return checks


def run_checks(expect: Expectation, size: str, device: str) -> dict[str, Any]:
    import torch

    started = time.time()
    sizes = SIZES[size]
    t = expect.thresholds
    checks: list[Check] = []
    on_gpu = device == "cuda"
    sync = torch.cuda.synchronize if on_gpu else (lambda: None)
    if on_gpu:
        count = torch.cuda.device_count()
        names = sorted({torch.cuda.get_device_name(i) for i in range(count)})
        model_ok = all(expect.gpu_model.split("-")[0].lower() in n.lower() for n in names)
        checks.append(Check("gpu_count", "pass" if count == expect.gpu_count else "fail", count, "GPUs",
                            expect.gpu_count, detail=", ".join(names)))
        checks.append(Check("gpu_model", "pass" if model_ok else "fail", detail=f"expected {expect.gpu_model}, "
                                                                                 f"found {', '.join(names)}"))
        target = "cuda:0"
    else:
        count = 0
        checks.append(Check("gpu_count", "skip", detail="running on the CPU"))
        target = "cpu"
    for name, dtype, spec in (("matmul_bf16", torch.bfloat16, expect.bf16_tflops),
                              ("matmul_fp16", torch.float16, expect.fp16_tflops)):
        value = matmul_tflops(torch, target, dtype, sizes["matmul"], sizes["repeats"], sync)
        checks.append(judged(name, value, "TFLOPS", spec, t["matmul"], f"{sizes['matmul']}^3 on {target}"))
    checks.append(judged("memory_bandwidth", memory_gbps(torch, target, sizes["memory"], sizes["repeats"], sync),
                         "GB/s", expect.memory_gbps, t["memory"], f"{sizes['memory'] >> 20} MiB copy on {target}"))
    h2d, d2h = host_link_gbps(torch, target, sizes["host"], sizes["repeats"], sync)
    checks.append(judged("host_to_device", h2d, "GB/s", expect.host_link_gbps if on_gpu else None, t["host_link"]))
    checks.append(judged("device_to_host", d2h, "GB/s", expect.host_link_gbps if on_gpu else None, t["host_link"]))
    world = count if on_gpu else 2
    if on_gpu and count < 2:
        checks.append(Check("allreduce_busbw", "skip", detail="one GPU: nothing to all-reduce across"))
    else:
        backend = "nccl" if on_gpu else "gloo"
        result = allreduce_busbw(torch, world, backend, sizes["allreduce"], sizes["repeats"])
        spec = expect.gpu_link_gbps if on_gpu else None
        checks.append(judged("allreduce_busbw", result["busbw"], "GB/s", spec, t["allreduce"],
                             f"{backend}, {world} ranks, {sizes['allreduce'] >> 20} MiB"))
    checks += nvidia_smi_health() if on_gpu else [Check("ecc", "skip", detail="running on the CPU"),
                                                  Check("xid", "skip", detail="running on the CPU")]
    failed = [c.name for c in checks if c.status == "fail"]
    return {
        "formatVersion": REPORT_FORMAT_VERSION,
        "node": os.environ.get("NODE_NAME") or platform.node(),
        "device": device,
        "size": size,
        "torch": torch.__version__,
        "expected": asdict(expect),
        "checks": [asdict(c) for c in checks],
        "failed": failed,
        "passed": not failed,
        "durationSeconds": round(time.time() - started, 2),
    }


def summary(report: dict[str, Any]) -> str:
    lines = [f"GPU acceptance on {report['node']} ({report['device']}, {report['size']}): "
             f"{'PASS' if report['passed'] else 'FAIL'} in {report['durationSeconds']} s"]
    for c in report["checks"]:
        figure = f"{c['value']} {c['unit']}".strip() if c["value"] is not None else ""
        against = f" = {c['ratio']:.0%} of {c['spec']} (needs {c['threshold']:.0%})" if c["ratio"] is not None else ""
        lines.append(f"  [{c['status']:>4}] {c['name']:<18} {figure}{against}  {c['detail']}".rstrip())
    return "\n".join(lines)


# New GPU nodes join with this startup taint (the Cluster Autoscaler treats the prefix as a startup taint, so it
# still counts the node as coming capacity); the check removes it when the node passes. A failed node gets
# FAILED_TAINT instead: running pods that do not tolerate it are evicted, new ones never land there.
GATE_TAINT_KEY = "startup-taint.cluster-autoscaler.kubernetes.io/gpu-acceptance"
FAILED_TAINT = {"key": "gpu-blueprints/acceptance", "value": "failed", "effect": "NoExecute"}
LABEL = "gpu-blueprints/acceptance"
REASON_ANNOTATION = "gpu-blueprints/acceptance-reason"


def gated_taints(current: list[dict[str, Any]], passed: bool) -> list[dict[str, Any]]:
    """The node's taints after the verdict: the gate goes; a failure adds the NoExecute taint (once)."""
    kept = [t for t in current if t.get("key") not in (GATE_TAINT_KEY, FAILED_TAINT["key"])]
    return kept if passed else [*kept, dict(FAILED_TAINT)]


def failure_reason(report: dict[str, Any]) -> str:
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    return "; ".join(f"{c['name']}: {c['detail'] or c['value']}" for c in failed)[:1000]


def node_patch(node: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    """A merge patch with the verdict label, the reason and the new taints (lists are replaced whole)."""
    passed = report["passed"]
    return {"metadata": {"labels": {LABEL: "passed" if passed else "failed"},
                         "annotations": {REASON_ANNOTATION: "" if passed else failure_reason(report)}},
            "spec": {"taints": gated_taints((node.get("spec") or {}).get("taints") or [], passed)}}


def label_node(report: dict[str, Any]) -> str:
    """Record the verdict on this node through the API server with the pod's service account (in-cluster only)."""
    import ssl
    import urllib.request

    node = os.environ.get("NODE_NAME")
    token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token"
    if not node or not os.path.exists(token_file):
        return "not labelled: not running in a cluster"
    url = f"https://{os.environ['KUBERNETES_SERVICE_HOST']}:{os.environ['KUBERNETES_SERVICE_PORT']}/api/v1/nodes/{node}"
    auth = {"Authorization": "Bearer " + open(token_file, encoding="utf-8").read().strip()}
    context = ssl.create_default_context(cafile="/var/run/secrets/kubernetes.io/serviceaccount/ca.crt")
    with urllib.request.urlopen(urllib.request.Request(url, headers=auth), context=context, timeout=30) as response:
        current = json.load(response)
    body = json.dumps(node_patch(current, report)).encode()
    request = urllib.request.Request(url, data=body, method="PATCH",
                                     headers={**auth, "Content-Type": "application/merge-patch+json"})
    with urllib.request.urlopen(request, context=context, timeout=30) as response:
        verdict = "passed" if report["passed"] else "failed"
        return f"labelled {node} {LABEL}={verdict}, gate {'lifted' if report['passed'] else 'kept shut'} ({response.status})"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expect", required=True, help="expectation JSON file (or - for stdin)")
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto")
    parser.add_argument("--report", help="write the JSON report here")
    parser.add_argument("--benchmark", action="store_true", help="print achieved/spec ratios as JSON on stdout")
    parser.add_argument("--label-node", action="store_true", help="label the node passed/failed (in a cluster)")
    try:
        args = parser.parse_args(argv)
        raw = sys.stdin.read() if args.expect == "-" else open(args.expect, encoding="utf-8").read()
        expect = Expectation.from_json(json.loads(raw))
    except SystemExit as exit_:
        return EXIT_BAD_INPUT if exit_.code else EXIT_PASS
    except (OSError, ValueError, BadInput, TypeError) as error:
        print(f"error: {error}".replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        import torch
    except ImportError:
        print("error: PyTorch is not installed on this node", file=sys.stderr)
        return EXIT_UNRUNNABLE
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    if device == "cuda" and not torch.cuda.is_available():
        print("error: --device cuda but no CUDA device is visible", file=sys.stderr)
        return EXIT_UNRUNNABLE
    report = run_checks(expect, args.size, device)
    print(summary(report), file=sys.stderr)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
    if args.benchmark:
        print(json.dumps({c["name"]: {"value": c["value"], "unit": c["unit"], "ratio": c["ratio"]}
                          for c in report["checks"] if c["value"] is not None} | {
                             "durationSeconds": report["durationSeconds"]}, indent=2))
    if args.label_node:
        print(label_node(report), file=sys.stderr)
    return EXIT_PASS if report["passed"] else EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
