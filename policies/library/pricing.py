"""What the cost rules read of node groups, and their hourly price: the pack config's rates, else the catalog."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping, Optional

from pulumi_policy import PolicyResource

from .props import items

try:  # the wheel ships the catalog as blueprints.catalog, next to this library (setup.py)
    from .. import catalog
    from ..catalog import clouds, prices
except ImportError:  # the repository: the top-level package at the bottom of the layers
    import catalog
    from catalog import clouds, prices

NODE_GROUPS = clouds.types_of("node_group")
# What a node group's price is read from: the group, and its launch template where the group names no type.
PRICED_TYPES = (*NODE_GROUPS, *clouds.types_of("launch_template"))


@lru_cache(maxsize=1)
def gpu_instance_types() -> frozenset[str]:
    """The GPU shapes the catalog lists (facts with sources)."""
    return frozenset(shape.instance_type for shape in catalog.load_catalog().shapes)


def instance_type(group: PolicyResource) -> Optional[str]:
    """The node group's instance type, else its launch template's (an EKS capacity-block group names it there only:
    https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html)."""
    types = items(group.props.get("instanceTypes"))
    if types:
        return str(types[0])
    for template in (group.property_dependencies or {}).get("launchTemplate", []):
        if template.props.get("instanceType"):
            return str(template.props["instanceType"])
    return None


def desired_nodes(group: PolicyResource) -> int:
    scaling = group.props.get("scalingConfig") or {}
    return int(scaling.get("desiredSize", group.props.get("desiredSize", 0)) or 0)


def min_nodes(group: PolicyResource) -> int:
    return int((group.props.get("scalingConfig") or {}).get("minSize", 0) or 0)


def price(instance: str, overrides: Mapping[str, Any]) -> Optional[float]:
    """The pack config's rate (a stack's regional price for how it buys), else the catalog's list price: the same
    lookup the resolver and the plan's cost use (catalog.prices.hourly_price)."""
    return prices.hourly_price(instance, overrides=overrides)[0]


def is_gpu(instance: Optional[str]) -> bool:
    return bool(instance) and instance in gpu_instance_types()


def accelerated(instance: Optional[str]) -> bool:
    """Whether an instance type, priced in the catalog or not, carries accelerators (so costs like one): a name in
    one of the clouds' accelerated families (catalog/clouds.yaml `accelerated`)."""
    return bool(instance) and any(p.accelerated.matches(instance) for p in clouds.load_clouds().clouds.values())


def priced(group: PolicyResource, overrides: Mapping[str, Any]) -> tuple[Optional[str], Optional[float]]:
    """(instance type, USD/hour) of a node group; the price is None when neither config nor catalog has it."""
    instance = instance_type(group)
    return instance, (price(instance, overrides) if instance else None)
