"""NetworkPolicies count as a control only where the cluster enforces them (issue 23 item 8).

The packs judge the engine's properties: the vpc-cni add-on's configurationValues on EKS, the ACK cluster's
add-ons on Alibaba Cloud. The plans as they were (vpc-cni without configuration, ACK on Flannel) are rebuilt here
by editing those properties back, and judged through the packs' analyzer path like any plan.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from google.protobuf import struct_pb2

from blueprints.offline.engine import plain
from blueprints.offline.policy import evaluate
from conftest import shipped_plan

RULE = "kubernetes-networking-namespace-default-deny"
ACK = "alicloud:cs/managedKubernetes:ManagedKubernetes"
ADDON = "aws:eks/addon:Addon"


def with_inputs(reg, **changes):
    props = {**plain(reg.properties), **changes}
    props = {k: v for k, v in props.items() if v is not None}
    struct = struct_pb2.Struct()
    struct.update(props)
    return dataclasses.replace(reg, properties=struct)


def as_it_was(plan):
    regs = []
    for r in plan.registrations:
        if r.type == ACK:
            addons = [a for a in r.inputs["addons"] if a["name"] != "terway-eniip"] + [{"name": "flannel"}]
            r = with_inputs(r, addons=addons, podVswitchIds=None, podCidr="172.20.0.0/16")
        if r.type == ADDON and r.inputs.get("addonName") == "vpc-cni":
            r = with_inputs(r, configurationValues=None)
        regs.append(r)
    return regs


def deny_findings(stack, regs):
    return [f for f in evaluate(stack, regs, ["baseline"]) if f["policy"] == RULE]


@pytest.mark.parametrize("stack", ["startup-t4", "startup-t4-aliyun"])
def test_policies_the_cluster_does_not_enforce_are_not_credited(stack):
    plan = shipped_plan(stack)
    assert deny_findings(stack, list(plan.registrations)) == []
    found = deny_findings(stack, as_it_was(plan))
    assert found and all("not enforced" in f["message"] for f in found)


def test_eks_vpc_cni_enforces_network_policy():
    addons = [
        r.inputs
        for r in shipped_plan("research-a100").registrations
        if r.type == ADDON and r.inputs.get("addonName") == "vpc-cni"
    ]
    assert [json.loads(a["configurationValues"]) for a in addons] == [{"enableNetworkPolicy": "true"}]


@pytest.mark.parametrize("stack", ["startup-t4-aliyun", "research-a100-aliyun", "enterprise-aliyun"])
def test_ack_runs_terway_with_network_policy_on_pod_vswitches(stack):
    (cluster,) = [r.inputs for r in shipped_plan(stack).registrations if r.type == ACK]
    names = {a["name"]: a for a in cluster["addons"]}
    assert "flannel" not in names and json.loads(names["terway-eniip"]["config"])["NetworkPolicy"] == "true"
    assert len(cluster["podVswitchIds"]) == 2 and not cluster.get("podCidr")
