"""Issue #23 item 5: capacity blocks as EKS takes them (instance type in the launch template, no scale-down of ours
beside EKS's own, a scale-up at the block's start), real dates only, and a block priced for its length."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from blueprints.cli import main
from blueprints.offline.plan import make_plan
from blueprints.offline.readiness import check
from blueprints.offline.readiness_capacity import check as capacity_check
from conftest import data_plan
from test_readiness import edited

DATA = Path(__file__).parent / "data" / "stacks"
LT, NG = "aws:ec2/launchTemplate:LaunchTemplate", "aws:eks/nodeGroup:NodeGroup"
SCHEDULE = "aws:autoscaling/schedule:Schedule"


@pytest.fixture(scope="module")
def plan():
    return data_plan("capacity-block")


def as_before_the_fix(plan):
    """The registrations the component sent before issue #23: the instance type on the node group, none in the
    launch template, and a scale to zero 40 minutes before the block's end (where EKS puts its own)."""

    def template(inputs):
        inputs.pop("instanceType", None)

    def group(inputs):
        inputs["instanceTypes"] = ["p5.48xlarge"]

    def scale_down(inputs):
        inputs.update(startTime="2026-12-15T10:50:00Z", minSize=0, maxSize=0, desiredCapacity=0)

    block = lambda r: r.type == NG and r.inputs.get("capacityType") == "CAPACITY_BLOCK"  # noqa: E731
    change = {LT: template, NG: group, SCHEDULE: scale_down}
    return [
        edited(r, change[r.type]) if (r.type == NG and block(r)) or r.type in (LT, SCHEDULE) else r
        for r in plan.registrations
    ]


def test_old_capacity_block_plan_is_blocked_and_the_fixed_one_is_not(plan):
    old = {(f.check, f.resource) for f in check(as_before_the_fix(plan)) if f.level == "blocking"}
    assert ("capacity-block-launch-template", "capacity-block-gpu") in old
    assert ("capacity-block-schedule-collision", "capacity-block-gpu-block-start") in old
    assert capacity_check(plan.registrations) == []
    assert not [f for f in plan.readiness if f.level == "blocking"]


def test_each_launch_template_field_a_block_needs_is_checked(plan):
    for field in ("instanceMarketOptions", "capacityReservationSpecification", "instanceType"):
        regs = [
            edited(r, lambda i: i.pop(field)) if r.type == LT and r.name == "capacity-block-gpu" else r
            for r in plan.registrations
        ]
        (finding,) = capacity_check(regs)
        assert field in finding.message and finding.level == "blocking"


def _stack(tmp_path, **group):
    cluster = yaml.safe_load((DATA / "Pulumi.capacity-block.yaml").read_text())
    config = cluster["config"]["gpu-cluster-blueprints:cluster"]
    config["nodeGroups"]["gpu"].update(group)
    for key in [k for k, v in group.items() if v is None]:
        del config["nodeGroups"]["gpu"][key]
    (tmp_path / "Pulumi.cb.yaml").write_text(yaml.safe_dump(cluster))
    return ["plan", "--stack", "cb", "--stacks-dir", str(tmp_path)]


@pytest.mark.parametrize(
    "field, value, says",
    [
        ("capacityBlockEndsAt", "2026-02-30T25:61:00Z", "is not a date and time"),
        ("capacityBlockEndsAt", "2025-01-15T11:30:00Z", "has passed"),
        ("capacityBlockStartsAt", "2026-12-20T11:30:00Z", "is not before the block's end"),
    ],
)
def test_impossible_or_past_block_dates_are_one_line_exit_2(tmp_path, capsys, field, value, says):
    code = main(_stack(tmp_path, **{field: value}))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "Traceback" not in err[0]
    assert "Pulumi.cb.yaml" in err[0] and f"cluster.nodeGroups.gpu.{field}" in err[0] and says in err[0]


def test_a_fourteen_day_block_costs_fourteen_days(plan, tmp_path):
    (rate,) = [r for r in plan.cost.rates if r["nodeGroup"] == "gpu"]
    (line,) = [i for i in plan.cost.items if i.resource == "capacity-block-gpu" and i.component == "gpu-nodes"]
    block = rate["usdPerHour"] * 2 * 14 * 24  # two nodes, 2026-12-01T11:30 .. 2026-12-15T11:30, paid up front
    assert line.usd_per_hour * plan.cost.hours_per_month == pytest.approx(block, rel=1e-4)
    assert "336 h paid up front" in line.description
    # Without its start the block's length is unknown: priced for a whole month, as before (an upper bound).
    _stack(tmp_path, capacityBlockStartsAt=None)
    whole = make_plan("cb", tmp_path)
    (old,) = [i for i in whole.cost.items if i.resource == "cb-gpu" and i.component == "gpu-nodes"]
    assert old.usd_per_hour * whole.cost.hours_per_month == pytest.approx(rate["usdPerHour"] * 2 * 730, rel=1e-4)


def test_the_end_is_judged_against_the_plans_today(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BLUEPRINTS_TODAY", "2026-12-16")  # the day after the block ends
    code = main(_stack(tmp_path))
    err = capsys.readouterr().err
    assert code == 2 and "capacityBlockEndsAt: 2026-12-15T11:30:00Z has passed" in err
    monkeypatch.setenv("BLUEPRINTS_TODAY", "2026-12-14")
    assert main(_stack(tmp_path)) == 0
