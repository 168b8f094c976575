"""CPU of the offline plan as served models grow: 1, 10 and 50 copies of startup-serving's model.

Prints figures; asserts nothing (shared machines are noisy). Each run is a whole `python -m blueprints plan` process
(its CPU time, user + system, from the OS), on a stack written to a temporary folder: startup-serving with its one
model repeated N times under other names.

    python benchmarks/models_scaling.py [runs]                  # this checkout
    python benchmarks/models_scaling.py [runs] --baseline DIR   # and another checkout, interleaved run by run

Linear means: cpu(50) <= 1.1 x (cpu(10) + 40 x per-model cost from 1 to 10) (issue #42). The baseline runs with
this interpreter, so its requirements must be installed here (e.g. `git worktree add ../base <commit>`).
"""

from __future__ import annotations

import copy
import os
import statistics
import subprocess
import sys
from pathlib import Path

from scaling import arguments, interleaved, shipped_cluster, write_stack

COUNTS = (1, 10, 50)
BASE_STACK = "startup-serving"


def write_stacks(folder: Path) -> None:
    """Pulumi.models-<n>.yaml: the base stack's model repeated n times (m0, m1, ...), its group large enough."""
    cluster = shipped_cluster(BASE_STACK)
    [model] = cluster["serving"]["models"].values()
    for n in COUNTS:
        variant = copy.deepcopy(cluster)
        variant["serving"]["models"] = {f"m{i}": dict(model) for i in range(n)}
        variant["nodeGroups"]["gpu"]["maxNodes"] = max(10, n * model["maxReplicas"])
        write_stack(folder, f"models-{n}", variant)


def plan_cpu(root: Path, stacks: Path, n: int) -> float:
    """CPU seconds (user + system) of one plan process."""
    before = os.times()
    subprocess.run(
        [sys.executable, "-m", "blueprints", "plan", "--stack", f"models-{n}", "--stacks-dir", str(stacks)],
        cwd=root,
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, BLUEPRINTS_TODAY="2026-11-24"),
    )
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def summary(label: str, medians: dict[int, float]) -> str:
    first = (medians[10] - medians[1]) / 9
    second = (medians[50] - medians[10]) / 40
    linear = medians[10] + 40 * first
    cells = " ".join(f"{medians[n]:>7.2f}" for n in COUNTS)
    return f"{label:<9} {cells} {first * 1000:>9.0f} {second * 1000:>10.0f} {medians[50] / linear:>12.2f}"


def main() -> None:
    runs, roots = arguments(__doc__)
    load = os.getloadavg()
    times = interleaved(runs, COUNTS, roots, write_stacks, plan_cpu)
    print(f"CPU s per plan process, medians of {runs} (startup-serving with N models, interleaved)")
    print(f"load average (1 min) before the runs: {load[0]:.1f}; after: {os.getloadavg()[0]:.1f}")
    print(
        f"{'':<9} "
        + " ".join(f"{f'{n} model' + ('s' if n > 1 else ''):>7}" for n in COUNTS)
        + f" {'ms/model':>9} {'ms/model':>10} {'50 / linear':>12}"
    )
    print(f"{'':<9} {'':>7} {'':>7} {'':>7} {'1->10':>9} {'10->50':>10}")
    for label in roots:
        print(summary(label, {n: statistics.median(v) for n, v in times[label].items()}))


if __name__ == "__main__":
    main()
