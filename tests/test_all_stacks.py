"""Issue #42 item 4: `plan --all-stacks` plans every stack in one process (imports paid once), and each stack's plan
in the bundle is the plan of that stack alone: nothing one stack's program leaves behind changes the next."""

from __future__ import annotations

import json
import subprocess
import sys

from blueprints.cli import main
from blueprints.offline.render import render_json
from blueprints.stackconfig import ROOT
from conftest import CLI_TIMEOUT, SHIPPED, shipped_plan


def test_each_stack_in_the_bundle_is_its_plan_alone(tmp_path):
    bundle_path = tmp_path / "bundle.json"
    code = main(["plan", "--all-stacks", "--format", "json", "--output", str(bundle_path)])
    bundle = json.loads(bundle_path.read_text())
    assert [p["stack"] for p in bundle["plans"]] == SHIPPED and bundle["failures"] == []
    assert code == max(p["exitCode"] for p in bundle["plans"])
    for plan in bundle["plans"]:  # each as this process planned it alone (the suite's shared plans)
        assert plan == json.loads(render_json(shipped_plan(plan["stack"]))), plan["stack"]
    # The last stack, after every other stack ran in the same process, byte for byte as a process of its own
    # writes it (the CLI's `--format json` is render_json).
    last = SHIPPED[-1]
    alone = subprocess.run(
        [sys.executable, "-m", "blueprints", "plan", "--stack", last, "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
    )
    assert alone.returncode in (0, 1), alone.stderr
    [entry] = [p for p in bundle["plans"] if p["stack"] == last]
    assert alone.stdout == json.dumps(entry, indent=2) + "\n"  # render_json's layout
