"""Say which accelerated node groups the cost rules could not price (advisory: the total leaves them out).

A group is reported when its instance type is an accelerated family (or unknown: the type comes from a
launch template the rule cannot read) and neither the catalog nor the prices config has a price. CPU
groups are not reported: they are not GPU spend, and lacking a GPU price is expected of them.
"""

from ..pricing import NODE_GROUPS, PRICED_TYPES, accelerated, priced
from ..props import of_type
from ..rule import StackRule


def check(resources, config):
    for group in of_type(resources, *NODE_GROUPS):
        instance, hourly = priced(group, config["prices"])
        if hourly is not None:
            continue
        if instance is None:
            yield (
                (
                    f"node group {group.name} names no instance type the rule can read; its cost is not in the "
                    "hourly total"
                ),
                group.urn,
            )
        elif accelerated(instance):
            yield (
                (
                    f"no price for accelerated node group {group.name} ({instance}); it is left out of the hourly "
                    "total: add it to max-hourly-cost's prices config"
                ),
                group.urn,
            )


RULE = StackRule(
    description="Accelerated node groups the cost rules cannot price are reported, "
    "so the hourly total is read with care.",
    severity="low",
    level="advisory",
    references={"cost": "AWS Well-Architected Cost Optimization COST02-BP05: implement cost controls"},
    remediation="Add the instance type's USD/hour to the prices config (the same map as stack-max-hourly-cost).",
    url="https://docs.aws.amazon.com/wellarchitected/latest/cost-optimization-pillar/cost_govern_usage_controls.html",
    config={
        "prices": {
            "type": "object",
            "additionalProperties": {"type": "number"},
            "default": {},
            "description": "Negotiated USD/hour by instance type; overrides the catalog's list prices.",
        }
    },
    types=PRICED_TYPES,
    check=check,
)
