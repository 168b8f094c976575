"""The pull-request diff for real changes to research-a100: a node count, and an FSx replacement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blueprints.cli import main
from blueprints.offline.diff import COMMENT_MARKER, diff_plans
from blueprints.offline.diff_render import render_diff_markdown, render_diff_text
from blueprints.offline.plan import make_plan
from conftest import shipped_cluster, shipped_plan, write_stack

STACK = "research-a100"


def _head(tmp_path: Path, change) -> dict:
    """The same stack name with a change, so URNs line up as they do across two commits."""
    cluster = shipped_cluster(STACK)
    change(cluster)
    write_stack(tmp_path, STACK, cluster)
    return make_plan(STACK, tmp_path).to_json()


@pytest.fixture(scope="module")
def base() -> dict:
    return shipped_plan(STACK).to_json()


def test_node_count_change_shows_the_node_group_and_the_cost_delta(tmp_path, base):
    head = _head(tmp_path, lambda c: c.setdefault("nodeGroups", {}).setdefault("gpu", {}).update(desiredNodes=2))
    [diff] = diff_plans({STACK: base}, {STACK: head})
    assert diff.status == "changed" and not diff.added and not diff.removed and not diff.data_loss
    [change] = diff.changed
    assert change.type == "aws:eks/nodeGroup:NodeGroup"
    assert ("scalingConfig.desiredSize", 1, 2) in change.inputs
    price = base["resolved"]["nodeGroups"][0]["usdPerHour"]
    root_gib_hourly = next(i["usdPerHour"] for i in base["cost"]["items"] if i["description"].endswith("GiB gp3 root"))
    assert diff.hourly_delta == pytest.approx(price + root_gib_hourly, abs=0.01)
    assert diff.monthly_delta == pytest.approx(diff.hourly_delta * 730, abs=0.05)
    comment = render_diff_markdown([diff])
    assert comment.startswith(COMMENT_MARKER)
    assert "`scalingConfig.desiredSize`: 1 → 2" in comment and f"+${diff.monthly_delta:,.2f}" in comment
    assert "destroy data" not in comment


def test_fsx_replacement_is_called_out_first_as_data_loss(tmp_path, base):
    head = _head(tmp_path, lambda c: c.setdefault("storage", {}).setdefault("parallelFs", {}).update(
        deployment="SCRATCH_2", sizeGib=2400))
    [diff] = diff_plans({STACK: base}, {STACK: head})
    first = diff.changed[0]
    assert first.type == "aws:fsx/lustreFileSystem:LustreFileSystem" and first.destroys_data
    assert {"deploymentType", "kmsKeyId", "storageCapacity shrinks"} <= set(first.replaces)
    assert first.protected  # production stacks protect data stores
    [reason] = diff.data_loss
    assert "would be REPLACED" in reason and "`pulumi up` will stop" in reason
    comment = render_diff_markdown([diff])
    assert comment.index("This change would destroy data") < comment.index("| stack | status |")
    assert diff.hourly_delta < 0  # SCRATCH_2 at 2,400 GiB costs less than PERSISTENT_2 at 9,600 GiB
    assert "!! DATA LOSS" in render_diff_text([diff]).splitlines()[1]


def test_diff_command_reads_bundles_and_writes_markdown(tmp_path, base, capsys):
    head = dict(base, stack="research-a100-new")
    (tmp_path / "base.json").write_text(json.dumps({"formatVersion": 1, "plans": [base]}))
    (tmp_path / "head.json").write_text(json.dumps({"formatVersion": 1, "plans": [base, head]}))
    assert main(["diff", str(tmp_path / "base.json"), str(tmp_path / "head.json"), "--format", "markdown",
                 "--output", str(tmp_path / "comment.md")]) == 0
    comment = (tmp_path / "comment.md").read_text()
    assert "| `research-a100-new` | added |" in comment and "| `research-a100` | unchanged |" in comment


def test_diff_of_something_that_is_not_a_plan_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "x.json").write_text('{"hello": 1}')
    assert main(["diff", str(tmp_path / "x.json"), str(tmp_path / "x.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
