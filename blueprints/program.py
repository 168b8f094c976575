"""build_cluster(plan): the one place that picks a cloud's components for a resolved plan."""

from __future__ import annotations

import pulumi

from .resolver import ResolvedPlan


def build_cluster(plan: ResolvedPlan, name: str | None = None) -> pulumi.ComponentResource:
    name = name or pulumi.get_stack()
    if plan.spec.cloud == "aws":
        from components.aws.cluster import AwsGpuCluster

        return AwsGpuCluster(name, plan)
    from components.alicloud.cluster import AlicloudGpuCluster

    return AlicloudGpuCluster(name, plan)
