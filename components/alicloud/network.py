"""VPC for GPU nodes: vSwitches in the zones that sell the shape, NAT with SNAT, closed security group, flow logs."""

import ipaddress
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_alicloud as alicloud

from ..base import ALICLOUD, Args, Component, as_args


@dataclass(frozen=True)
class NetworkArgs(Args):
    """The GPU nodes' network."""

    cidr: str
    """The VPC's CIDR; two quarters become vSwitches."""
    zone_ids: pulumi.Input[Sequence[str]]
    """Zones that sell the GPU shapes; the first two get a vSwitch (eRDMA pools use the first)."""
    log_project: pulumi.Input[str]
    """The SLS project for flow logs."""
    log_store: pulumi.Input[str]
    """The logstore for flow logs."""
    pod_vswitches: Optional[bool] = False
    """Terway: two more vSwitches (the VPC's other two quarters, same zones) that pods take addresses from; off by
    default."""
    pod_cidr: Optional[str] = None
    """Flannel's pod CIDR, allowed in and out of the nodes' group; None (default, or Terway) adds no such rules."""
    egress_tcp_ports: Optional[Sequence[int]] = ()
    """TCP ports besides 443 the nodes may reach anywhere through NAT (the SMTP relay's port for e-mail alerts: an
    enterprise group drops everything else); none by default."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on every resource; none by default."""


# An enterprise group denies outbound traffic and isolates its members unless a rule allows it, and ACK adds no rule
# to a group you bring. Least privilege per ACK: everything to Alibaba Cloud services (100.64.0.0/10: DNS, internal
# OSS and ACR endpoints), everything inside the VPC (other nodes, the API server's internal CLB on 6443, file system
# mount targets) and, for images and charts from public registries through the NAT gateway, HTTPS anywhere.
# https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-security-group-rules-to-enforce-access-control-on-ack-clusters
# https://www.alibabacloud.com/help/en/ecs/user-guide/basic-security-groups-and-advanced-security-groups
CLOUD_SERVICES_CIDR = "100.64.0.0/10"


class GpuNetwork(Component):
    """A VPC for GPU nodes: vSwitches in zones that sell the shape, NAT with SNAT, a closed security group, flow
    logs."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:GpuVpc"
    vpc_id: pulumi.Output[str]
    """The VPC."""
    vswitch_ids: pulumi.Output[Sequence[str]]
    """The vSwitches, first the one eRDMA pools and file systems use."""
    security_group_id: pulumi.Output[str]
    """The nodes' security group (intra-VPC only)."""

    def __init__(self, name: str, args: NetworkArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(NetworkArgs, args)
        tags, child = dict(args.tags), pulumi.ResourceOptions(parent=self)
        self.vpc = alicloud.vpc.Network(name, vpc_name=name, cidr_block=args.cidr, tags=tags, opts=child)
        self._vswitches(name, args, tags)
        self._nat(name, tags)
        self._security_group(name, args, tags)
        alicloud.vpc.FlowLog(
            name,
            resource_type="VPC",
            resource_id=self.vpc.id,
            traffic_type="All",
            project_name=args.log_project,
            log_store_name=args.log_store,
            flow_log_name=name,
            tags=tags,
            opts=child,
        )
        self.vpc_id = self.vpc.id
        self.vswitch_ids = pulumi.Output.all(*[v.id for v in self.vswitches])
        self.security_group_id = self.security_group.id
        self.register_outputs(
            {"vpc_id": self.vpc_id, "vswitch_ids": self.vswitch_ids, "security_group_id": self.security_group_id}
        )

    def _vswitches(self, name: str, args: NetworkArgs, tags: dict) -> None:
        """Two node vSwitches in the two zones, and with Terway two pod vSwitches beside them (a quarter CIDR each)."""
        child, zones = pulumi.ResourceOptions(parent=self), pulumi.Output.from_input(args.zone_ids)
        subnets = list(ipaddress.ip_network(args.cidr).subnets(prefixlen_diff=2))

        def switch(resource_name: str, index: int) -> alicloud.vpc.Switch:
            return alicloud.vpc.Switch(
                resource_name,
                vpc_id=self.vpc.id,
                cidr_block=str(subnets[index]),
                zone_id=zones[index % 2],
                vswitch_name=resource_name,
                tags=tags,
                opts=child,
            )

        self.vswitches = [switch(f"{name}-{i}", i) for i in range(2)]
        # Terway gives pods VPC addresses from vSwitches of their own in the nodes' zones.
        # https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/use-network-policies
        self.pod_vswitches = [switch(f"{name}-pods-{i}", 2 + i) for i in range(2)] if args.pod_vswitches else []

    def _nat(self, name: str, tags: dict) -> None:
        """An enhanced NAT gateway with an EIP, and SNAT for each node vSwitch."""
        child = pulumi.ResourceOptions(parent=self)
        nat = alicloud.vpc.NatGateway(
            name,
            vpc_id=self.vpc.id,
            vswitch_id=self.vswitches[0].id,
            nat_type="Enhanced",
            payment_type="PayAsYouGo",
            nat_gateway_name=name,
            tags=tags,
            opts=child,
        )
        eip = alicloud.ecs.EipAddress(
            f"{name}-nat", address_name=f"{name}-nat", internet_charge_type="PayByTraffic", tags=tags, opts=child
        )
        bind = alicloud.ecs.EipAssociation(
            f"{name}-nat", allocation_id=eip.id, instance_id=nat.id, instance_type="Nat", opts=child
        )
        for i, vswitch in enumerate(self.vswitches):
            alicloud.vpc.SnatEntry(
                f"{name}-snat-{i}",
                snat_table_id=nat.snat_table_ids,
                source_vswitch_id=vswitch.id,
                snat_ip=eip.ip_address,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[bind]),
            )

    def _security_group(self, name: str, args: NetworkArgs, tags: dict) -> None:
        """Nodes talk to each other, to cloud services and out through NAT; nothing comes in from outside."""
        child = pulumi.ResourceOptions(parent=self)
        self.security_group = alicloud.ecs.SecurityGroup(
            name,
            vpc_id=self.vpc.id,
            security_group_name=name,
            security_group_type="enterprise",
            description="GPU nodes: intra-VPC only",
            tags=tags,
            opts=child,
        )
        alicloud.ecs.SecurityGroupRule(
            f"{name}-intra-vpc",
            type="ingress",
            ip_protocol="all",
            port_range="-1/-1",
            cidr_ip=args.cidr,
            policy="accept",
            priority=1,
            security_group_id=self.security_group.id,
            description="all traffic from inside the VPC (eRDMA, NCCL, kubelet)",
            opts=child,
        )
        for rule, protocol, ports, to, why in _node_rules(args):
            alicloud.ecs.SecurityGroupRule(
                f"{name}-{rule}",
                type=rule.split("-")[0],
                ip_protocol=protocol,
                port_range=ports,
                cidr_ip=to,
                policy="accept",
                priority=1,
                security_group_id=self.security_group.id,
                description=why,
                opts=child,
            )


def _node_rules(args: "NetworkArgs") -> list[tuple[str, str, str, str, str]]:
    """Egress to the VPC, Alibaba's service range, HTTPS and any other port asked for; with Flannel, the pod CIDR
    both ways."""
    rules = [
        ("egress-vpc", "all", "-1/-1", args.cidr, "to nodes, the API server (6443) and mount targets in the VPC"),
        ("egress-cloud-services", "all", "-1/-1", CLOUD_SERVICES_CIDR, "to Alibaba Cloud DNS, OSS, ACR"),
        ("egress-https", "tcp", "443/443", "0.0.0.0/0", "HTTPS through NAT: public registries, charts"),
    ]
    rules += [
        (f"egress-tcp-{port}", "tcp", f"{port}/{port}", "0.0.0.0/0", f"TCP {port} through NAT (the SMTP relay)")
        for port in sorted(set(args.egress_tcp_ports or ()))
        if port != 443
    ]
    if args.pod_cidr:
        rules += [
            ("ingress-pods", "all", "-1/-1", args.pod_cidr, "from pods (Flannel routes pod traffic)"),
            ("egress-pods", "all", "-1/-1", args.pod_cidr, "to pods on other nodes (Flannel)"),
        ]
    return rules
