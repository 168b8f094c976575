"""A GPU node group: launch template (IMDSv2, encrypted root, EFA layout) and an EKS managed node group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import pulumi
import pulumi_aws as aws

CAPACITY_TYPES = {"on-demand": "ON_DEMAND", "spot": "SPOT", "reservation": "ON_DEMAND",
                  "capacity-block": "CAPACITY_BLOCK"}
AMI_TYPE = "AL2023_x86_64_NVIDIA"
TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}


def efa_interfaces(count: int, security_group_ids: Sequence[pulumi.Input[str]]) -> list[dict[str, Any]]:
    """One EFA per network card: card 0 device 0 `efa` (carries IP too), the rest device 1 `efa-only`.

    https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html
    """
    interfaces = []
    for card in range(count):
        first = card == 0
        interfaces.append({
            "network_card_index": card,
            "device_index": 0 if first else 1,
            "interface_type": "efa" if first else "efa-only",
            "delete_on_termination": "true",
            "associate_public_ip_address": "false",
            "security_groups": list(security_group_ids),
        })
    return interfaces


@dataclass(frozen=True)
class GpuNodeGroupArgs:
    cluster_name: pulumi.Input[str]
    kubernetes_version: str
    node_role_arn: pulumi.Input[str]
    instance_type: str
    subnet_ids: Sequence[pulumi.Input[str]]
    security_group_ids: Sequence[pulumi.Input[str]]
    kms_key_arn: pulumi.Input[str]
    min_nodes: int
    desired_nodes: int
    max_nodes: int
    capacity: str
    labels: dict[str, str]
    taints: Sequence[dict[str, str]]
    root_volume_gib: int
    efa_interfaces: int
    tags: dict[str, str]
    placement_group_name: Optional[pulumi.Input[str]] = None
    capacity_reservation_id: Optional[str] = None


class GpuNodeGroup(pulumi.ComponentResource):
    def __init__(self, name: str, args: GpuNodeGroupArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:aws:GpuNodeGroup", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        # The EKS-optimized AL2023 NVIDIA AMI release, read from its public SSM parameter.
        release = aws.ssm.get_parameter_output(
            name=f"/aws/service/eks/optimized-ami/{args.kubernetes_version}/amazon-linux-2023/x86_64/nvidia/"
                 "recommended/release_version",
            opts=pulumi.InvokeOutputOptions(parent=self))

        template: dict[str, Any] = {
            "metadata_options": {"http_tokens": "required", "http_endpoint": "enabled",
                                 "http_put_response_hop_limit": 1, "instance_metadata_tags": "disabled"},
            "block_device_mappings": [{
                "device_name": "/dev/xvda",
                "ebs": {"volume_size": args.root_volume_gib, "volume_type": "gp3", "encrypted": "true",
                        "kms_key_id": args.kms_key_arn, "delete_on_termination": "true"},
            }],
            "tag_specifications": [{"resource_type": kind, "tags": args.tags} for kind in ("instance", "volume")],
        }
        if args.efa_interfaces:
            template["network_interfaces"] = efa_interfaces(args.efa_interfaces, args.security_group_ids)
        else:
            template["vpc_security_group_ids"] = list(args.security_group_ids)
        if args.placement_group_name is not None:
            template["placement"] = {"group_name": args.placement_group_name}
        if args.capacity in ("reservation", "capacity-block"):
            template["capacity_reservation_specification"] = {
                "capacity_reservation_target": {"capacity_reservation_id": args.capacity_reservation_id}}
        self.launch_template = aws.ec2.LaunchTemplate(
            name, description=f"{name}: {args.instance_type} GPU nodes", update_default_version=True,
            tags=args.tags, opts=child, **template)

        self.node_group = aws.eks.NodeGroup(
            name,
            cluster_name=args.cluster_name,
            node_group_name=name,
            node_role_arn=args.node_role_arn,
            subnet_ids=list(args.subnet_ids),
            instance_types=[args.instance_type],
            ami_type=AMI_TYPE,
            release_version=release.value,
            capacity_type=CAPACITY_TYPES[args.capacity],
            scaling_config={"min_size": args.min_nodes, "desired_size": args.desired_nodes,
                            "max_size": args.max_nodes},
            launch_template={"id": self.launch_template.id, "version": self.launch_template.latest_version},
            labels=args.labels,
            taints=[{"key": t["key"], "value": t["value"], "effect": TAINT_EFFECTS[t["effect"]]} for t in args.taints],
            update_config={"max_unavailable": 1},
            tags=args.tags,
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["scalingConfig.desiredSize"]))
        self.register_outputs({"node_group": self.node_group.node_group_name})
