"""The stack's expected monthly cost stays within its monthly budget.

Why a rule and not only a line in the plan: a stack that costs more than its budget at its *desired* size
will overrun every month, so it should fail review like any other guardrail (mandatory by default; a pack
config can set this policy's enforcementLevel to advisory). Node groups are priced here from the resources
(desired size x rate from `prices`, else the catalog's list price); the rest of the estimate (storage,
networking, control plane, logs) comes in as `otherMonthlyUsd`, which the offline plan and
`python -m blueprints policy-config` fill from the plan's cost estimate. A node group running at desired size
without a price makes the cost unknown, and unknown is reported, never counted as $0 (issue #27).
"""

from ..pricing import NODE_GROUPS, PRICED_TYPES, desired_nodes, instance_type, price
from ..props import of_type
from ..rule import StackRule


def _budget(resources, config):
    if config["monthlyBudgetUsd"] is not None:
        return float(config["monthlyBudgetUsd"])
    for budget in of_type(resources, "aws:budgets/budget:Budget"):
        if str(budget.props.get("timeUnit", "MONTHLY")).upper() == "MONTHLY" and budget.props.get("limitAmount"):
            return float(budget.props["limitAmount"])
    return None


def check(resources, config):
    budget = _budget(resources, config)
    if budget is None:
        return  # no budget to judge against (budget-with-alerts asks for one)
    compute, unpriced = 0.0, []
    for group in of_type(resources, *NODE_GROUPS):
        instance = instance_type(group)
        hourly = price(instance, config["prices"]) if instance else None
        if hourly is None:
            if desired_nodes(group):  # zero nodes cost nothing whatever the price
                unpriced.append(f"{group.name} ({instance})")
            continue
        compute += hourly * desired_nodes(group) * config["hoursPerMonth"]
    expected = compute + float(config["otherMonthlyUsd"])
    if expected > budget:
        note = f"; unpriced node groups, not counted: {', '.join(unpriced)}" if unpriced else ""
        yield (
            (
                f"expected cost {expected:,.2f} USD/month (node groups at desired size {compute:,.2f} + other "
                f"{float(config['otherMonthlyUsd']):,.2f}) is over the {budget:,.2f} USD monthly budget by "
                f"{100 * (expected / budget - 1):.1f}%{note}"
            ),
            None,
        )
    elif unpriced:  # an unknown price is unknown, never $0: the budget cannot be shown to hold
        yield (
            (
                f"expected cost is unknown: node groups without a price ({', '.join(unpriced)}) run at desired size; "
                f"what is priced comes to {expected:,.2f} USD/month of the {budget:,.2f} USD budget. Set the stack's "
                f"prices for them (or this policy's prices config)"
            ),
            None,
        )


RULE = StackRule(
    description="The stack's expected monthly cost (node groups at desired size plus the rest) must be within its "
    "monthly budget.",
    severity="high",
    references={"cost": "AWS Well-Architected Cost Optimization COST02-BP05: implement cost controls"},
    remediation="Lower desiredNodes, pick a cheaper shape or purchase option (spot, commitments), or raise "
    "budget.monthlyLimitUsd with the budget owner.",
    url="https://docs.aws.amazon.com/wellarchitected/latest/cost-optimization-pillar/cost_govern_usage_controls.html",
    config={
        "monthlyBudgetUsd": {
            "type": ["number", "null"],
            "default": None,
            "description": "Monthly budget, USD; null reads the stack's aws.budgets.Budget.",
        },
        "prices": {
            "type": "object",
            "additionalProperties": {"type": "number"},
            "default": {},
            "description": "USD/hour by instance type as the stack pays it (region, purchase option, "
            "negotiated rates); overrides the catalog's list prices.",
        },
        "hoursPerMonth": {
            "type": "number",
            "exclusiveMinimum": 0,
            "default": 730,
            "description": "Hours billed per month.",
        },
        "otherMonthlyUsd": {
            "type": "number",
            "minimum": 0,
            "default": 0,
            "description": "Monthly cost of everything but node groups, USD (from the plan).",
        },
    },
    types=(*PRICED_TYPES, "aws:budgets/budget:Budget"),
    check=check,
)
