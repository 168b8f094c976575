"""Readiness: can the nodes reach the API server, registries, cloud services and each other?

It reads the security groups the plan declares, their rules and the groups the node pools and launch templates
carry, and judges them by the facts in catalog/cluster_network.yaml (what an enterprise group allows by default,
which flows a node needs). A group the plan does not declare (the one EKS creates) is the cloud's, not judged.
Deny rules are not modelled: an allow rule that covers a flow counts as reaching it.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Iterable, Mapping, Optional, Sequence

from catalog.clouds import type_of
from catalog.cluster_network import network_facts
from components.kubernetes.nodes import ERDMA_PRESENT_LABEL

from .engine import Registration
from .readiness import ACK_CLUSTER, BLOCKING, NODE_POOL, WARNING, Finding

ALI_SG, ALI_RULE = type_of("alicloud", "security_group"), type_of("alicloud", "security_group_rule")
ALI_VPC = type_of("alicloud", "network")
AWS_SG, AWS_RULE = type_of("aws", "security_group"), type_of("aws", "security_group_rule")
AWS_EGRESS = type_of("aws", "security_group_egress")
LAUNCH_TEMPLATE = type_of("aws", "launch_template")


def _net(cidr: Optional[str]) -> Optional[ipaddress.IPv4Network]:
    try:
        return ipaddress.ip_network(str(cidr), strict=False) if cidr else None
    except ValueError:
        return None


def _covers(rule: Mapping[str, Any], protocol: str, ports: Sequence[int], to: Optional[ipaddress.IPv4Network]) -> bool:
    """Does one allow rule (normalised: protocol, low, high, cidr) let this flow through?"""
    if protocol == "all" and rule["protocol"] != "all":
        return False
    if rule["protocol"] != "all" and (
        rule["protocol"] != protocol or not rule["low"] <= ports[0] <= ports[1] <= rule["high"]
    ):
        return False
    cidr = _net(rule.get("cidr"))
    return cidr is not None and to is not None and to.version == cidr.version and to.subnet_of(cidr)


def _ali_rules(regs: Sequence[Registration], group_id: str, direction: str) -> list[dict[str, Any]]:
    rules = []
    for r in regs:
        i = r.inputs
        if r.type != ALI_RULE or i.get("securityGroupId") != group_id or i.get("type") != direction:
            continue
        if (i.get("policy") or "accept") != "accept":
            continue
        low, _, high = str(i.get("portRange") or "-1/-1").partition("/")
        rules.append(
            {
                "protocol": str(i.get("ipProtocol", "all")).lower(),
                "low": int(low),
                "high": int(high or low),
                "cidr": i.get("cidrIp"),
            }
        )
    return rules


def _alicloud(regs: Sequence[Registration]) -> list[Finding]:
    facts = network_facts()
    groups = {r.id: r for r in regs if r.type == ALI_SG}
    vpcs = {r.id: r.inputs.get("cidrBlock") for r in regs if r.type == ALI_VPC}
    cluster = next((r for r in regs if r.type == ACK_CLUSTER), None)
    pod_cidr = _net((cluster.inputs if cluster else {}).get("podCidr"))
    used: dict[str, list[str]] = {}
    for r in regs:
        if r.type in (NODE_POOL, ACK_CLUSTER):
            ids = list(r.inputs.get("securityGroupIds") or []) + [r.inputs.get("securityGroupId")]
            for gid in ids:
                if gid in groups:
                    used.setdefault(gid, []).append(r.name)
    findings = []
    for gid, users in sorted(used.items()):
        group = groups[gid]
        kind = "enterprise" if group.inputs.get("securityGroupType") == "enterprise" else "basic"
        vpc = _net(vpcs.get(group.inputs.get("vpcId")))
        where = ", ".join(sorted(set(users)))
        if not facts["default_egress"]["alicloud"][kind]:
            egress = _ali_rules(regs, gid, "egress")
            for need in facts["node_egress"]["alicloud"]:
                to = vpc if need["to"] == "vpc" else _net(need["to"])
                if not any(_covers(rule, need["protocol"], need["ports"], to) for rule in egress):
                    findings.append(
                        Finding(
                            "node-egress",
                            BLOCKING,
                            group.name,
                            f"the {kind} security group on {where} allows no outbound {need['protocol']} "
                            f"{need['ports'][0]}-{need['ports'][1]} to {to} ({need['name']}): an enterprise group "
                            "denies outbound traffic by default and ACK adds no rules to a group you bring, so nodes "
                            "cannot join the cluster or pull images",
                            f"add an egress rule {need['protocol']} {need['ports'][0]}/{need['ports'][1]} to {to} "
                            f"(source: {facts['sources'][need['source']].split()[0]})",
                        )
                    )
        if kind == "enterprise":
            ingress = _ali_rules(regs, gid, "ingress")
            wanted = [("node-to-node", vpc)] + ([("pod-cidr", pod_cidr)] if pod_cidr is not None else [])
            for what, cidr in wanted:
                if cidr is not None and not any(_covers(rule, "all", [-1, -1], cidr) for rule in ingress):
                    findings.append(
                        Finding(
                            "node-ingress",
                            BLOCKING,
                            group.name,
                            f"the enterprise security group on {where} allows no inbound traffic from {cidr} ({what}): "
                            "its members are isolated from each other by default"
                            + (", and Flannel sends pod traffic from the pod CIDR" if what == "pod-cidr" else ""),
                            f"add an ingress rule, all protocols, from {cidr}",
                        )
                    )
    return findings


def _aws_egress(group: Registration, regs: Sequence[Registration]) -> list[dict[str, Any]]:
    rules = []
    for e in group.inputs.get("egress") or []:
        for cidr in e.get("cidrBlocks") or []:
            rules.append(
                {
                    "protocol": "all" if str(e.get("protocol")) in ("-1", "all") else str(e.get("protocol")),
                    "low": int(e.get("fromPort", 0)),
                    "high": int(e.get("toPort", 65535)),
                    "cidr": cidr,
                }
            )
    for r in regs:
        i = r.inputs
        standalone = r.type == AWS_RULE and i.get("type") == "egress" and i.get("securityGroupId") == group.id
        vpc_rule = r.type == AWS_EGRESS and i.get("securityGroupId") == group.id
        if standalone or vpc_rule:
            protocol = str(i.get("protocol") or i.get("ipProtocol") or "-1")
            for cidr in (i.get("cidrBlocks") or []) + ([i["cidrIpv4"]] if i.get("cidrIpv4") else []):
                rules.append(
                    {
                        "protocol": "all" if protocol in ("-1", "all") else protocol,
                        "low": int(i.get("fromPort", 0)),
                        "high": int(i.get("toPort", 65535)),
                        "cidr": cidr,
                    }
                )
    for rule in rules:
        if rule["protocol"] == "all":
            rule["low"], rule["high"] = 0, 65535
    return rules


def _aws(regs: Sequence[Registration]) -> list[Finding]:
    facts = network_facts()
    groups = {r.id: r for r in regs if r.type == AWS_SG}
    findings = []
    for t in regs:
        if t.type != LAUNCH_TEMPLATE:
            continue
        ids = set(t.inputs.get("vpcSecurityGroupIds") or [])
        for nic in t.inputs.get("networkInterfaces") or []:
            ids.update(nic.get("securityGroups") or [])
        if not ids or any(gid not in groups for gid in ids):
            continue  # a group the plan does not declare (EKS's cluster group) is the cloud's, with all egress
        egress = [rule for gid in ids for rule in _aws_egress(groups[gid], regs)]
        for need in facts["node_egress"]["aws"]:
            if not any(_covers(rule, need["protocol"], need["ports"], _net(need["to"])) for rule in egress):
                names = ", ".join(sorted(groups[g].name for g in ids))
                findings.append(
                    Finding(
                        "node-egress",
                        BLOCKING,
                        t.name,
                        f"the nodes' security groups ({names}) allow no outbound {need['protocol']} {need['ports'][0]} "
                        f"to {need['to']} ({need['name']}): a group declared without egress has none, so nodes cannot "
                        "reach the EKS endpoint, ECR or S3 and never join",
                        "add the EKS cluster security group to the nodes, or an egress rule tcp 443 to 0.0.0.0/0 "
                        f"(source: {facts['sources'][need['source']].split()[0]})",
                    )
                )
    return findings


def _erdma_on_terway(regs: Sequence[Registration]) -> list[Finding]:
    """Terway manages a node's secondary ENIs; left alone it may take the eRDMA ones (ACK: use eRDMA)."""
    terway = network_facts()["network_policy"]["alicloud"]["enforcing_addons"]
    clusters = [
        r for r in regs if r.type == ACK_CLUSTER and any(a.get("name") in terway for a in r.inputs.get("addons") or [])
    ]
    erdma = [
        r.name
        for r in regs
        if r.type == NODE_POOL
        and any(label.get("key") == ERDMA_PRESENT_LABEL for label in r.inputs.get("labels") or [])
    ]
    if not clusters or not erdma:
        return []
    return [
        Finding(
            "erdma-terway",
            WARNING,
            clusters[0].name,
            f"eRDMA pools ({', '.join(sorted(erdma))}) on a Terway cluster: Terway must be told to leave the "
            "eRDMA ENIs alone (its ENI whitelist) or it may take them",
            "configure Terway's ENI whitelist before the eRDMA controller runs (ACK: use eRDMA in ACK "
            "clusters, https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/"
            "use-erdma-in-ack-clusters)",
        )
    ]


def check(registrations: Iterable[Registration]) -> list[Finding]:
    regs = list(registrations)
    return _alicloud(regs) + _aws(regs) + _erdma_on_terway(regs)
