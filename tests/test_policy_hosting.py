"""Packs hosted in the plan's process (the SDK's servicer, requests routed by type) judge exactly as the
per-pack processes the CLI starts: same findings, same order, for shipped, non-compliant and foreign programs."""

from __future__ import annotations

from pathlib import Path

import pytest

from blueprints.offline.engine import run_program
from blueprints.offline.pack_config import stack_policy_config
from blueprints.offline.policy import InProcessPack, evaluate
from conftest import data_plan, shipped_plan

NONCOMPLIANT_DIR = Path(__file__).resolve().parent / "data" / "stacks"
PROGRAMS = Path(__file__).resolve().parent / "data" / "programs"


def both_ways(stack, registrations, packs, overrides):
    hosted = evaluate(stack, registrations, packs, overrides, in_process=True)
    processes = evaluate(stack, registrations, packs, overrides, in_process=False)
    return hosted, processes


@pytest.mark.parametrize("stack", ["enterprise-h100", "enterprise-aliyun", "research-a100-eu"])
def test_shipped_stacks_get_the_same_findings_both_ways(stack):
    plan = shipped_plan(stack)
    hosted, processes = both_ways(stack, plan.registrations, plan.packs, stack_policy_config(plan.resolved.spec))
    assert hosted == processes and hosted  # the advisory digest findings at least


def test_noncompliant_stack_gets_the_same_findings_both_ways():
    plan = data_plan("noncompliant-gdpr")
    hosted, processes = both_ways(
        "noncompliant-gdpr",
        plan.registrations,
        ["baseline", "gdpr", "hipaa", "mlps", "cost"],
        stack_policy_config(plan.resolved.spec),
    )
    assert hosted == processes
    assert len({f["policy"] for f in hosted if f["enforcementLevel"] == "mandatory"}) >= 5


@pytest.mark.parametrize("program", ["ec2_web_server", "website_bucket"])
def test_foreign_programs_get_the_same_findings_both_ways(program):
    registrations, _ = run_program(
        program, {"aws:region": "us-east-1"}, "us-east-1", program=PROGRAMS / program / "__main__.py"
    )
    hosted, processes = both_ways(program, registrations, ["baseline", "hipaa", "gdpr"], {})
    assert hosted == processes and any(f["enforcementLevel"] == "mandatory" for f in hosted)


def test_hosted_pack_lists_the_same_policies_as_the_served_one():
    from google.protobuf import empty_pb2

    from blueprints.offline.policy import PACKS_DIR, PackProcess

    process = PackProcess(PACKS_DIR / "hipaa").connect()
    try:
        served = process.stub.GetAnalyzerInfo(empty_pb2.Empty())
    finally:
        process.close()
    assert InProcessPack("hipaa").GetAnalyzerInfo(empty_pb2.Empty()) == served
