"""Whole-process offline plan time per stack: median of N runs of `python -m blueprints plan`.

Prints figures; asserts nothing (shared machines are noisy).

    python benchmarks/plan_time.py [runs]                      # this checkout
    python benchmarks/plan_time.py [runs] --baseline DIR       # and another checkout, interleaved run by run

With --baseline, each run times the baseline then this checkout for the same stack, so load on the machine
hits both alike; it prints both medians and their ratio (this / baseline). The baseline runs with this
interpreter, so its requirements must be installed here (e.g. `git worktree add /tmp/base <commit>`).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blueprints.stackconfig import available_stacks  # noqa: E402


def plan_seconds(root: Path, stack: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "blueprints", "plan", "--stack", stack, "--format", "json"],
        cwd=root,
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another checkout of the project to compare with")
    args = parser.parse_args()
    if args.baseline is None:
        print(f"{'stack':<24} {'median s':>9} {'min s':>7} {'max s':>7}  (n={args.runs}, whole process, --format json)")
        for stack in available_stacks():
            times = [plan_seconds(ROOT, stack) for _ in range(args.runs)]
            print(f"{stack:<24} {statistics.median(times):>9.2f} {min(times):>7.2f} {max(times):>7.2f}")
        return
    baseline_stacks = set(available_stacks(args.baseline / "stacks"))
    print(f"{'stack':<24} {'baseline s':>10} {'this s':>8} {'ratio':>6}  (medians, n={args.runs}, interleaved)")
    ratios = []
    for stack in available_stacks():
        if stack not in baseline_stacks:
            continue
        base, head = [], []
        for _ in range(args.runs):
            base.append(plan_seconds(args.baseline, stack))
            head.append(plan_seconds(ROOT, stack))
        ratio = statistics.median(head) / statistics.median(base)
        ratios.append(ratio)
        print(f"{stack:<24} {statistics.median(base):>10.2f} {statistics.median(head):>8.2f} {ratio:>6.2f}")
    print(f"{'median ratio':<24} {'':>10} {'':>8} {statistics.median(ratios):>6.2f}")


if __name__ == "__main__":
    main()
