"""Probe how acceptance/gpu_check.py's measurements behave on a real GPU: sizes, warm-up, timing method, clocks.

Why: the check's kernels were written on a CPU. This prints, for one GPU, what each kernel reads at several
sizes, with the check's own timing (one warm-up call, host timer, sync per call) beside CUDA events over a
batch after a sustained warm-up, so a size or method that misreads shows up as a gap. Prints JSON lines.

    python benchmarks/gpu_check_probe.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time


def smi(query: str) -> str:
    run = subprocess.run(
        ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"], capture_output=True, text=True
    )
    return run.stdout.strip()


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def host_timed(torch, fn, repeats: int) -> float:
    """The check's method: one warm-up call, then host timer around each call plus a sync; median."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def event_timed(torch, fn, batch: int, rounds: int, warm_seconds: float) -> float:
    """Sustained warm-up, then CUDA events around a batch of calls; median seconds per call over rounds."""
    end = time.perf_counter() + warm_seconds
    while time.perf_counter() < end:
        fn()
        torch.cuda.synchronize()
    per_call = []
    for _ in range(rounds):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(batch):
            fn()
        stop.record()
        stop.synchronize()
        per_call.append(start.elapsed_time(stop) / 1e3 / batch)
    return statistics.median(per_call)


def probe_matmul(torch) -> None:
    for dtype in (torch.bfloat16, torch.float16):
        for edge in (1024, 2048, 4096, 8192, 16384):
            a = torch.randn(edge, edge, device="cuda", dtype=dtype)
            b = torch.randn(edge, edge, device="cuda", dtype=dtype)
            flops = 2 * edge**3
            cold = host_timed(torch, lambda: torch.matmul(a, b), 20)
            warm = event_timed(torch, lambda: torch.matmul(a, b), max(5, int(2e13 // flops)), 5, 1.0)
            emit(
                probe="matmul",
                dtype=str(dtype),
                edge=edge,
                host_timer_tflops=round(flops / cold / 1e12, 1),
                events_tflops=round(flops / warm / 1e12, 1),
                clocks_sm=smi("clocks.sm"),
            )
    torch.cuda.empty_cache()


def probe_memory(torch) -> None:
    for mib in (64, 256, 1024, 2048, 4096):
        nbytes = mib << 20
        src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        cold = host_timed(torch, lambda: dst.copy_(src), 20)
        warm = event_timed(torch, lambda: dst.copy_(src), 20, 5, 0.5)
        emit(
            probe="memory_copy",
            mib=mib,
            host_timer_gbps=round(2 * nbytes / cold / 1e9, 1),
            events_gbps=round(2 * nbytes / warm / 1e9, 1),
        )
    torch.cuda.empty_cache()


def probe_host(torch) -> None:
    for mib in (64, 256, 1024):
        nbytes = mib << 20
        dev = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        for pinned in (True, False):
            host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=pinned)
            h2d = host_timed(torch, lambda: dev.copy_(host, non_blocking=pinned), 10)
            d2h = host_timed(torch, lambda: host.copy_(dev, non_blocking=pinned), 10)
            emit(
                probe="host_link",
                mib=mib,
                pinned=pinned,
                h2d_gbps=round(nbytes / h2d / 1e9, 2),
                d2h_gbps=round(nbytes / d2h / 1e9, 2),
            )
    torch.cuda.empty_cache()


def probe_sustained(torch, seconds: float) -> None:
    """bf16 8192^3 back to back: TFLOPS, SM clock, power and temperature every second (throttling shows here)."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    flops = 2 * 8192**3
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(100):
            torch.matmul(a, b)
        stop.record()
        stop.synchronize()
        emit(
            probe="sustained",
            t=round(time.perf_counter() - began, 2),
            tflops=round(100 * flops / (start.elapsed_time(stop) / 1e3) / 1e12, 1),
            sm_clock_power_temp=smi("clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active"),
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the sustained matmul probe")
    args = parser.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("error: no CUDA device", file=sys.stderr)
        return 3
    emit(probe="idle", clocks=smi("clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,pstate"))
    probe_matmul(torch)
    probe_memory(torch)
    probe_host(torch)
    probe_sustained(torch, args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
