"""ACK Pro cluster (private API, KMS secrets, SLS audit, RRSA) and GPU node pools."""

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
    def __init__(self, name: str, *, vswitch_ids: Sequence[pulumi.Input[str]], security_group_id: pulumi.Input[str],
                 kms_key_id: pulumi.Input[str], log_project: pulumi.Input[str], log_ttl_days: int, public_api: bool,
                 kubernetes_version: str, protect: bool, tags: dict[str, str],
                 opts: pulumi.ResourceOptions | None = None):
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
            deletion_protection=protect, tags=tags, opts=pulumi.ResourceOptions(parent=self))
        self.id = self.cluster.id
        self.register_outputs({"cluster_id": self.cluster.id})


@dataclass(frozen=True)
class NodePoolArgs:
    cluster_id: pulumi.Input[str]
    instance_type: str
    vswitch_ids: Sequence[pulumi.Input[str]]
    security_group_id: pulumi.Input[str]
    kms_key_id: pulumi.Input[str]
    min_nodes: int
    desired_nodes: int
    max_nodes: int
    capacity: str
    labels: dict[str, str]
    taints: Sequence[dict[str, str]]
    root_volume_gib: int
    mlps_hardening: bool
    tags: dict[str, str]
    spot_max_price_usd: Optional[float] = None


class GpuNodePool(pulumi.ComponentResource):
    def __init__(self, name: str, args: NodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:GpuNodePool", name, None, opts)
        charge = {"instance_charge_type": "PrePaid", "period": 1, "period_unit": "Month", "auto_renew": True} \
            if args.capacity == "reservation" else {"instance_charge_type": "PostPaid"}
        if args.capacity == "spot":
            charge["spot_strategy"] = "SpotWithPriceLimit" if args.spot_max_price_usd else "SpotAsPriceGo"
            if args.spot_max_price_usd:
                charge["spot_price_limits"] = [{"instance_type": args.instance_type,
                                                "price_limit": f"{args.spot_max_price_usd:.2f}"}]
        self.node_pool = alicloud.cs.NodePool(
            name, node_pool_name=name, cluster_id=args.cluster_id, instance_types=[args.instance_type],
            vswitch_ids=list(args.vswitch_ids), security_group_ids=[args.security_group_id],
            desired_size=args.desired_nodes,
            scaling_config={"enable": args.min_nodes != args.max_nodes, "min_size": args.min_nodes,
                            "max_size": args.max_nodes},
            image_type="AliyunLinux3",
            system_disk_category="cloud_essd", system_disk_size=args.root_volume_gib, system_disk_encrypted=True,
            system_disk_kms_key=args.kms_key_id,
            data_disks=[{"category": "cloud_essd", "size": 500, "encrypted": "true", "kms_key_id": args.kms_key_id}],
            instance_metadata_options={"http_tokens": "required"},
            # Security Center agent and CIS-style hardening; with MLPS, classified-protection (等保) hardening.
            security_hardening_os=not args.mlps_hardening, soc_enabled=args.mlps_hardening,
            install_cloud_monitor=True,
            labels=[{"key": k, "value": v} for k, v in sorted(args.labels.items())],
            taints=[dict(t) for t in args.taints],
            management={"enable": True, "auto_repair": True, "max_unavailable": 1},
            tags=args.tags, opts=pulumi.ResourceOptions(parent=self, ignore_changes=["desiredSize"]), **charge)
        self.register_outputs({"node_pool_id": self.node_pool.id})
