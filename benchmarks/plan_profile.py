"""Where a plan's CPU goes: imports, the program under mocks, packs, readiness, cost and the JSON, cold and warm.

Each run is a fresh interpreter that plans the stack twice, the collector off as the CLI runs it (`quiet_collector`):
the first plan is a cold one (what `python -m blueprints plan` pays: every import on the way), the second a warm one
(what `--all-stacks` and the tests pay for each further stack). Phases are timed by wrapping the plan's own steps
(`blueprints/offline/plan.py`); a phase's cold time includes the imports it triggers, so "imports and first use" is
the cold total less the warm one. Prints figures (medians of the runs); asserts nothing.

    python benchmarks/plan_profile.py [runs] [--stack startup-serving] [--stacks-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHASES = {
    "program": "run_program",
    "cost": "estimate",
    "packs": "evaluate",
    "readiness": "readiness_check",
    "conformance": "assess_conformance",
}


def child(stack: str, stacks_dir: str | None) -> None:
    """Plan twice in this fresh process; print each plan's phases as JSON."""
    import gc

    gc.disable()  # as blueprints/__main__.py: the collector off before the imports
    sys.path.insert(0, str(ROOT))
    from blueprints.offline import plan as plan_module
    from blueprints.offline.render import render_json

    gc.freeze()
    spent: dict[str, float] = {}

    def timed(name, function):
        def run(*args, **kwargs):
            begin = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.process_time() - begin

        return run

    for name, attribute in PHASES.items():
        setattr(plan_module, attribute, timed(name, getattr(plan_module, attribute)))
    kwargs = {"stacks_dir": Path(stacks_dir)} if stacks_dir else {}
    results = []
    for _ in range(2):
        spent.clear()
        begin = time.process_time()
        render_json(plan_module.make_plan(stack, **kwargs))
        total = time.process_time() - begin
        results.append({"total": total, **spent, "other": total - sum(spent.values())})
    results[0]["process"] = time.process_time() - results[1]["total"]  # start-up, imports and the cold plan
    print(json.dumps(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=3)
    parser.add_argument("--stack", default="startup-serving")
    parser.add_argument("--stacks-dir")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.stack, args.stacks_dir)
        return
    command = [sys.executable, __file__, "--child", "--stack", args.stack]
    command += ["--stacks-dir", args.stacks_dir] if args.stacks_dir else []
    env = dict(os.environ, BLUEPRINTS_TODAY=os.environ.get("BLUEPRINTS_TODAY", "2026-11-24"))
    load = os.getloadavg()
    runs = [
        json.loads(subprocess.run(command, capture_output=True, text=True, env=env, check=True).stdout)
        for _ in range(args.runs)
    ]
    after = os.getloadavg()
    print(f"stack {args.stack}: CPU s, medians of {args.runs} fresh processes; load {load[0]:.1f} -> {after[0]:.1f}")
    cold = {k: statistics.median(r[0][k] for r in runs) for k in runs[0][0]}
    warm = {k: statistics.median(r[1][k] for r in runs) for k in runs[0][1]}
    process = cold["process"]
    print(f"{'what':<52} {'cold s':>7} {'share':>6} {'warm s':>7}")
    rows = [("whole process (start-up, imports, plan)", process, None)]
    rows.append(("  interpreter start-up and imports before make_plan", process - cold["total"], None))
    rows += [(f"  {name}", cold[name], warm[name]) for name in (*PHASES, "other")]
    for label, value, warm_value in rows:
        share = f"{value / process:>6.0%}"
        print(f"{label:<52} {value:>7.2f} {share} {'' if warm_value is None else f'{warm_value:>7.2f}'}")
    print(f"{'a warm plan (same process again)':<52} {'':>7} {'':>6} {warm['total']:>7.2f}")
    print(f"imports and first use (cold process less a warm plan): {process - warm['total']:.2f} s")


if __name__ == "__main__":
    main()
