"""Issue #23 item 14: where EKS node auto repair is on, the EKS node monitoring agent it acts on is installed."""

from __future__ import annotations

import json

import pytest

from blueprints.offline.readiness import check
from catalog.addons import addon_versions
from conftest import SHIPPED, resources, shipped_plan

AWS_STACKS = [s for s in SHIPPED if not s.endswith("aliyun")]


@pytest.mark.parametrize("stack", AWS_STACKS)
def test_auto_repair_comes_with_the_node_monitoring_agent(stack):
    plan = shipped_plan(stack)
    groups = resources(plan, "aws:eks/nodeGroup:NodeGroup")
    assert groups and all(g["nodeRepairConfig"] == {"enabled": True} for g in groups)
    (agent,) = [a for a in resources(plan, "aws:eks/addon:Addon") if a["addonName"] == "eks-node-monitoring-agent"]
    version = plan.resolved.spec.kubernetes_version
    assert agent["addonVersion"] == addon_versions("aws", version).managed["eks-node-monitoring-agent"]
    # Its DCGM host engine must reach the tainted GPU nodes too.
    assert json.loads(agent["configurationValues"])["dcgmAgent"]["tolerations"] == [{"operator": "Exists"}]
    assert not [f for f in plan.readiness if f.check == "node-repair-without-monitoring-agent"]


def test_auto_repair_without_the_agent_is_reported_as_the_old_plan_was():
    plan = shipped_plan("research-a100")
    old = [
        r
        for r in plan.registrations
        if not (r.type == "aws:eks/addon:Addon" and r.inputs.get("addonName") == "eks-node-monitoring-agent")
    ]
    found = [f for f in check(old) if f.check == "node-repair-without-monitoring-agent"]
    assert len(found) == len(resources(plan, "aws:eks/nodeGroup:NodeGroup")) and found[0].level == "warning"
