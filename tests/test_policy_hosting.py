"""Packs hosted in the plan's process (the SDK's servicer, requests routed by type) judge exactly as the
per-pack processes the CLI starts: same findings, same order, for shipped, non-compliant and foreign programs."""

from __future__ import annotations

from pathlib import Path

import pytest

from blueprints.offline.engine import run_program
from blueprints.offline.pack_config import stack_policy_config
from blueprints.offline.policy import InProcessPack, evaluate, merge
from conftest import data_plan, shipped_plan

PROGRAMS = Path(__file__).resolve().parent / "data" / "programs"


@pytest.fixture
def both_ways(pack_sessions):
    """Findings hosted in this process, and from each pack's own process (started once, tests/conftest.py)."""

    def judge(stack, registrations, packs, overrides):
        hosted = evaluate(stack, registrations, packs, overrides, in_process=True)
        processes = merge(f for name in packs for f in pack_sessions(name).judge(stack, registrations, overrides))
        return hosted, processes

    return judge


@pytest.mark.parametrize("stack", ["enterprise-h100", "enterprise-aliyun", "research-a100-eu"])
def test_shipped_stacks_get_the_same_findings_both_ways(stack, both_ways):
    plan = shipped_plan(stack)
    hosted, processes = both_ways(stack, plan.registrations, plan.packs, stack_policy_config(plan.resolved.spec))
    assert hosted == processes and hosted  # the advisory digest findings at least


def test_noncompliant_stack_gets_the_same_findings_both_ways(both_ways):
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
def test_foreign_programs_get_the_same_findings_both_ways(program, both_ways):
    registrations, _ = run_program(
        program, {"aws:region": "us-east-1"}, "us-east-1", program=PROGRAMS / program / "__main__.py"
    )
    hosted, processes = both_ways(program, registrations, ["baseline", "hipaa", "gdpr"], {})
    assert hosted == processes and any(f["enforcementLevel"] == "mandatory" for f in hosted)


def test_hosted_pack_lists_the_same_policies_as_the_served_one(pack_sessions):
    from google.protobuf import empty_pb2

    stub = pack_sessions("hipaa").analysis.stub  # the pack's process, started and connected
    assert InProcessPack("hipaa").GetAnalyzerInfo(empty_pb2.Empty()) == stub.GetAnalyzerInfo(empty_pb2.Empty())


class UnroutedPack:
    """The SDK's servicer as pulumi-policy's PolicyPack builds it, every policy in one, no routing by type."""

    def __init__(self, name):
        from pulumi_policy.policy import _PolicyAnalyzerServicer

        from policies.library.packs import pack_arguments

        args = pack_arguments(name)
        self.servicer = _PolicyAnalyzerServicer(
            args["name"], "0.0.1", args["policies"], args["enforcement_level"], args["initial_config"]
        )
        self.stub = self

    def __getattr__(self, rpc):
        return lambda request: getattr(self.servicer, rpc)(request, None)


def _diagnostics(pack, name, stack, registrations, overrides):
    from blueprints.offline.policy import Analysis

    analysis = Analysis(name, pack)
    analysis.configure(stack, overrides)
    return sorted((d.policyName, urn, d.message, d.enforcementLevel) for d, urn in analysis.analyze(registrations))


@pytest.mark.parametrize("pack", ["baseline", "hipaa"])
def test_routing_by_type_judges_as_the_sdks_own_servicer(pack):
    """hosting.TypeRouter (Analyze by resource type, typed stack rules on their types' resources) finds exactly
    what the SDK's unrouted servicer finds: on a shipped stack, a non-compliant one and the issue #41 examples
    (tests/test_stack_rule_types.py holds every typed stack rule to the types it reads, on every type)."""
    from policy_rules.harness import registrations as fixture_registrations
    from test_policy_packs import ISSUE_EXAMPLES

    cases = [
        ("enterprise-h100", shipped_plan("enterprise-h100")),
        ("noncompliant-gdpr", data_plan("noncompliant-gdpr")),
    ]
    for stack, plan in cases:
        overrides = stack_policy_config(plan.resolved.spec)
        routed = _diagnostics(InProcessPack(pack), pack, stack, plan.registrations, overrides)
        assert routed == _diagnostics(UnroutedPack(pack), pack, stack, plan.registrations, overrides), stack
    examples = fixture_registrations([resource for _, resource in ISSUE_EXAMPLES])
    routed = _diagnostics(InProcessPack(pack), pack, "policy-test", examples, {})
    assert routed and routed == _diagnostics(UnroutedPack(pack), pack, "policy-test", examples, {})


def test_a_type_the_program_does_not_declare_is_never_configured():
    """Configure converts the whole pack's config in every servicer it reaches; a servicer for a type the program
    does not declare (an Alibaba Cloud type on an AWS stack) must not pay it, and one that is used must."""
    from blueprints.offline.policy import PackSession

    plan = shipped_plan("enterprise-h100")
    session = PackSession("baseline", in_process=True)
    router = session.process.router
    configured = []
    for type_, servicer in router.by_type.items():
        original = servicer.Configure
        servicer.Configure = lambda request, context, t=type_, o=original: (configured.append(t), o(request, context))[
            1
        ]
    session.judge("enterprise-h100", plan.registrations, stack_policy_config(plan.resolved.spec))
    declared = {r.type for r in plan.registrations}
    assert configured and set(configured) <= declared
    assert "alicloud:rds/instance:Instance" in router.by_type and "alicloud:rds/instance:Instance" not in configured


def test_a_servicer_configured_late_holds_the_latest_config():
    """Config sent before a routed servicer's first use, and changed between two judgements, is what it applies."""
    from blueprints.offline.policy import PackSession
    from policy_rules.harness import STACK, registrations

    rule = "alicloud-rds-instance-sql-audit-retention"
    resources = registrations(
        [
            {
                "type": "alicloud:rds/instance:Instance",
                "name": "tracking",
                "props": {"engine": "MySQL", "sqlCollectorStatus": "Enabled", "sqlCollectorConfigValue": 180},
            }
        ]
    )
    session = PackSession("mlps", in_process=True)
    strict = session.judge(STACK, resources, {rule: {"minimumDays": 365}})
    default = session.judge(STACK, resources, {})
    assert [f["message"] for f in strict if f["policy"] == rule] == [
        "sqlCollectorConfigValue is 180 days; at least 365"
    ]
    assert [f for f in default if f["policy"] == rule] == []
