"""Whole-process offline plan time per stack: median of N runs of `python -m blueprints plan`.

Prints figures; asserts nothing (shared machines are noisy). Usage: python benchmarks/plan_time.py [runs]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blueprints.stackconfig import available_stacks  # noqa: E402


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(f"{'stack':<24} {'median s':>9} {'min s':>7} {'max s':>7}  (n={runs}, whole process, --format json)")
    for stack in available_stacks():
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "blueprints", "plan", "--stack", stack, "--format", "json"],
                           cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        print(f"{stack:<24} {statistics.median(times):>9.2f} {min(times):>7.2f} {max(times):>7.2f}")


if __name__ == "__main__":
    main()
