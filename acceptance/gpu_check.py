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
# Fractions of the datasheet figure a node must reach: 10% below the weakest of five sustained runs on a healthy
# H100 SXM (docs/benchmarks.md, 2026-11-24; tests/test_gpu_check_hardware.py derives them from the recorded runs).
# All-reduce was not measured there (one GPU): 0.60 is the earlier default, unmeasured.
DEFAULT_THRESHOLDS = {"matmul": 0.58, "memory": 0.81, "host_link": 0.76, "allreduce": 0.60}
# matmul edge, memory bytes, host-link bytes, all-reduce bytes, timed repeats; and how long matmuls and copies run
# before timing starts (warm) and how long they are timed (window). Why seconds, not calls: an H100 runs its first
# half second of 8192^3 matmuls at boost clock, before the 700 W power cap bites, so a burst of 20 calls read
# 786 TFLOPS where the same GPU sustains about 710 (docs/benchmarks.md, 2026-11-24); and a node that throttles only
# when hot passes a burst.
SIZES = {
    "tiny": {"matmul": 256, "memory": 8 << 20, "host": 8 << 20, "allreduce": 4 << 20, "repeats": 3,
             "warm": 0.0, "window": 0.02},
    "full": {"matmul": 8192, "memory": 2 << 30, "host": 1 << 30, "allreduce": 1 << 30, "repeats": 20,
             "warm": 2.0, "window": 3.0},
}
BATCH_SECONDS = 0.1  # each timed batch holds about this much work, so launch and sync costs vanish in it
# NVML clock event (throttle) reasons (https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html):
# a bit set while the GPU works under load.
# The software power cap (0x4) is normal at full load; the others mean a hot or power-braked node.
THROTTLE_BITS = {0x4: "sw_power_cap", 0x8: "hw_slowdown", 0x20: "sw_thermal_slowdown", 0x40: "hw_thermal_slowdown",
                 0x80: "hw_power_brake_slowdown"}
THROTTLE_FAILS = 0x8 | 0x20 | 0x40 | 0x80


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
    """Median seconds of ``fn`` after one warm-up call (host links: each copy is long enough on its own)."""
    fn()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def sustained(fn: Callable[[], None], sync: Callable[[], None], warm: float, window: float,
              during: Callable[[], None] = lambda: None, clock: Callable[[], float] = time.perf_counter) -> float:
    """Median seconds per call over batches timed after ``warm`` seconds of the same work, for ``window`` seconds.

    A batch holds about BATCH_SECONDS of calls, queued back to back and synchronised once, so the figure is what
    the GPU sustains at its working clock, not a burst at boost clock. ``during`` runs while a batch is queued
    (the GPU busy): it samples the clock event reasons.
    """
    fn()
    sync()
    start = clock()
    fn()
    sync()
    batch = max(1, int(BATCH_SECONDS / max(clock() - start, 1e-9)))
    end = clock() + warm
    while clock() < end:
        for _ in range(batch):
            fn()
        sync()
    per_call: list[float] = []
    end = clock() + window
    while clock() < end or len(per_call) < 3:
        start = clock()
        for _ in range(batch):
            fn()
        during()
        sync()
        per_call.append((clock() - start) / batch)
    return sorted(per_call)[len(per_call) // 2]


def matmul_tflops(torch, device: str, dtype, edge: int, sizes: dict, sync, during=lambda: None) -> float:
    a = torch.randn(edge, edge, device=device, dtype=dtype)
    b = torch.randn(edge, edge, device=device, dtype=dtype)
    seconds = sustained(lambda: torch.matmul(a, b), sync, sizes["warm"], sizes["window"], during)
    return 2 * edge ** 3 / seconds / 1e12


def memory_gbps(torch, device: str, nbytes: int, sizes: dict, sync) -> float:
    """Device-to-device copy: each byte is read once and written once."""
    src = torch.empty(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    seconds = sustained(lambda: dst.copy_(src), sync, sizes["warm"] / 4, sizes["window"] / 3)
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


def smi_rows(query: str, runner: Callable[..., Any] = subprocess.run) -> tuple[list[list[str]], str]:
    """Rows of ``nvidia-smi --query-gpu``, or why there are none: a driver that does not know a field exits non-zero
    with a message and no rows, which must not read as "no errors"."""
    try:
        run = runner(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                     capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return [], f"nvidia-smi did not run: {error}"
    rows = [[c.strip() for c in line.split(",")] for line in run.stdout.strip().splitlines()]
    if run.returncode != 0 or not rows or any(len(row) != query.count(",") + 1 for row in rows):
        said = (run.stdout + run.stderr).strip().splitlines()
        return [], f"nvidia-smi --query-gpu={query} gave exit {run.returncode}: {said[0] if said else 'no output'}"
    return rows, ""


def ecc_check(runner: Callable[..., Any] = subprocess.run) -> Check:
    """Uncorrected ECC errors and row-remapping state per GPU ([N/A] where a GPU has no row remapping)."""
    rows, error = smi_rows("index,ecc.errors.uncorrected.volatile.total,remapped_rows.pending,remapped_rows.failure",
                           runner)
    if error:
        return Check("ecc", "skip", detail=error)
    bad = [f"GPU {index}: uncorrected ECC {ecc}, remap pending {pending}, remap failure {failure}"
           for index, ecc, pending, failure in rows
           if ecc not in ("0", "[N/A]", "N/A") or pending.lower() in ("yes", "1") or failure.lower() in ("yes", "1")]
    return Check("ecc", "fail" if bad else "pass", detail="; ".join(bad) or "no uncorrected errors, no pending remaps")


def xid_check(runner: Callable[..., Any] = subprocess.run) -> Check:
    """XID errors in the kernel log, every level read (the driver logs them as NVRM lines)."""
    try:
        log = runner(["dmesg"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return Check("xid", "skip", detail="dmesg unavailable")
    if log.returncode != 0:
        return Check("xid", "skip", detail="kernel log not readable here")
    xids = [line for line in log.stdout.splitlines() if "NVRM: Xid" in line]
    return Check("xid", "fail" if xids else "pass", value=len(xids), detail="; ".join(xids[-3:]))


class ThrottleSampler:
    """The clock event reasons seen while the matmuls run, read at most every half second."""

    def __init__(self, runner: Callable[..., Any] = subprocess.run, clock: Callable[[], float] = time.perf_counter):
        self.runner, self.clock = runner, clock
        self.seen, self.samples, self.error, self.last = 0, 0, "", float("-inf")
        self.fields = ("clocks_event_reasons.active", "clocks_throttle_reasons.active")

    def __call__(self) -> None:
        if self.clock() - self.last < 0.5:
            return
        self.last = self.clock()
        for name in self.fields:  # the name since driver 535 first, then the older one
            rows, error = smi_rows(name, self.runner)
            if not error:
                self.fields = (name,)
                break
        if error:
            self.error = error
            return
        for (mask,) in rows:
            self.seen |= int(mask, 16)
            self.samples += 1

    def check(self) -> Check:
        if not self.samples:
            return Check("clock_throttle", "skip", detail=self.error or "not sampled")
        reasons = ", ".join(name for bit, name in THROTTLE_BITS.items() if self.seen & bit) or "none"
        failed = self.seen & THROTTLE_FAILS
        return Check("clock_throttle", "fail" if failed else "pass",
                     detail=f"{reasons} in {self.samples} samples under load (mask {self.seen:#x})")


def _driver_version() -> Optional[str]:
    rows, _ = smi_rows("driver_version") if shutil.which("nvidia-smi") else ([], "")
    return rows[0][0] if rows else None


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
    throttle = ThrottleSampler() if on_gpu and shutil.which("nvidia-smi") else None
    for name, dtype, spec in (("matmul_bf16", torch.bfloat16, expect.bf16_tflops),
                              ("matmul_fp16", torch.float16, expect.fp16_tflops)):
        value = matmul_tflops(torch, target, dtype, sizes["matmul"], sizes, sync, throttle or (lambda: None))
        checks.append(judged(name, value, "TFLOPS", spec, t["matmul"],
                             f"{sizes['matmul']}^3, {sizes['window']:g} s after {sizes['warm']:g} s on {target}"))
    checks.append(judged("memory_bandwidth", memory_gbps(torch, target, sizes["memory"], sizes, sync),
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
    if not on_gpu:
        checks += [Check(name, "skip", detail="running on the CPU") for name in ("clock_throttle", "ecc", "xid")]
    elif throttle is None:
        checks += [Check(name, "skip", detail="nvidia-smi not found") for name in ("clock_throttle", "ecc", "xid")]
    else:
        checks += [throttle.check(), ecc_check(), xid_check()]
    failed = [c.name for c in checks if c.status == "fail"]
    return {
        "formatVersion": REPORT_FORMAT_VERSION,
        "node": os.environ.get("NODE_NAME") or platform.node(),
        "device": device,
        "size": size,
        "torch": torch.__version__,
        "cuda": torch.version.cuda if on_gpu else None,
        "driver": _driver_version() if on_gpu else None,
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
