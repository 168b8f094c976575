"""EKS managed node groups: launch template (IMDSv2, encrypted root, EFA layout, NVMe scratch) and the group.

`GpuNodeGroup` carries the GPU taints and tells the Cluster Autoscaler, through tags on its Auto Scaling
group, what a node would offer (labels, taints, GPUs, EFA devices), so the group can grow from zero.
`SystemNodeGroup` is the untainted CPU group that runs cluster services.
"""

import base64
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..kubernetes.nodes import STARTUP_TAINT_PREFIX

CAPACITY_TYPES = {
    "on-demand": "ON_DEMAND",
    "spot": "SPOT",
    "reservation": "ON_DEMAND",
    "capacity-block": "CAPACITY_BLOCK",
}
GPU_AMI_TYPE = "AL2023_x86_64_NVIDIA"
SYSTEM_AMI_TYPE = "AL2023_x86_64_STANDARD"
TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}
# Cluster Autoscaler node templates for groups at zero nodes: tags on the Auto Scaling group.
# https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/aws/README.md
NODE_TEMPLATE = "k8s.io/cluster-autoscaler/node-template"

# AL2023 nodeadm stripes every instance-store NVMe into one RAID0 array and puts kubelet and containerd
# (so images and emptyDir volumes) on it. EKS merges this part with the NodeConfig it writes itself.
# https://awslabs.github.io/amazon-eks-ami/nodeadm/doc/api/#localstorageoptions
LOCAL_NVME_RAID0_USER_DATA = """MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

---
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  instance:
    localStorage:
      strategy: RAID0

--//--
"""


def efa_interfaces(count: int, security_group_ids: Sequence[pulumi.Input[str]]) -> list[dict[str, Any]]:
    """One EFA per network card: card 0 device 0 `efa` (carries IP too), the rest device 1 `efa-only`.

    https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html
    """
    interfaces = []
    for card in range(count):
        first = card == 0
        interfaces.append(
            {
                "network_card_index": card,
                "device_index": 0 if first else 1,
                "interface_type": "efa" if first else "efa-only",
                "delete_on_termination": "true",
                "associate_public_ip_address": "false",
                "security_groups": list(security_group_ids),
            }
        )
    return interfaces


def autoscaler_node_template(
    labels: Mapping[str, str], taints: Sequence[Mapping[str, str]], resources: Mapping[str, int]
) -> dict[str, str]:
    """The ASG tags from which the Cluster Autoscaler builds a node of an empty group."""
    tags = {f"{NODE_TEMPLATE}/label/{k}": v for k, v in sorted(labels.items())}
    # Startup taints are transient (the autoscaler ignores them in its templates): only lasting ones are tagged.
    tags.update(
        {
            f"{NODE_TEMPLATE}/taint/{t['key']}": f"{t['value']}:{t['effect']}"
            for t in taints
            if not t["key"].startswith(STARTUP_TAINT_PREFIX)
        }
    )
    tags.update({f"{NODE_TEMPLATE}/resources/{k}": str(v) for k, v in sorted(resources.items()) if v})
    return tags


@dataclass(frozen=True)
class NodeGroupArgs(Args):
    """One EKS managed node group. Fields without a default are required."""

    cluster_name: pulumi.Input[str]
    """The EKS cluster the group joins."""
    kubernetes_version: str
    """The cluster's minor version (`1.33`): picks the AMI release from the EKS-optimized AMI's public SSM parameter."""
    node_role_arn: pulumi.Input[str]
    """The nodes' IAM role (see NodeRole)."""
    instance_type: str
    """One EC2 instance type; the group never mixes shapes, so every node offers the same GPUs."""
    subnet_ids: Sequence[pulumi.Input[str]]
    """Private subnets; EFA groups get one, in the zone of their placement group."""
    security_group_ids: Sequence[pulumi.Input[str]]
    """The cluster security group, plus the EFA group for EFA nodes."""
    kms_key_arn: pulumi.Input[str]
    """Encrypts the root volume (the key policy must let Auto Scaling use it)."""
    min_nodes: int
    """0 lets a GPU group scale to zero when idle."""
    desired_nodes: int
    """The starting size; the autoscaler owns it afterwards, so later changes are ignored."""
    max_nodes: int
    """The most nodes the autoscaler may add: the cost ceiling of the group."""
    labels: Mapping[str, str]
    """Kubernetes node labels, also written to the autoscaler's node template."""
    root_volume_gib: int
    """Encrypted gp3 root volume; GPU images are large."""
    tags: Mapping[str, str]
    """Tags on the group, its launch template, instances and volumes."""
    capacity: Optional[str] = "on-demand"
    """How nodes are bought: on-demand (default), spot, reservation (an ODCR) or capacity-block."""
    taints: Optional[Sequence[Mapping[str, str]]] = ()
    """key, value, effect in Kubernetes spelling; none by default (GPU groups pass `nvidia.com/gpu`)."""
    efa_interfaces: Optional[int] = 0
    """EFA devices per node; 0 (default) attaches none."""
    placement_group_name: Optional[pulumi.Input[str]] = None
    """A cluster placement group; None (default) places nodes anywhere in the subnets."""
    capacity_reservation_id: Optional[str] = None
    """The reservation or capacity block to launch into (`cr-...`), or for an ODCR a capacity reservation resource
    group's ARN; required with capacity `reservation`/`capacity-block`."""
    capacity_block_starts_at: Optional[str] = None
    """A capacity block's start (UTC, `2026-12-01T11:30:00Z`): the group is created at zero and a scheduled action
    scales it to its size when the block begins; None (default): no schedule. EKS schedules the scale-down itself
    (40 minutes before the block ends), so there is no end here."""
    local_nvme_raid0: Optional[bool] = False
    """Stripe instance-store NVMe as RAID0 for kubelet and containerd; off by default (needs NVMe on the shape)."""
    extended_resources: Optional[Mapping[str, int]] = field(default_factory=dict)
    """What a node offers (`nvidia.com/gpu`, `vpc.amazonaws.com/efa`), for scale-from-zero templates; empty by
    default."""
    release_version: Optional[str] = None
    """A pinned EKS AMI release (`1.33.5-20251120`); None (default) reads the recommended release when the group is
    created and ignores later ones, so a new AMI (and GPU driver) never rolls nodes under a running job."""


def _release_version(component: pulumi.ComponentResource, args: NodeGroupArgs, ami_parameter: str) -> pulumi.Input[str]:
    """The EKS-optimized AL2023 AMI release: the pinned one, else the recommended one from its public SSM parameter,
    held after creation (ignoreChanges in `_declare`) so a new release does not roll the nodes."""
    if args.release_version:
        return args.release_version
    return aws.ssm.get_parameter_output(
        name=f"/aws/service/eks/optimized-ami/{args.kubernetes_version}/amazon-linux-2023/x86_64/{ami_parameter}"
        "recommended/release_version",
        opts=pulumi.InvokeOutputOptions(parent=component),
    ).value


def _launch_template_data(name: str, args: NodeGroupArgs) -> dict[str, Any]:
    """What every node boots with: IMDSv2 only, an encrypted root volume, tags, its network interfaces (EFA or
    plain), placement, the capacity it launches into and, where asked, NVMe scratch as RAID0."""
    template: dict[str, Any] = {
        "metadata_options": {
            "http_tokens": "required",
            "http_endpoint": "enabled",
            "http_put_response_hop_limit": 1,
            "instance_metadata_tags": "disabled",
        },
        "block_device_mappings": [
            {
                "device_name": "/dev/xvda",
                "ebs": {
                    "volume_size": args.root_volume_gib,
                    "volume_type": "gp3",
                    "encrypted": "true",
                    "kms_key_id": args.kms_key_arn,
                    "delete_on_termination": "true",
                },
            }
        ],
        "tag_specifications": [{"resource_type": kind, "tags": dict(args.tags)} for kind in ("instance", "volume")],
    }
    if args.efa_interfaces:
        template["network_interfaces"] = efa_interfaces(args.efa_interfaces, args.security_group_ids)
    else:
        template["vpc_security_group_ids"] = list(args.security_group_ids)
    if args.placement_group_name is not None:
        template["placement"] = {"group_name": args.placement_group_name}
    template.update(_reserved_capacity(name, args))
    if args.local_nvme_raid0:
        template["user_data"] = base64.b64encode(LOCAL_NVME_RAID0_USER_DATA.encode()).decode()
    return template


def _reserved_capacity(name: str, args: NodeGroupArgs) -> dict[str, Any]:
    """Launch-template fields that point nodes at a reservation or capacity block; none for on-demand and spot."""
    fields: dict[str, Any] = {}
    if args.capacity in ("reservation", "capacity-block"):
        if not args.capacity_reservation_id:
            raise ValueError(f"{name}: capacity {args.capacity!r} needs capacity_reservation_id")
        # An ODCR is targeted by id or through a resource group of reservations; a capacity block by its id.
        # https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityReservationTarget.html
        by_group = args.capacity == "reservation" and args.capacity_reservation_id.startswith("arn:")
        target = (
            {"capacity_reservation_resource_group_arn": args.capacity_reservation_id}
            if by_group
            else {"capacity_reservation_id": args.capacity_reservation_id}
        )
        fields["capacity_reservation_specification"] = {"capacity_reservation_target": target}
    if args.capacity == "capacity-block":
        # EKS managed node groups on a capacity block: the launch template carries the block's market type, its
        # reservation and the block's instance type (LaunchTemplateData.InstanceType, not the node group's
        # instanceTypes), or EKS rejects the create request.
        # https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html (as of 2026-11-24)
        fields["instance_market_options"] = {"market_type": "capacity-block"}
        fields["instance_type"] = args.instance_type
    return fields


def _declare(
    component: pulumi.ComponentResource, name: str, args: NodeGroupArgs, ami_type: str, ami_parameter: str
) -> tuple[aws.ec2.LaunchTemplate, aws.eks.NodeGroup]:
    """The launch template and the EKS managed node group on it, shared by the GPU and the system group."""
    release_version = _release_version(component, args, ami_parameter)
    template = _launch_template_data(name, args)
    # A block that has not begun: the group waits at zero until the scheduled action at the start sizes it (its
    # minimum then belongs to the schedule, so a later `pulumi up` does not set it back).
    waits = args.capacity == "capacity-block" and bool(args.capacity_block_starts_at)
    launch_template = aws.ec2.LaunchTemplate(
        name,
        description=f"{name}: {args.instance_type} nodes",
        update_default_version=True,
        tags=dict(args.tags),
        opts=pulumi.ResourceOptions(parent=component),
        **template,
    )
    node_group = aws.eks.NodeGroup(
        name,
        cluster_name=args.cluster_name,
        node_group_name=name,
        node_role_arn=args.node_role_arn,
        subnet_ids=list(args.subnet_ids),
        instance_types=None if args.capacity == "capacity-block" else [args.instance_type],
        ami_type=ami_type,
        release_version=release_version,
        capacity_type=CAPACITY_TYPES[args.capacity],
        scaling_config=(
            {"min_size": 0, "desired_size": 0, "max_size": args.max_nodes}
            if waits
            else {"min_size": args.min_nodes, "desired_size": args.desired_nodes, "max_size": args.max_nodes}
        ),
        launch_template={"id": launch_template.id, "version": launch_template.latest_version},
        labels=dict(args.labels),
        taints=[{"key": t["key"], "value": t["value"], "effect": TAINT_EFFECTS[t["effect"]]} for t in args.taints],
        update_config={"max_unavailable": 1},
        # EKS replaces nodes it finds unhealthy (GPU and accelerator faults included), one at a time.
        # https://docs.aws.amazon.com/eks/latest/userguide/node-health.html
        node_repair_config={"enabled": True},
        tags=dict(args.tags),
        # capacityType and instanceTypes force a replacement and the name is fixed: create-before-delete
        # would clash with the old group's name, so the old group goes first.
        opts=pulumi.ResourceOptions(
            parent=component,
            ignore_changes=["scalingConfig.desiredSize"]
            + (["scalingConfig.minSize"] if waits else [])
            + ([] if args.release_version else ["releaseVersion"]),
            delete_before_replace=True,
        ),
    )
    return launch_template, node_group


class GpuNodeGroup(Component):
    """GPU nodes on the EKS AL2023 NVIDIA AMI, tainted, described to the autoscaler so they scale from zero."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:GpuNodeGroup"
    node_group_name: pulumi.Output[str]
    """The EKS node group's name."""

    def __init__(self, name: str, args: NodeGroupArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(NodeGroupArgs, args)
        self.launch_template, self.node_group = _declare(self, name, args, GPU_AMI_TYPE, "nvidia/")
        # EKS does not copy node group tags to its Auto Scaling group, so the templates are tagged there.
        asg_name = self.node_group.resources.apply(lambda r: r[0].autoscaling_groups[0].name)
        template = autoscaler_node_template(args.labels, args.taints, args.extended_resources)
        self.autoscaler_tags = [
            aws.autoscaling.Tag(
                f"{name}-{i}",
                autoscaling_group_name=asg_name,
                tag={"key": key, "value": value, "propagate_at_launch": False},
                opts=pulumi.ResourceOptions(parent=self),
            )
            for i, (key, value) in enumerate(sorted(template.items()))
        ]
        if args.capacity_block_starts_at:
            # EKS: with desiredSize 0 at create, scale up when the block becomes active, e.g. by a scheduled action at
            # its start. EKS itself schedules the scale-down ("Amazon EKS Node Group Capacity Scaledown Before
            # Reservation End", 40 minutes before the end), and Auto Scaling refuses a second action at one time,
            # so none is declared here. https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html
            size = args.desired_nodes
            self.block_start = aws.autoscaling.Schedule(
                f"{name}-block-start",
                autoscaling_group_name=asg_name,
                scheduled_action_name=f"{name}-block-start",
                start_time=args.capacity_block_starts_at,
                min_size=args.min_nodes,
                max_size=args.max_nodes,
                desired_capacity=size,
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.node_group_name = self.node_group.node_group_name
        self.register_outputs({"node_group_name": self.node_group_name})


class SystemNodeGroup(Component):
    """Untainted, on-demand CPU nodes across the cluster's zones for CoreDNS, operators and controllers."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:SystemNodeGroup"
    node_group_name: pulumi.Output[str]
    """The EKS node group's name."""

    def __init__(self, name: str, args: NodeGroupArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(NodeGroupArgs, args)
        if args.taints or args.capacity != "on-demand":
            raise ValueError("a system node group is untainted and on-demand")
        self.launch_template, self.node_group = _declare(self, name, args, SYSTEM_AMI_TYPE, "standard/")
        self.node_group_name = self.node_group.node_group_name
        self.register_outputs({"node_group_name": self.node_group_name})
