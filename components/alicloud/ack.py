"""ACK Pro cluster (private API, KMS secrets, SLS audit, RRSA, add-ons), its node pools and autoscaling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import pulumi
import pulumi_alicloud as alicloud

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


class AckCluster(pulumi.ComponentResource):
    """``addons`` (name -> version or None for ACK's current release) are installed when the cluster is
    created; ACK applies this list at creation only, so later changes go through cs.KubernetesAddon."""

    def __init__(self, name: str, *, vswitch_ids: Sequence[pulumi.Input[str]], security_group_id: pulumi.Input[str],
                 kms_key_id: pulumi.Input[str], log_project: pulumi.Input[str], log_ttl_days: int, public_api: bool,
                 kubernetes_version: str, protect: bool, tags: dict[str, str],
                 addons: Optional[dict[str, Optional[str]]] = None, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:AckCluster", name, None, opts)
        # Pin the minor version the stack asks for, at the newest patch ACK offers for it.
        offered = alicloud.cs.get_kubernetes_version_output(
            cluster_type="ManagedKubernetes", profile="Default", opts=pulumi.InvokeOutputOptions(parent=self))
        version = offered.metadatas.apply(lambda ms: newest_patch(kubernetes_version, [m.version for m in ms]))
        self.cluster = alicloud.cs.ManagedKubernetes(
            name, name=name, cluster_spec="ack.pro.small", version=version, vswitch_ids=list(vswitch_ids),
            pod_cidr="172.20.0.0/16", service_cidr="172.21.0.0/20", security_group_id=security_group_id,
            new_nat_gateway=False, slb_internet_enabled=public_api,
            encryption_provider_key=kms_key_id, enable_rrsa=True,
            control_plane_log_components=list(CONTROL_PLANE_LOGS), control_plane_log_project=log_project,
            control_plane_log_ttl=str(log_ttl_days),
            audit_log_config={"enabled": True, "sls_project_name": log_project},
            addons=[{"name": addon, **({"version": version} if version else {})}
                    for addon, version in sorted((addons or {}).items())] or None,
            deletion_protection=protect, tags=tags, opts=pulumi.ResourceOptions(parent=self))
        self.id = self.cluster.id
        self.register_outputs({"cluster_id": self.cluster.id})


@dataclass(frozen=True)
class NodePoolArgs:
    """One ACK node pool; every field is required unless it has a default below."""

    cluster_id: pulumi.Input[str]
    instance_type: str
    vswitch_ids: Sequence[pulumi.Input[str]]
    security_group_id: pulumi.Input[str]
    kms_key_id: pulumi.Input[str]  # encrypts system and data disks
    min_nodes: int
    desired_nodes: int  # the starting size; ACK's autoscaler owns it afterwards (ignored on update)
    max_nodes: int
    labels: dict[str, str]
    root_volume_gib: int
    mlps_hardening: bool  # classified-protection (MLPS) hardening instead of ACK's CIS-style hardening
    tags: dict[str, str]
    capacity: str = "on-demand"  # on-demand | spot | reservation (subscription)
    taints: Sequence[dict[str, str]] = ()
    spot_max_price_usd: Optional[float] = None
    autoscaling: bool = False  # let ACK's node autoscaler scale between min and max (from zero for GPU pools)
    data_disk_gib: int = 500  # container images and scratch; GPU images are large


def _declare_pool(component: pulumi.ComponentResource, name: str, args: NodePoolArgs,
                  scaling_type: str) -> "alicloud.cs.NodePool":
    charge = {"instance_charge_type": "PrePaid", "period": 1, "period_unit": "Month", "auto_renew": True} \
        if args.capacity == "reservation" else {"instance_charge_type": "PostPaid"}
    if args.capacity == "spot":
        charge["spot_strategy"] = "SpotWithPriceLimit" if args.spot_max_price_usd else "SpotAsPriceGo"
        if args.spot_max_price_usd:
            charge["spot_price_limits"] = [{"instance_type": args.instance_type,
                                            "price_limit": f"{args.spot_max_price_usd:.2f}"}]
    return alicloud.cs.NodePool(
        name, node_pool_name=name, cluster_id=args.cluster_id, instance_types=[args.instance_type],
        vswitch_ids=list(args.vswitch_ids), security_group_ids=[args.security_group_id],
        desired_size=args.desired_nodes,
        scaling_config={"enable": args.autoscaling and args.min_nodes != args.max_nodes, "min_size": args.min_nodes,
                        "max_size": args.max_nodes, "type": scaling_type},
        image_type="AliyunLinux3",
        system_disk_category="cloud_essd", system_disk_size=args.root_volume_gib, system_disk_encrypted=True,
        system_disk_kms_key=args.kms_key_id,
        data_disks=[{"category": "cloud_essd", "size": args.data_disk_gib, "encrypted": "true",
                     "kms_key_id": args.kms_key_id}],
        instance_metadata_options={"http_tokens": "required"},
        # Security Center agent and CIS-style hardening; with MLPS, classified-protection (等保) hardening.
        security_hardening_os=not args.mlps_hardening, soc_enabled=args.mlps_hardening,
        install_cloud_monitor=True,
        labels=[{"key": k, "value": v} for k, v in sorted(args.labels.items())],
        taints=[dict(t) for t in args.taints],
        management={"enable": True, "auto_repair": True, "max_unavailable": 1},
        tags=args.tags, opts=pulumi.ResourceOptions(parent=component, ignore_changes=["desiredSize"]), **charge)


class GpuNodePool(pulumi.ComponentResource):
    """GPU nodes (ACK GPU images ship the driver and device plugin), tainted, scaled from zero by ACK."""

    def __init__(self, name: str, args: NodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:GpuNodePool", name, None, opts)
        self.node_pool = _declare_pool(self, name, args, "gpu")
        self.register_outputs({"node_pool_id": self.node_pool.id})


class SystemNodePool(pulumi.ComponentResource):
    """Untainted, pay-as-you-go CPU nodes across the cluster's zones for CoreDNS, operators and controllers."""

    def __init__(self, name: str, args: NodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:SystemNodePool", name, None, opts)
        if args.taints or args.capacity != "on-demand":
            raise ValueError("a system node pool is untainted and pay-as-you-go")
        self.node_pool = _declare_pool(self, name, args, "cpu")
        self.register_outputs({"node_pool_id": self.node_pool.id})


@dataclass(frozen=True)
class AutoscalingArgs:
    cluster_id: pulumi.Input[str]
    unneeded_minutes: int
    utilization_threshold: float
    gpu_utilization_threshold: float


class AckAutoscaling(pulumi.ComponentResource):
    """The cluster's node autoscaler settings: scale up from zero, give idle nodes back after ``unneeded_minutes``.
    https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/auto-scaling-of-nodes"""

    def __init__(self, name: str, args: AutoscalingArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:AckAutoscaling", name, None, opts)
        self.config = alicloud.cs.AutoscalingConfig(
            name, cluster_id=args.cluster_id, scaler_type="cluster-autoscaler", scale_up_from_zero=True,
            scale_down_enabled=True, unneeded_duration=f"{args.unneeded_minutes}m",
            utilization_threshold=str(args.utilization_threshold),
            gpu_utilization_threshold=str(args.gpu_utilization_threshold), expander="least-waste",
            skip_nodes_with_local_storage=False, opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({})
