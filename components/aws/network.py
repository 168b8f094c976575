"""VPC for GPU nodes: private subnets, NAT, VPC endpoints, flow logs, EFA security group, placement."""

import ipaddress
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..policy_document import Statement, service_role
from ..zones import SUBNET_COUNT

# Interface endpoints nodes need so image pulls, IRSA and logs stay inside the VPC.
INTERFACE_ENDPOINTS = ("ecr.api", "ecr.dkr", "sts", "logs", "ec2")


@dataclass(frozen=True)
class NetworkArgs(Args):
    """The GPU nodes' network."""

    region: str
    """The VPC's region: names the VPC endpoints' services."""
    cidr: str
    """The VPC's CIDR; split into three private subnets for nodes and pods and three small public ones for NAT."""
    kms_key_arn: pulumi.Input[str]
    """Encrypts the flow-log group."""
    availability_zones: pulumi.Input[Sequence[str]]
    """Zones for the subnets; the first three are used."""
    account_id: pulumi.Input[str]
    """The account that owns the VPC: the flow-logs role trusts the flow-logs service only for this account's flow
    logs (aws:SourceAccount and aws:SourceArn, against the confused deputy)."""
    flow_log_retention_days: Optional[int] = 365
    """Flow-log retention; a year by default, what audit frameworks commonly ask."""
    partition: Optional[pulumi.Input[str]] = "aws"
    """The AWS partition of the flow logs' ARNs; `aws` unless the account is in China or GovCloud."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on every resource; none by default."""


def _subnets(cidr: str) -> tuple[list[str], list[str]]:
    """Three large private /19-ish subnets for nodes and pods, three small public ones for NAT."""
    net = ipaddress.ip_network(cidr)
    quarters = list(net.subnets(prefixlen_diff=2))
    private = [str(q) for q in quarters[:SUBNET_COUNT]]
    public = [str(s) for s in list(quarters[3].subnets(prefixlen_diff=2))[:SUBNET_COUNT]]
    return private, public


class GpuNetwork(Component):
    """Private-by-default networking; nothing accepts traffic from 0.0.0.0/0."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:GpuNetwork"
    vpc_id: pulumi.Output[str]
    """The VPC."""
    private_subnet_ids: pulumi.Output[Sequence[str]]
    """The private subnets, one per zone, for nodes and file systems."""

    def __init__(self, name: str, args: NetworkArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(NetworkArgs, args)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        self.vpc = aws.ec2.Vpc(
            name,
            cidr_block=args.cidr,
            enable_dns_hostnames=True,
            enable_dns_support=True,
            tags={**tags, "Name": name},
            opts=child,
        )
        # The default security group of a new VPC allows all traffic between its members and
        # all egress; managing it with no rules closes it.
        aws.ec2.DefaultSecurityGroup(f"{name}-default", vpc_id=self.vpc.id, tags=tags, opts=child)
        igw = aws.ec2.InternetGateway(name, vpc_id=self.vpc.id, tags=tags, opts=child)
        self._zonal_subnets(name, args, tags, child)
        private_rt = self._routes(name, igw, tags, child)
        self._endpoints(name, args, private_rt, tags, child)
        self._flow_logs(name, args, tags, child)
        self.vpc_id = self.vpc.id
        self.private_subnet_ids = pulumi.Output.all(*[s.id for s in self.private_subnets])
        self.register_outputs({"vpc_id": self.vpc_id, "private_subnet_ids": self.private_subnet_ids})

    def _zonal_subnets(self, name: str, args: NetworkArgs, tags: dict[str, str], child: pulumi.ResourceOptions) -> None:
        """One public (NAT, internet-facing load balancers) and one private subnet (nodes, pods) per zone; no
        subnet gives its instances public addresses."""
        private_cidrs, public_cidrs = _subnets(args.cidr)
        azs = pulumi.Output.from_input(args.availability_zones)
        self.public_subnets = [
            aws.ec2.Subnet(
                f"{name}-public-{i}",
                vpc_id=self.vpc.id,
                cidr_block=cidr,
                availability_zone=azs[i],
                map_public_ip_on_launch=False,
                tags={**tags, "Name": f"{name}-public-{i}", "kubernetes.io/role/elb": "1"},
                opts=child,
            )
            for i, cidr in enumerate(public_cidrs)
        ]
        self.private_subnets = [
            aws.ec2.Subnet(
                f"{name}-private-{i}",
                vpc_id=self.vpc.id,
                cidr_block=cidr,
                availability_zone=azs[i],
                map_public_ip_on_launch=False,
                tags={**tags, "Name": f"{name}-private-{i}", "kubernetes.io/role/internal-elb": "1"},
                opts=child,
            )
            for i, cidr in enumerate(private_cidrs)
        ]

    def _routes(
        self, name: str, igw: aws.ec2.InternetGateway, tags: dict[str, str], child: pulumi.ResourceOptions
    ) -> aws.ec2.RouteTable:
        """Public subnets route out through the internet gateway, private ones only through one NAT gateway."""
        public_rt = aws.ec2.RouteTable(
            f"{name}-public",
            vpc_id=self.vpc.id,
            routes=[{"cidr_block": "0.0.0.0/0", "gateway_id": igw.id}],
            tags=tags,
            opts=child,
        )
        for i, subnet in enumerate(self.public_subnets):
            aws.ec2.RouteTableAssociation(
                f"{name}-public-{i}", subnet_id=subnet.id, route_table_id=public_rt.id, opts=child
            )

        eip = aws.ec2.Eip(f"{name}-nat", domain="vpc", tags=tags, opts=child)
        nat = aws.ec2.NatGateway(name, allocation_id=eip.id, subnet_id=self.public_subnets[0].id, tags=tags, opts=child)
        private_rt = aws.ec2.RouteTable(
            f"{name}-private",
            vpc_id=self.vpc.id,
            routes=[{"cidr_block": "0.0.0.0/0", "nat_gateway_id": nat.id}],
            tags=tags,
            opts=child,
        )
        for i, subnet in enumerate(self.private_subnets):
            aws.ec2.RouteTableAssociation(
                f"{name}-private-{i}", subnet_id=subnet.id, route_table_id=private_rt.id, opts=child
            )
        return private_rt

    def _endpoints(
        self,
        name: str,
        args: NetworkArgs,
        private_rt: aws.ec2.RouteTable,
        tags: dict[str, str],
        child: pulumi.ResourceOptions,
    ) -> None:
        """S3 (gateway) and the interface endpoints nodes need, so image pulls, IRSA and logs stay in the VPC."""
        aws.ec2.VpcEndpoint(
            f"{name}-s3",
            vpc_id=self.vpc.id,
            vpc_endpoint_type="Gateway",
            service_name=f"com.amazonaws.{args.region}.s3",
            route_table_ids=[private_rt.id],
            tags=tags,
            opts=child,
        )
        endpoint_sg = aws.ec2.SecurityGroup(
            f"{name}-endpoints",
            vpc_id=self.vpc.id,
            description="HTTPS from inside the VPC to interface endpoints",
            ingress=[
                {
                    "protocol": "tcp",
                    "from_port": 443,
                    "to_port": 443,
                    "cidr_blocks": [args.cidr],
                    "description": "HTTPS from the VPC",
                }
            ],
            tags=tags,
            opts=child,
        )
        for service in INTERFACE_ENDPOINTS:
            aws.ec2.VpcEndpoint(
                f"{name}-{service.replace('.', '-')}",
                vpc_id=self.vpc.id,
                vpc_endpoint_type="Interface",
                service_name=f"com.amazonaws.{args.region}.{service}",
                private_dns_enabled=True,
                subnet_ids=[s.id for s in self.private_subnets],
                security_group_ids=[endpoint_sg.id],
                tags=tags,
                opts=child,
            )

    def _flow_logs(self, name: str, args: NetworkArgs, tags: dict[str, str], child: pulumi.ResourceOptions) -> None:
        """All VPC traffic logged to an encrypted log group, written by a role only this account's flow logs use."""
        flow_logs = aws.cloudwatch.LogGroup(
            f"{name}-flow-logs",
            retention_in_days=args.flow_log_retention_days,
            kms_key_id=args.kms_key_arn,
            tags=tags,
            opts=child,
        )
        # The VPC user guide's flow-logs role: aws:SourceAccount is the flow log's owner, aws:SourceArn the flow
        # log (its id is not known before it exists, hence the wildcard the guide suggests).
        # https://docs.aws.amazon.com/vpc/latest/userguide/flow-logs-iam-role.html
        flow_role = service_role(
            f"{name}-flow-logs",
            "vpc-flow-logs.amazonaws.com",
            [
                Statement(
                    sid="WriteFlowLogs",
                    actions=["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"],
                    resources=[flow_logs.arn, pulumi.Output.concat(flow_logs.arn, ":*")],
                )
            ],
            tags,
            child,
            source_account=args.account_id,
            source_arn=pulumi.Output.concat(
                "arn:", args.partition, ":ec2:", args.region, ":", args.account_id, ":vpc-flow-log/*"
            ),
        )
        aws.ec2.FlowLog(
            name,
            vpc_id=self.vpc.id,
            traffic_type="ALL",
            log_destination_type="cloud-watch-logs",
            log_destination=flow_logs.arn,
            iam_role_arn=flow_role.arn,
            tags=tags,
            opts=child,
        )


@dataclass(frozen=True)
class EfaFabricArgs(Args):
    """The EFA security group and placement."""

    vpc_id: pulumi.Input[str]
    """The VPC of the EFA nodes."""
    placement_groups: Optional[Sequence[str]] = ()
    """Node groups that get a cluster placement group of their own (EFA's latency wants one; capacity blocks and
    ODCRs do without); none by default. The first keeps the fabric's own name, the one a cluster-wide placement
    group had, so existing clusters keep theirs."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on every resource; none by default."""


class EfaFabric(Component):
    """What EFA needs besides the interfaces: one security group open to itself, and a placement group."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:EfaFabric"
    security_group_id: pulumi.Output[str]
    """The group every EFA interface carries."""

    def __init__(self, name: str, args: EfaFabricArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(EfaFabricArgs, args)
        vpc_id, tags = args.vpc_id, dict(args.tags)
        child = pulumi.ResourceOptions(parent=self)
        # EFA's OS-bypass traffic must be allowed in and out to the group itself, all protocols.
        # https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html#efa-start-security
        self.security_group = aws.ec2.SecurityGroup(
            name,
            vpc_id=vpc_id,
            description="EFA: all traffic to and from members of this group only",
            ingress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True, "description": "EFA in"}],
            egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "self": True, "description": "EFA out"}],
            tags={**tags, "Name": name},
            opts=child,
        )
        # One cluster placement group per node group: a group packs its own nodes, and two groups never compete
        # for one group's rack capacity. https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html
        self.placement_groups = {
            group: aws.ec2.PlacementGroup(
                name if i == 0 else f"{name}-{group}", strategy="cluster", tags=tags, opts=child
            )
            for i, group in enumerate(args.placement_groups)
        }
        self.security_group_id = self.security_group.id
        self.register_outputs({"security_group_id": self.security_group_id})
