"""Node reachability from the declared security groups (issue 23 item 1), on both clouds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from blueprints.offline import readiness_network
from blueprints.offline.readiness import BLOCKING
from conftest import shipped_plan

ALIYUN = ("startup-t4-aliyun", "research-a100-aliyun", "enterprise-aliyun")


@dataclass
class Reg:
    """A registration as the check reads it (type, name, id, inputs), for plans edited in a test."""

    type: str
    name: str
    id: str
    inputs: dict[str, Any] = field(default_factory=dict)


def as_regs(plan) -> list[Reg]:
    return [Reg(r.type, r.name, r.id, r.inputs) for r in plan.registrations]


def network(findings):
    return [(f.check, f.level) for f in findings if f.check in ("node-egress", "node-ingress")]


@pytest.mark.parametrize("stack", ALIYUN)
def test_the_ack_node_group_lets_nodes_out_and_each_other_in(stack):
    plan = shipped_plan(stack)
    assert network(plan.readiness) == []
    rules = [r.inputs for r in plan.registrations if r.type == readiness_network.ALI_RULE]
    # Terway: pods take VPC addresses, so the VPC rules cover them and no pod-CIDR rule is needed.
    assert {(r["type"], r["cidrIp"]) for r in rules} >= {
        ("egress", "100.64.0.0/10"),
        ("egress", "10.0.0.0/16"),
        ("ingress", "10.0.0.0/16"),
    }


@pytest.mark.parametrize("stack", ALIYUN)
def test_the_group_as_it_was_one_ingress_rule_no_egress_is_blocking(stack):
    # The network component before the fix declared only the intra-VPC ingress rule on an enterprise group, and
    # the cluster ran Flannel on 172.20.0.0/16.
    regs = [
        r for r in as_regs(shipped_plan(stack)) if r.type != readiness_network.ALI_RULE or r.name.endswith("-intra-vpc")
    ]
    for r in regs:
        if r.type == "alicloud:cs/managedKubernetes:ManagedKubernetes":
            r.inputs = {**r.inputs, "podCidr": "172.20.0.0/16", "podVswitchIds": None}
    found = readiness_network.check(regs)
    assert ("node-egress", BLOCKING) in network(found)
    assert any(f.check == "node-ingress" and "172.20.0.0/16" in f.message for f in found)
    assert all("egress rule" in f.fix or "ingress rule" in f.fix for f in found if f.check.startswith("node-"))


def test_a_basic_group_allows_egress_by_default():
    regs = [
        r
        for r in as_regs(shipped_plan("startup-t4-aliyun"))
        if r.type != readiness_network.ALI_RULE or r.name.endswith("-intra-vpc")
    ]
    for r in regs:
        if r.type == readiness_network.ALI_SG:
            r.inputs = {**r.inputs, "securityGroupType": "normal"}
    assert network(readiness_network.check(regs)) == []


def test_aws_nodes_on_a_declared_group_without_egress_cannot_join():
    regs = as_regs(shipped_plan("research-a100"))
    assert network(readiness_network.check(regs)) == []  # nodes carry EKS's cluster group, which allows all out
    efa = next(r for r in regs if r.type == readiness_network.AWS_SG and r.name.endswith("-efa"))
    for r in regs:
        if r.type == readiness_network.LAUNCH_TEMPLATE and r.inputs.get("networkInterfaces"):
            r.inputs = {
                **r.inputs,
                "networkInterfaces": [{**nic, "securityGroups": [efa.id]} for nic in r.inputs["networkInterfaces"]],
            }
    found = readiness_network.check(regs)
    assert ("node-egress", BLOCKING) in network(found)
    efa.inputs = {
        **efa.inputs,
        "egress": [
            *efa.inputs["egress"],
            {"protocol": "tcp", "fromPort": 443, "toPort": 443, "cidrBlocks": ["0.0.0.0/0"]},
        ],
    }
    assert network(readiness_network.check(regs)) == []


def test_erdma_pools_on_terway_are_told_to_whitelist_their_enis():
    found = [f for f in shipped_plan("enterprise-aliyun").readiness if f.check == "erdma-terway"]
    assert [f.level for f in found] == ["warning"] and "whitelist" in found[0].fix
    assert [f for f in shipped_plan("startup-t4-aliyun").readiness if f.check == "erdma-terway"] == []
