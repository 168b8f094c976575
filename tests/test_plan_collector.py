"""`python -m blueprints plan` runs without the cyclic collector from its first import (issue #42): no collection
walks the ~100k objects the imports create, neither automatically while importing nor before the freeze."""

from __future__ import annotations

import subprocess
import sys

from blueprints.stackconfig import ROOT
from conftest import CLI_TIMEOUT

# Runs the CLI as `python -m blueprints` does, and reports the collector's counts when the process exits.
PROBE = """
import atexit, gc, runpy, sys
report = lambda: print("collections", [s["collections"] for s in gc.get_stats()], gc.isenabled(), file=sys.stderr)
atexit.register(report)
if len(sys.argv) > 1:
    sys.argv = ["blueprints", *sys.argv[1:]]
    runpy.run_module("blueprints", run_name="__main__", alter_sys=True)
"""


def collections(*argv: str) -> tuple[list[int], bool]:
    """Collections per generation when the process exits, and whether the collector was on."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True, timeout=CLI_TIMEOUT
    )
    line = [entry for entry in done.stderr.splitlines() if entry.startswith("collections ")][-1]
    counts, enabled = line.removeprefix("collections ").rsplit(" ", 1)
    return [int(n) for n in counts.strip("[]").split(",")], enabled == "True"


def test_a_plan_process_never_collects():
    """No full collection, and no more young ones than the interpreter's own start-up makes (the code before this
    change ran about 260 young and 3 full collections for this plan)."""
    start_up, _ = collections()
    counts, enabled = collections("plan", "--stack", "startup-t4", "--format", "json", "--output", "/dev/null")
    assert counts[2] == 0 and not enabled
    assert sum(counts) <= sum(start_up) + 2, (counts, start_up)


def test_other_commands_run_with_the_collector_on():
    _, enabled = collections("schema", "--output", "/dev/null")
    assert enabled
