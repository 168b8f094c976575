"""The stack's GPU nodes, at their desired size and list prices, stay under an hourly ceiling.

The rule sums what it can price (catalog list prices, or the prices config). An accelerated group running
without a price makes the total unknown, and the rule says so rather than counting it as $0 (issue #27).
CPU groups (system groups, CPU user groups) are not this rule's concern.
"""

from ..pricing import NODE_GROUPS, PRICED_TYPES, accelerated, desired_nodes, priced
from ..props import of_type
from ..rule import StackRule


def check(resources, config):
    total, unknown = 0.0, []
    for group in of_type(resources, *NODE_GROUPS):
        instance, hourly = priced(group, config["prices"])
        if hourly is not None:
            total += hourly * desired_nodes(group)
        elif desired_nodes(group) and (instance is None or accelerated(instance)):
            unknown.append(f"{group.name} ({instance or 'type not readable'})")
    if total > config["maxUsdPerHour"]:
        yield f"GPU nodes cost {total:.2f} USD/hour at desired size, over the {config['maxUsdPerHour']:.2f} limit", None
    elif unknown:  # unknown is not $0: the ceiling cannot be shown to hold
        yield (
            (
                f"GPU nodes' hourly cost is unknown: {', '.join(unknown)} run without a price (the priced ones come "
                f"to {total:.2f} of the {config['maxUsdPerHour']:.2f} USD/hour limit); add their prices"
            ),
            None,
        )


RULE = StackRule(
    description="The stack's GPU nodes at desired size must cost less than the configured hourly limit.",
    severity="high",
    references={"cost": "AWS Well-Architected Cost Optimization COST02-BP05: implement cost controls"},
    remediation="Lower desired node counts, pick a smaller shape, or raise maxUsdPerHour with the budget owner.",
    url="https://docs.aws.amazon.com/wellarchitected/latest/cost-optimization-pillar/cost_govern_usage_controls.html",
    config={
        "maxUsdPerHour": {
            "type": "number",
            "exclusiveMinimum": 0,
            "default": 250,
            "description": "Highest hourly cost of GPU nodes at desired size, USD.",
        },
        "prices": {
            "type": "object",
            "additionalProperties": {"type": "number"},
            "default": {},
            "description": "Negotiated USD/hour by instance type; overrides the catalog's list prices.",
        },
    },
    types=PRICED_TYPES,
    check=check,
)
