"""Issue #23 item 13: pins past their end of support are reported by the plan; every pin has a recorded lifecycle."""

from __future__ import annotations

import dataclasses

import pytest
import yaml
from google.protobuf import struct_pb2

from blueprints.clock import today
from blueprints.offline.readiness import HELM_RELEASE
from blueprints.offline.readiness_support import check
from catalog import addons as addons_catalog
from catalog.lifecycle import end_of_support, release_line, table
from components.kubernetes.charts import charts
from conftest import SHIPPED, shipped_plan

PAST = "pin-past-end-of-support"
AWS_STACKS = [s for s in SHIPPED if not s.endswith("aliyun")]


def _with_operator(regs, version):
    """The plan's registrations with the gpu-operator release at ``version`` (as the plan before the fix had it)."""
    out = []
    for r in regs:
        if r.type == HELM_RELEASE and r.inputs.get("chart") == "gpu-operator":
            properties = struct_pb2.Struct()
            properties.CopyFrom(r.properties)
            properties["version"] = version
            r = dataclasses.replace(r, properties=properties)
        out.append(r)
    return out


def test_the_old_gpu_operator_pin_is_reported_and_the_new_one_is_not():
    plan = shipped_plan("research-a100")
    assert charts()["gpu-operator"].version == "v26.7.0"
    assert [r for r in plan.registrations if r.type == HELM_RELEASE and r.inputs.get("version") == "v26.7.0"]
    assert not [f for f in plan.readiness if f.check == PAST]
    old = [f for f in check(_with_operator(plan.registrations, "v25.10.1")) if f.check == PAST]
    assert len(old) == 1 and old[0].level == "warning" and "2026-08-20" in old[0].message


@pytest.mark.parametrize("stack", SHIPPED)
def test_no_shipped_stack_has_a_pin_past_its_end_of_support(stack):
    assert not [f for f in shipped_plan(stack).readiness if f.check == PAST]


def test_a_pin_passes_until_today_moves_past_its_end_of_support(monkeypatch):
    regs = _with_operator(shipped_plan("research-a100").registrations, "v25.10.1")
    monkeypatch.setenv("BLUEPRINTS_TODAY", "2026-08-20")  # 25.10's last day: 26.7.0 released, NVIDIA ended 25.10
    assert not check(regs)
    monkeypatch.setenv("BLUEPRINTS_TODAY", "2026-08-21")
    (finding,) = check(regs)
    assert finding.check == PAST and "v25.10.1" in finding.message


def test_every_pinned_chart_and_addon_has_an_end_of_support_or_a_reason():
    lifecycle = table()
    for key, pin in charts().items():
        entry = lifecycle["charts"][key]
        if "releases" in entry:  # the pinned release line is recorded: its date, or why there is none yet
            line = entry["releases"][release_line(pin.version)]
            assert line["end_of_support"] is not None or line["reason"], key
            assert end_of_support("charts", key, pin.version)[0] is None or line["end_of_support"] > today(), key
        else:
            assert entry["end_of_support"] is None and entry["reason"], key
    catalog = yaml.safe_load(addons_catalog.ADDONS_FILE.read_text())
    for cloud, section in (("aws", "eks"), ("alibaba", "ack")):
        assert set(lifecycle["addons"][cloud]) == set(catalog[section]), cloud
        assert all(e["end_of_support"] is None and e["reason"] for e in lifecycle["addons"][cloud].values())
