"""Readiness: quotas a plan cannot meet as written (issue #27, item 3), warnings with the fix.

A team's GPU quota beyond what every GPU group holds at maxNodes can never be used in full. A preset's team
quota on a cluster made smaller is a real case, so it is a warning, not a refusal.


EKS allows 30 managed node groups per cluster by default, adjustable in Service Quotas
(https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html, read 2026-11-24). A stack may mean more
(its account has a raised quota), so this is a warning with the fix, not a refusal; the resolver refuses past
five times the quota (blueprints/conflicts.py) so a huge file stays fast.
"""

from __future__ import annotations

from typing import Iterable

from ..conflicts import EKS_MANAGED_NODE_GROUPS_QUOTA
from ..resolver import ResolvedPlan
from .engine import Registration
from .readiness import NODE_GROUP, WARNING, Finding


def check(registrations: Iterable[Registration]) -> list[Finding]:
    groups = [r for r in registrations if r.type == NODE_GROUP]
    if len(groups) <= EKS_MANAGED_NODE_GROUPS_QUOTA:
        return []
    return [
        Finding(
            "eks-node-group-quota",
            WARNING,
            groups[EKS_MANAGED_NODE_GROUPS_QUOTA].urn,
            f"the plan creates {len(groups)} EKS managed node groups (the system group included); EKS allows "
            f"{EKS_MANAGED_NODE_GROUPS_QUOTA} per cluster by default, so creating group "
            f"{EKS_MANAGED_NODE_GROUPS_QUOTA + 1} fails unless the account's quota was raised",
            "request 'Managed node groups per cluster' in Service Quotas (Amazon EKS) before `pulumi up`, or merge "
            "GPU groups of one shape and raise their maxNodes",
        )
    ]


def team_quotas(resolved: ResolvedPlan) -> list[Finding]:
    """Each team quota above the cluster's GPUs at maxNodes. A team's `gpus` are whole GPUs: the queues multiply them
    into MIG instances or shared replicas per group (platform.py `_queueing`), so the bound is physical GPUs."""
    most = sum(g.spec.max_nodes * g.shape.gpu.count for g in resolved.node_groups)
    return [
        Finding(
            "team-quota-beyond-cluster",
            WARNING,
            f"cluster.kubernetes.teams.{team}.gpus",
            f"team {team} may use {t.gpus} GPUs, but the cluster has at most {most} (its GPU groups at "
            f"maxNodes): the quota can never be used in full",
            f"set kubernetes.teams.{team}.gpus to at most {most}, or raise the GPU groups' maxNodes",
        )
        for team, t in sorted(resolved.spec.kubernetes.teams.items())
        if t.gpus > most
    ]
