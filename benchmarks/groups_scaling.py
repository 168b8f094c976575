"""CPU and peak memory of the offline plan as GPU node groups grow: 1, 50 and 150 groups (the most a stack may have).

Prints figures; asserts nothing (shared machines are noisy). Each run is a whole `python -m blueprints plan` process
(CPU = user + system and peak RSS, from GNU time), on a stack written to a temporary folder: startup-t4 with
N one-GPU T4 groups (gpu, g1, g2, ...), each scaling from zero to two nodes, and a budget that covers them.

    python benchmarks/groups_scaling.py [runs]                  # this checkout
    python benchmarks/groups_scaling.py [runs] --baseline DIR   # and another checkout, interleaved run by run

Per-group cost is (cpu(150) - cpu(1)) / 149; issue #42 asks 150 groups to cost at most 1.5x the per-group cost it
measured (86 ms CPU, 0.9 MB). The baseline runs with this interpreter (`git worktree add ../base <commit>`).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from scaling import arguments, interleaved, shipped_cluster, write_stack

COUNTS = (1, 50, 150)
BASE_STACK = "startup-t4"


def write_stacks(folder: Path) -> None:
    """Pulumi.groups-<n>.yaml: the base stack with n small GPU groups."""
    for n in COUNTS:
        cluster = shipped_cluster(BASE_STACK)
        # The first is the preset's own group `gpu` (a preset's groups merge with the stack's), the others g1, g2...
        cluster["nodeGroups"] = {
            ("gpu" if i == 0 else f"g{i}"): {
                "gpuModel": "T4",
                "gpusPerNode": 1,
                "minNodes": 0,
                "desiredNodes": 0,
                "maxNodes": 2,
            }
            for i in range(n)
        }
        cluster["budget"] = {**cluster["budget"], "monthlyLimitUsd": 2000 + 1000 * n}
        write_stack(folder, f"groups-{n}", cluster)


def plan(root: Path, stacks: Path, n: int) -> tuple[float, float, int]:
    """CPU seconds (user + system), peak RSS in MB and the exit code of one plan process (GNU time reports the
    child's own peak; the parent's RUSAGE_CHILDREN keeps the largest child so far)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        done = subprocess.run(
            ["/usr/bin/time", "-o", report.name, "-f", "%U %S %M"]
            + [sys.executable, "-m", "blueprints", "plan", "--stack", f"groups-{n}", "--stacks-dir", str(stacks)],
            cwd=root,
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ, BLUEPRINTS_TODAY="2026-11-27"),
        )
        user, system, peak_kb = report.read().split()[-3:]
    return float(user) + float(system), int(peak_kb) / 1024, done.returncode


def main() -> None:
    runs, roots = arguments(__doc__)
    load = os.getloadavg()
    results = interleaved(runs, COUNTS, roots, write_stacks, plan)
    cpu = {label: {n: [r[0] for r in rs] for n, rs in by_n.items()} for label, by_n in results.items()}
    peak = {label: {n: [r[1] for r in rs] for n, rs in by_n.items()} for label, by_n in results.items()}
    codes = {label: {r[2] for rs in by_n.values() for r in rs} for label, by_n in results.items()}
    print(f"CPU s per plan process, medians of {runs} ({BASE_STACK} with N one-GPU T4 groups, interleaved)")
    print(f"load average (1 min) before the runs: {load[0]:.1f}; after: {os.getloadavg()[0]:.1f}")
    head = " ".join(f"{f'{n} groups':>10}" for n in COUNTS)
    print(f"{'':<9} {head} {'ms/group':>9} {'MB/group':>9}  exit codes   (per group: from 1 to {COUNTS[-1]})")
    spread = COUNTS[-1] - COUNTS[0]
    for label in roots:
        m = {n: statistics.median(v) for n, v in cpu[label].items()}
        mb = {n: statistics.median(v) for n, v in peak[label].items()}
        per_group = (m[COUNTS[-1]] - m[COUNTS[0]]) / spread
        per_group_mb = (mb[COUNTS[-1]] - mb[COUNTS[0]]) / spread
        cells = " ".join(f"{m[n]:>10.2f}" for n in COUNTS)
        print(f"{label:<9} {cells} {per_group * 1000:>9.0f} {per_group_mb:>9.2f}  {sorted(codes[label])}")


if __name__ == "__main__":
    main()
