"""The plan's cost section: expected hour at desired size, worst case at maxNodes, rates as bought, budget findings."""

import json
import re

import pytest

from blueprints.offline.pack_config import stack_policy_config
from blueprints.offline.policy import evaluate
from catalog.prices import load_prices
from conftest import shipped_plan

BUDGET_RULE = "stack-expected-cost-within-budget"


def test_frankfurt_plan_prices_gpu_nodes_at_the_frankfurt_rate_with_its_source():
    plan = shipped_plan("research-a100-eu")
    cost = plan.to_json()["cost"]
    group = plan.resolved.node_groups[0]
    row = load_prices().exact(group.shape.instance_type, "eu-central-1", "on-demand")
    assert cost["byComponent"]["gpu-nodes"]["hourlyUsd"] == pytest.approx(row.usd_per_hour * group.spec.desired_nodes)
    [rate] = cost["rates"]
    assert rate["usdPerHour"] == row.usd_per_hour and "(eu-central-1, on-demand)" in rate["source"]
    assert rate["asOf"] == row.as_of


def test_worst_case_prices_node_groups_at_max_nodes():
    plan = shipped_plan("research-a100")
    cost = plan.cost
    gpu = plan.resolved.node_groups[0]
    system = plan.resolved.system
    node_delta = (gpu.spec.max_nodes - gpu.spec.desired_nodes) * gpu.usd_per_hour + (
        system.spec.max_nodes - system.spec.desired_nodes
    ) * system.usd_per_hour
    assert cost.worst_hourly_usd > cost.hourly_usd + node_delta - 0.01  # plus root volumes of the extra nodes
    assert cost.worst_hourly_usd < cost.hourly_usd + node_delta + 1.0
    budget = plan.to_json()["cost"]["budget"]
    assert budget["worstCaseUsedPct"] == pytest.approx(100 * cost.worst_monthly_usd / cost.monthly_budget_usd, abs=0.1)


def test_text_and_markdown_show_worst_case_rates_and_budget():
    from blueprints.offline.render import render_markdown, render_text

    plan = shipped_plan("research-a100-eu")
    text, markdown = render_text(plan), render_markdown(plan)
    for out in (text, markdown):
        assert "worst case" in out and "eu-central-1" in out and "udget" in out
    assert "(node groups at maxNodes)" in text and "rate gpu: p4de.24xlarge on-demand" in text


def test_spot_group_uses_the_spot_rate(plan_variant):
    def spot(c):
        c["region"] = "us-east-2"
        c.setdefault("nodeGroups", {}).setdefault("gpu", {}).update(
            {"gpuModel": "H200", "gpusPerNode": 8, "capacity": "spot"}
        )

    plan = plan_variant("enterprise-h100", spot)
    [rate] = plan.to_json()["cost"]["rates"]
    row = load_prices().exact(rate["instanceType"], "us-east-2", "spot")
    assert rate["option"] == "spot" and rate["usdPerHour"] == row.usd_per_hour
    assert plan.cost.by_component()["gpu-nodes"] == pytest.approx(row.usd_per_hour)


def test_over_budget_stack_gets_a_mandatory_cost_finding_and_exit_1(plan_variant):
    plan = plan_variant("research-a100-eu", lambda c: c["budget"].update(monthlyLimitUsd=25000))
    findings = [f for f in plan.findings if f["policy"] == BUDGET_RULE]
    assert plan.cost.monthly_usd > 25000
    assert len(findings) == 1 and findings[0]["enforcementLevel"] == "mandatory" and plan.exit_code == 1
    stated = float(re.search(r"expected cost ([0-9,.]+) USD/month", findings[0]["message"]).group(1).replace(",", ""))
    assert stated == pytest.approx(plan.cost.monthly_usd, abs=0.05)  # the plan's figure, to the cent


def test_within_budget_stack_gets_no_budget_finding():
    plan = shipped_plan("research-a100")  # every node priced (an unpriced one makes the cost unknown: issue #27)
    assert plan.cost.complete and plan.cost.monthly_usd <= plan.cost.monthly_budget_usd
    assert not [f for f in plan.findings if f["policy"] == BUDGET_RULE]


def test_pack_config_can_make_the_budget_rule_advisory(plan_variant):
    plan = plan_variant("research-a100-eu", lambda c: c["budget"].update(monthlyLimitUsd=25000))
    overrides = stack_policy_config(plan.resolved.spec, plan.resolved, plan.cost)
    overrides[BUDGET_RULE]["enforcementLevel"] = "advisory"
    findings = [f for f in evaluate(plan.stack, plan.registrations, ["cost"], overrides) if f["policy"] == BUDGET_RULE]
    assert len(findings) == 1 and findings[0]["enforcementLevel"] == "advisory"


def test_policy_config_command_writes_the_budget_rules_inputs(tmp_path, capsys):
    from blueprints.cli import main

    assert main(["policy-config", "--stack", "research-a100-eu", "--output-dir", str(tmp_path)]) == 0
    config = json.loads((tmp_path / "cost.json").read_text())[BUDGET_RULE]
    plan = shipped_plan("research-a100-eu")
    assert (
        config["monthlyBudgetUsd"] == 30000
        and config["prices"]["p4de.24xlarge"] == plan.resolved.node_groups[0].usd_per_hour
    )
    gpu_and_system = plan.cost.by_component()["gpu-nodes"] + plan.cost.by_component()["system-nodes"]
    assert config["otherMonthlyUsd"] == pytest.approx(plan.cost.monthly_usd - gpu_and_system * 730, abs=1)
