"""Run the GPU acceptance check several times and print each figure's median, range and ratio to the datasheet.

    python benchmarks/gpu_acceptance.py --expect expect.json --runs 5 [--keep DIR]   # on a GPU node
    python benchmarks/gpu_acceptance.py --reports tests/data/gpu_check/h100-2026-11-24/sustained-*.json

Why a script: acceptance thresholds are set from measured distributions (docs/benchmarks.md), and the figures
must come from the check itself, run as the DaemonSet runs it, not from a separate kernel.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECK = Path(__file__).resolve().parents[1] / "acceptance" / "gpu_check.py"


def run_check(expect: str, keep: Path, index: int) -> tuple[dict, float]:
    report = keep / f"run-{index}.json"
    started = time.perf_counter()
    subprocess.run([sys.executable, str(CHECK), "--expect", expect, "--report", str(report)], check=False)
    return json.loads(report.read_text()), time.perf_counter() - started


def table(reports: list[dict], walls: list[float]) -> str:
    names = [c["name"] for c in reports[0]["checks"] if c["value"] is not None]
    first = reports[0]
    lines = [
        f"{len(reports)} runs; torch {first['torch']}, CUDA {first.get('cuda')}, driver {first.get('driver')}",
        f"{'check':<18} {'median':>10} {'min':>10} {'max':>10} {'unit':<7} {'datasheet':>10} {'ratio':>6}",
    ]
    for name in names:
        checks = [next(c for c in r["checks"] if c["name"] == name) for r in reports]
        values = [c["value"] for c in checks]
        median, spec = statistics.median(values), checks[0]["spec"]
        ratio = f"{median / spec:.3f}" if spec else "-"
        lines.append(
            f"{name:<18} {median:>10.4g} {min(values):>10.4g} {max(values):>10.4g} {checks[0]['unit']:<7} "
            f"{spec if spec is not None else '-':>10} {ratio:>6}"
        )
    durations = [r["durationSeconds"] for r in reports]
    lines.append(f"check durationSeconds median {statistics.median(durations):.2f} s")
    if walls:
        lines.append(f"process wall time median {statistics.median(walls):.2f} s")
    lines.append(f"passed {sum(r['passed'] for r in reports)}/{len(reports)}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expect", help="expectation JSON (runs the check)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="keep each run's report here")
    parser.add_argument("--reports", nargs="*", type=Path, help="summarise recorded reports instead of running")
    args = parser.parse_args()
    if args.reports:
        print(table([json.loads(p.read_text()) for p in args.reports], []))
        return 0
    if not args.expect:
        parser.error("give --expect (to run the check) or --reports")
    keep = args.keep or Path(tempfile.mkdtemp(prefix="gpu-acceptance-"))
    keep.mkdir(parents=True, exist_ok=True)
    results = [run_check(args.expect, keep, i) for i in range(1, args.runs + 1)]
    print(table([r for r, _ in results], [w for _, w in results]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
