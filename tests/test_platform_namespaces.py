"""The platform's own namespaces are one list the spec checks team and serving names against, and it is complete:
every namespace a shipped plan creates or installs a chart into is a team's, the trainer's, serving's or on it."""

from __future__ import annotations

import pytest

from blueprints.errors import BlueprintError
from blueprints.platform_namespaces import PLATFORM_NAMESPACES
from blueprints.stackconfig import parse_cluster
from conftest import resources, shipped_cluster, shipped_plan

STACKS = ("enterprise-h100", "research-a100-aliyun", "startup-serving", "startup-serving-aliyun")


@pytest.mark.parametrize("stack", STACKS)
def test_every_namespace_a_shipped_plan_uses_is_a_workload_namespace_or_the_platforms(stack):
    plan = shipped_plan(stack)
    spec = parse_cluster(shipped_cluster(stack), stack)
    workload = {*spec.kubernetes.teams, spec.kubernetes.trainer_namespace, spec.serving.namespace}
    used = {r["metadata"]["name"] for r in resources(plan, "kubernetes:core/v1:Namespace")}
    used |= {r["namespace"] for r in resources(plan, "kubernetes:helm.sh/v3:Release")}
    assert used - workload <= PLATFORM_NAMESPACES, sorted(used - workload - PLATFORM_NAMESPACES)


@pytest.mark.parametrize("namespace", ["keda", "monitoring", "kube-system"])
def test_a_team_may_not_take_a_platform_namespace(namespace):
    cluster = shipped_cluster("research-a100")
    cluster.setdefault("kubernetes", {})["teams"] = {namespace: {"gpus": 8}}
    with pytest.raises(BlueprintError, match=f"team name '{namespace}' must be a new namespace name"):
        parse_cluster(cluster, "test")
