"""ACK Pro cluster (private API, KMS secrets, SLS audit, RRSA, add-ons), its node pools and autoscaling."""

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_alicloud as alicloud

from ..base import ALICLOUD, Args, Component, as_args

POD_CIDR = "172.20.0.0/16"  # Flannel's pod network; the nodes' security group must let it in
CONTROL_PLANE_LOGS = ("apiserver", "kcm", "scheduler", "ccm")


def newest_patch(minor: str, offered: Sequence[str]) -> str:
    """The newest ACK version (x.y.z-aliyun.n) of a minor version, from what ACK offers in the region."""

    def key(version: str) -> tuple[int, ...]:
        base, _, patch = version.partition("-aliyun.")
        return tuple(int(p) for p in base.split(".")) + (int(patch or 0),)

    matching = [v for v in offered if v.startswith(f"{minor}.") and "-aliyun." in v]
    if not matching:
        raise ValueError(f"ACK offers no Kubernetes {minor} here; offered: {', '.join(sorted(offered)) or 'none'}")
    return max(matching, key=key)


@dataclass(frozen=True)
class AckClusterArgs(Args):
    """An ACK Pro cluster. Fields without a default are required."""

    kubernetes_version: str
    """The minor version (`1.33`); the cluster gets the newest patch ACK offers for it in the region."""
    vswitch_ids: Sequence[pulumi.Input[str]]
    """The nodes' vSwitches."""
    security_group_id: pulumi.Input[str]
    """The nodes' security group."""
    kms_key_id: pulumi.Input[str]
    """Encrypts Kubernetes Secrets."""
    log_project: pulumi.Input[str]
    """The SLS project for control-plane and audit logs."""
    log_ttl_days: Optional[int] = 365
    """Control-plane log retention; a year by default."""
    public_api: Optional[bool] = False
    """Expose the API server on a public SLB; off by default."""
    protect: Optional[bool] = True
    """Deletion protection; on by default."""
    addons: Optional[Mapping[str, Optional[str]]] = field(default_factory=dict)
    """Add-ons installed at creation (name -> version, or None for ACK's current release); ACK applies this list
    only when it creates the cluster, later changes go through cs.KubernetesAddon. Empty: ACK's default set."""
    addon_configs: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Add-on name -> its JSON configuration at creation (Terway's `NetworkPolicy`); none by default."""
    pod_vswitch_ids: Optional[Sequence[pulumi.Input[str]]] = None
    """Terway's pod vSwitches (same zones as the nodes'): pods get VPC addresses from them and no pod CIDR is set.
    None (default): Flannel on `POD_CIDR`. ACK fixes the network plugin when it creates the cluster."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the cluster; none by default."""


class AckCluster(Component):
    """An ACK Pro cluster: private API, KMS-encrypted secrets, control-plane and audit logs to SLS, RRSA on."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:AckCluster"
    cluster_id: pulumi.Output[str]
    """The cluster's id."""

    def __init__(self, name: str, args: AckClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(AckClusterArgs, args)
        vswitch_ids, security_group_id, kms_key_id = args.vswitch_ids, args.security_group_id, args.kms_key_id
        log_project, log_ttl_days, public_api = args.log_project, args.log_ttl_days, args.public_api
        kubernetes_version, protect, addons, tags = (
            args.kubernetes_version,
            args.protect,
            dict(args.addons),
            dict(args.tags),
        )
        # Pin the minor version the stack asks for, at the newest patch ACK offers for it.
        offered = alicloud.cs.get_kubernetes_version_output(
            cluster_type="ManagedKubernetes", profile="Default", opts=pulumi.InvokeOutputOptions(parent=self)
        )
        version = offered.metadatas.apply(lambda ms: newest_patch(kubernetes_version, [m.version for m in ms]))
        self.cluster = alicloud.cs.ManagedKubernetes(
            name,
            name=name,
            cluster_spec="ack.pro.small",
            version=version,
            vswitch_ids=list(vswitch_ids),
            **(
                {"pod_vswitch_ids": list(args.pod_vswitch_ids)}
                if args.pod_vswitch_ids is not None
                else {"pod_cidr": POD_CIDR}
            ),
            service_cidr="172.21.0.0/20",
            security_group_id=security_group_id,
            new_nat_gateway=False,
            slb_internet_enabled=public_api,
            encryption_provider_key=kms_key_id,
            enable_rrsa=True,
            control_plane_log_components=list(CONTROL_PLANE_LOGS),
            control_plane_log_project=log_project,
            control_plane_log_ttl=str(log_ttl_days),
            audit_log_config={"enabled": True, "sls_project_name": log_project},
            addons=[
                {
                    "name": addon,
                    **({"version": version} if version else {}),
                    **({"config": args.addon_configs[addon]} if addon in args.addon_configs else {}),
                }
                for addon, version in sorted((addons or {}).items())
            ]
            or None,
            deletion_protection=protect,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.id = self.cluster_id = self.cluster.id
        self.register_outputs({"cluster_id": self.cluster_id})


@dataclass(frozen=True)
class NodeGroupArgs(Args):
    """One ACK node pool. Fields without a default are required."""

    cluster_id: pulumi.Input[str]
    """The ACK cluster the pool joins."""
    instance_type: str
    """One ECS instance type; the pool never mixes shapes."""
    vswitch_ids: Sequence[pulumi.Input[str]]
    """vSwitches; eRDMA pools get one, so their nodes share a zone."""
    security_group_id: pulumi.Input[str]
    """The nodes' security group."""
    kms_key_id: pulumi.Input[str]
    """Encrypts system and data disks."""
    min_nodes: int
    """0 lets a GPU pool scale to zero when idle."""
    desired_nodes: int
    """The starting size; ACK's autoscaler owns it afterwards, so later changes are ignored."""
    max_nodes: int
    """The most nodes the autoscaler may add: the pool's cost ceiling."""
    root_volume_gib: int
    """Encrypted ESSD system disk."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Kubernetes node labels; none by default."""
    mlps_hardening: Optional[bool] = False
    """Classified-protection (MLPS) hardening instead of ACK's CIS-style default; off by default."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the pool; none by default."""
    capacity: Optional[str] = "on-demand"
    """How nodes are bought: on-demand (pay-as-you-go, default), spot or reservation (subscription)."""
    taints: Optional[Sequence[Mapping[str, str]]] = ()
    """key, value, effect in Kubernetes spelling; none by default (GPU pools pass `nvidia.com/gpu`)."""
    spot_max_price_usd: Optional[float] = None
    """Spot bid ceiling per hour; None (default) bids up to the pay-as-you-go price."""
    autoscaling: Optional[bool] = False
    """Let ACK's node autoscaler scale between min and max (from zero for GPU pools); off by default."""
    data_disk_gib: Optional[int] = 500
    """Encrypted ESSD data disk for container images and scratch; GPU images are large."""
    deployment_set_id: Optional[pulumi.Input[str]] = None
    """An ECS deployment set the pool's instances launch into (a low-latency one packs eRDMA nodes close together);
    None (default): none."""


def _declare_pool(
    component: pulumi.ComponentResource, name: str, args: NodeGroupArgs, scaling_type: str
) -> "alicloud.cs.NodePool":
    charge = (
        {"instance_charge_type": "PrePaid", "period": 1, "period_unit": "Month", "auto_renew": True}
        if args.capacity == "reservation"
        else {"instance_charge_type": "PostPaid"}
    )
    if args.capacity == "spot":
        charge["spot_strategy"] = "SpotWithPriceLimit" if args.spot_max_price_usd else "SpotAsPriceGo"
        if args.spot_max_price_usd:
            charge["spot_price_limits"] = [
                {"instance_type": args.instance_type, "price_limit": f"{args.spot_max_price_usd:.2f}"}
            ]
    return alicloud.cs.NodePool(
        name,
        node_pool_name=name,
        cluster_id=args.cluster_id,
        instance_types=[args.instance_type],
        vswitch_ids=list(args.vswitch_ids),
        security_group_ids=[args.security_group_id],
        desired_size=args.desired_nodes,
        scaling_config={
            "enable": args.autoscaling and args.min_nodes != args.max_nodes,
            "min_size": args.min_nodes,
            "max_size": args.max_nodes,
            "type": scaling_type,
        },
        image_type="AliyunLinux3",
        system_disk_category="cloud_essd",
        system_disk_size=args.root_volume_gib,
        system_disk_encrypted=True,
        system_disk_kms_key=args.kms_key_id,
        data_disks=[
            {"category": "cloud_essd", "size": args.data_disk_gib, "encrypted": "true", "kms_key_id": args.kms_key_id}
        ],
        instance_metadata_options={"http_tokens": "required"},
        # Security Center agent and CIS-style hardening; with MLPS, classified-protection (等保) hardening.
        security_hardening_os=not args.mlps_hardening,
        soc_enabled=args.mlps_hardening,
        install_cloud_monitor=True,
        labels=[{"key": k, "value": v} for k, v in sorted(args.labels.items())],
        taints=[dict(t) for t in args.taints],
        management={"enable": True, "auto_repair": True, "max_unavailable": 1},
        **({"deployment_set_id": args.deployment_set_id} if args.deployment_set_id is not None else {}),
        tags=args.tags,
        opts=pulumi.ResourceOptions(parent=component, ignore_changes=["desiredSize"]),
        **charge,
    )


class GpuNodeGroup(Component):
    """GPU nodes in an ACK node pool (ACK GPU images ship the driver and device plugin), tainted, scaled from zero."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:GpuNodePool"
    node_pool_id: pulumi.Output[str]
    """The ACK node pool."""

    def __init__(self, name: str, args: NodeGroupArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        self.node_pool = _declare_pool(self, name, as_args(NodeGroupArgs, args), "gpu")
        self.node_pool_id = self.node_pool.id
        self.register_outputs({"node_pool_id": self.node_pool_id})


class SystemNodeGroup(Component):
    """Untainted, pay-as-you-go CPU nodes across the cluster's zones for CoreDNS, operators and controllers."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:SystemNodePool"
    node_pool_id: pulumi.Output[str]
    """The ACK node pool."""

    def __init__(self, name: str, args: NodeGroupArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(NodeGroupArgs, args)
        if args.taints or args.capacity != "on-demand":
            raise ValueError("a system node pool is untainted and pay-as-you-go")
        self.node_pool = _declare_pool(self, name, args, "cpu")
        self.node_pool_id = self.node_pool.id
        self.register_outputs({"node_pool_id": self.node_pool_id})


@dataclass(frozen=True)
class AckAutoscalingArgs(Args):
    """The cluster's node autoscaler settings."""

    cluster_id: pulumi.Input[str]
    """The ACK cluster."""
    unneeded_minutes: Optional[int] = 10
    """Idle time before a node is given back; ten minutes by default."""
    utilization_threshold: Optional[float] = 0.3
    """Scale in a CPU node below this use; 0.3 by default, the seeds' "scale in below 30%"."""
    gpu_utilization_threshold: Optional[float] = 0.3
    """Scale in a GPU node below this GPU use; 0.3 by default."""
    scaler_type: Optional[str] = "cluster-autoscaler"
    """Which autoscaler ACK runs: ``cluster-autoscaler`` (node auto scaling; the default) or ``goatscaler`` (ACK
    GOATScaler, node instant scaling). The provider's valid values (pulumi-alicloud 4.0.0 AutoscalingConfig
    ``scaler_type``); GOATScaler takes only the ``least-waste`` expander, which this component sets, and scales only
    node pools in standard (``release``) scaling mode, the pools' default."""


class AckAutoscaling(Component):
    """The cluster's node autoscaler settings: scale up from zero, give idle nodes back after ``unneeded_minutes``.
    https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/auto-scaling-of-nodes and, with
    ``scaler_type`` goatscaler,
    https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/instant-elasticity"""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:AckAutoscaling"
    config_id: pulumi.Output[str]
    """The autoscaling configuration."""

    def __init__(self, name: str, args: AckAutoscalingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(AckAutoscalingArgs, args)
        self.config = alicloud.cs.AutoscalingConfig(
            name,
            cluster_id=args.cluster_id,
            scaler_type=args.scaler_type,
            scale_up_from_zero=True,
            scale_down_enabled=True,
            unneeded_duration=f"{args.unneeded_minutes}m",
            utilization_threshold=str(args.utilization_threshold),
            gpu_utilization_threshold=str(args.gpu_utilization_threshold),
            expander="least-waste",
            skip_nodes_with_local_storage=False,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.config_id = self.config.id
        self.register_outputs({"config_id": self.config_id})
