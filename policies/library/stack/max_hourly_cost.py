"""The stack's GPU nodes, at their desired size and list prices, stay under an hourly ceiling."""

from ..pricing import NODE_GROUPS, cpu_instance_types, desired_nodes, instance_type, price
from ..props import of_type
from ..rule import StackRule


def check(resources, config):
    total, unpriced = 0.0, []
    for group in of_type(resources, *NODE_GROUPS):
        instance = instance_type(group)
        if instance in cpu_instance_types():
            continue  # a system (CPU) group; this rule caps GPU spend
        hourly = price(instance, config["prices"]) if instance else None
        if hourly is None:
            unpriced.append(f"{group.name} ({instance})")
            continue
        total += hourly * desired_nodes(group)
    for name in unpriced:
        yield f"no price for node group {name}; add it to this rule's prices config", None
    if total > config["maxUsdPerHour"]:
        yield f"GPU nodes cost {total:.2f} USD/hour at desired size, over the {config['maxUsdPerHour']:.2f} limit", None


RULE = StackRule(
    description="The stack's GPU nodes at desired size must cost less than the configured hourly limit.",
    severity="high",
    references={"cost": "AWS Well-Architected Cost Optimization COST02-BP05: implement cost controls"},
    remediation="Lower desired node counts, pick a smaller shape, or raise maxUsdPerHour with the budget owner.",
    url="https://docs.aws.amazon.com/wellarchitected/latest/cost-optimization-pillar/cost_govern_usage_controls.html",
    config={"maxUsdPerHour": {"type": "number", "exclusiveMinimum": 0, "default": 250,
                              "description": "Highest hourly cost of GPU nodes at desired size, USD."},
            "prices": {"type": "object", "additionalProperties": {"type": "number"}, "default": {},
                       "description": "Negotiated USD/hour by instance type; overrides the catalog's list prices."}},
    check=check,
)
