"""Settings that each parse but contradict one another (issue #27, item 3): refused with the field and the fix.

Each check returns "field: what is wrong; the fix" lines, so the resolver reports them all at once.
"""

from __future__ import annotations

from catalog.clouds import profile

from .spec import ClusterSpec

# EKS's default quota is 30 managed node groups per cluster, adjustable through Service Quotas:
# https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html (read 2026-11-24). The plan warns past it
# (blueprints/offline/readiness_quotas.py); past five times it (the bound AWS's cdk-eks-blueprints takes for a
# raised quota, GenericClusterPropsV2Constraints.managedNodeGroups) a stack is refused before any work, so a file
# with hundreds of groups fails in milliseconds instead of planning for many seconds.
EKS_MANAGED_NODE_GROUPS_QUOTA = 30
MAX_NODE_GROUPS = 5 * EKS_MANAGED_NODE_GROUPS_QUOTA


def spec_conflicts(spec: ClusterSpec) -> list[str]:
    """Contradictions visible in the spec alone (before shapes are chosen)."""
    problems = []
    if len(spec.node_groups) > MAX_NODE_GROUPS:
        problems.append(
            f"cluster.nodeGroups: {len(spec.node_groups)} GPU node groups; at most {MAX_NODE_GROUPS} "
            f"(EKS allows {EKS_MANAGED_NODE_GROUPS_QUOTA} managed node groups per cluster by default): "
            f"merge groups of one shape and raise their maxNodes, or split the cluster"
        )
        return problems  # the per-group checks below would bury this under one line a group
    for name, group in spec.node_groups.items():
        where = f"cluster.nodeGroups.{name}"
        if group.capacity_reservation_id and group.capacity in ("spot", "on-demand"):
            problems.append(
                f"{where}.capacityReservationId: {group.capacity} capacity never uses a reservation, so "
                f"{group.capacity_reservation_id!r} would be ignored; set capacity: reservation (an ODCR) "
                f"or capacity-block, or remove capacityReservationId"
            )
        if group.capacity == "capacity-block" and not profile(spec.cloud).capacity_blocks:
            problems.append(
                f"{where}.capacity: capacity blocks are an Amazon EC2 offering, not sold on {spec.cloud}; "
                f"use on-demand, spot or reservation (subscription)"
            )
    return problems
