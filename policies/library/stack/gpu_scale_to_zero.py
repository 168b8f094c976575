"""Idle GPUs cost full price: GPU node groups can scale to zero unless their capacity is already paid for."""

from ..pricing import NODE_GROUPS, PRICED_TYPES, instance_type, is_gpu, min_nodes
from ..props import of_type
from ..rule import StackRule


def reserved(group):
    if group.resource_type == "alicloud:cs/nodePool:NodePool":
        return group.props.get("instanceChargeType") == "PrePaid"
    if group.props.get("capacityType") == "CAPACITY_BLOCK":
        return True
    for template in group.property_dependencies.get("launchTemplate", []):
        target = (template.props.get("capacityReservationSpecification") or {}).get("capacityReservationTarget")
        if target:
            return True
    return False


def check(resources, config):
    for group in of_type(resources, *NODE_GROUPS):
        if is_gpu(instance_type(group)) and min_nodes(group) > 0 and not reserved(group):
            yield f"GPU node group {group.name} keeps at least {min_nodes(group)} nodes running", group.urn


RULE = StackRule(
    description="GPU node groups must be able to scale to zero unless they run on reserved capacity.",
    severity="medium",
    references={"cost": "AWS Well-Architected Cost Optimization COST09-BP03: supply resources dynamically"},
    remediation="Set the minimum size to 0 (the autoscaler adds nodes when GPU pods are pending), "
    "or run the group on a capacity reservation or subscription.",
    url="https://docs.aws.amazon.com/wellarchitected/latest/cost-optimization-pillar/cost_manage_demand_resources_dynamic.html",
    types=PRICED_TYPES,
    check=check,
)
