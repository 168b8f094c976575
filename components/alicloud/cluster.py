"""AlicloudGpuCluster: the Alibaba Cloud components composed for one resolved plan."""

from __future__ import annotations

import json

import pulumi
import pulumi_alicloud as alicloud
import pulumi_kubernetes as k8s

from blueprints.resolver import ResolvedPlan

from ..kubernetes.platform import MIG_CONFIG_LABEL, GpuPlatform, platform_args
from .ack import AckCluster, GpuNodePool, NodePoolArgs
from .audit import AuditLogs, SecurityCenter
from .kms import DataKey
from .network import GpuVpc
from .ram import RrsaRole
from ..policy_document import Statement
from .storage import DataBucket, SharedFileSystem

TRAINING_NAMESPACE, TRAINING_SERVICE_ACCOUNT = "training", "trainer"


class AlicloudGpuCluster(pulumi.ComponentResource):
    def __init__(self, name: str, plan: ResolvedPlan, opts: pulumi.ResourceOptions | None = None):
        spec = plan.spec
        provider = alicloud.Provider(f"{name}-alicloud", region=spec.region)
        super().__init__("gpu-blueprints:alicloud:GpuCluster", name, None,
                         pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers={"alicloud": provider})))
        child = pulumi.ResourceOptions(parent=self)
        invoke = pulumi.InvokeOutputOptions(parent=self, provider=provider)
        tags = {**spec.project_tags, "gpu-cluster": name}
        production = spec.environment == "production"
        account_id = alicloud.get_account_output(opts=invoke).id
        # vSwitches go where every GPU shape of the plan is sold.
        zone_ids = alicloud.get_zones_output(available_instance_type=plan.node_groups[0].shape.instance_type,
                                             available_resource_creation="VSwitch", opts=invoke).ids

        key = DataKey(f"{name}-data", protect=production, tags=tags, opts=child)
        logs = AuditLogs(f"{name}-audit", region=spec.region, account_id=account_id,
                         retention_days=spec.logging.retention_days, kms_key_id=key.id, tags=tags, opts=child)
        vpc = GpuVpc(name, cidr=spec.networking.vpc_cidr, zone_ids=zone_ids, log_project=logs.project.project_name,
                     log_store=logs.stores["flowlog"].logstore_name, tags=tags, opts=child)
        ack = AckCluster(name, vswitch_ids=[v.id for v in vpc.vswitches], security_group_id=vpc.security_group.id,
                         kms_key_id=key.id, log_project=logs.project.project_name,
                         log_ttl_days=spec.logging.retention_days, public_api=spec.networking.public_api,
                         kubernetes_version=spec.kubernetes_version, protect=production, tags=tags, opts=child)
        mlps = "mlps" in spec.compliance.frameworks
        pools = []
        for group in plan.node_groups:
            g = group.spec
            pools.append(GpuNodePool(f"{name}-{group.name}", NodePoolArgs(
                cluster_id=ack.id, instance_type=group.shape.instance_type,
                vswitch_ids=[vpc.vswitches[0].id] if group.rdma_interfaces else [v.id for v in vpc.vswitches],
                security_group_id=vpc.security_group.id, kms_key_id=key.id, min_nodes=g.min_nodes,
                desired_nodes=g.desired_nodes, max_nodes=g.max_nodes, capacity=g.capacity,
                labels={**g.labels, "gpu-blueprints/node-group": group.name,
                        "gpu-blueprints/gpu-model": group.shape.gpu.model,
                        **({"alibabacloud.com/erdma": "true"} if group.rdma_interfaces else {}),
                        **({MIG_CONFIG_LABEL: g.mig_profile} if g.mig_profile else {})},
                taints=[t.model_dump() for t in g.taints], root_volume_gib=g.root_volume_gib,
                mlps_hardening=mlps, spot_max_price_usd=g.spot_max_price_usd, tags=tags), opts=child))

        outputs: dict[str, pulumi.Input] = {"cluster_id": ack.id, "kms_key_id": key.id, "vpc_id": vpc.vpc.id}
        grants = [Statement(actions=["kms:Decrypt", "kms:GenerateDataKey", "kms:DescribeKey"],
                               resources=[pulumi.Output.concat("acs:kms:", spec.region, ":", account_id, ":key/",
                                                               key.id)])]
        storage = spec.storage
        bucket = None
        if storage.object_storage.enabled:
            bucket = DataBucket(f"{name}-data", kms_key_id=key.id, protect=production,
                                noncurrent_version_days=storage.object_storage.noncurrent_version_days,
                                infrequent_access_after_days=storage.object_storage.infrequent_access_after_days,
                                tags=tags, opts=child)
            grants += bucket.grant_read_write("checkpoints") + bucket.grant_read_write("datasets")
            outputs["data_bucket"] = bucket.name
        if storage.parallel_fs.type in ("cpfs", "nas"):
            fs = SharedFileSystem(f"{name}-{storage.parallel_fs.type}", kind=storage.parallel_fs.type,
                                  size_gib=storage.parallel_fs.size_gib or 0, vpc_id=vpc.vpc.id,
                                  vswitch_id=vpc.vswitches[0].id, zone_id=vpc.vswitches[0].zone_id,
                                  kms_key_id=key.id, protect=production, tags=tags, opts=child)
            outputs["file_system_id"] = fs.file_system.id
            if storage.object_storage.cache and bucket is not None:
                fs.cache(bucket.name)

        trainer = RrsaRole(f"{name}-trainer", account_id=account_id, cluster_id=ack.id, namespace=TRAINING_NAMESPACE,
                           service_account=TRAINING_SERVICE_ACCOUNT, statements=grants, tags=tags, opts=child)
        outputs["trainer_role_arn"] = trainer.arn
        if plan.rdma:
            # The eRDMA controller is an ACK add-on: ACK installs and authorizes it, so the stack grants it no
            # RAM role of its own. "ofed" is the driver mode for GPU instances running NCCL
            # (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/use-erdma-in-ack-clusters).
            alicloud.cs.KubernetesAddon(f"{name}-erdma-controller", cluster_id=ack.id, name="ack-erdma-controller",
                                        config=json.dumps({"preferDriver": "ofed"}),
                                        opts=pulumi.ResourceOptions(parent=self, depends_on=pools))
        SecurityCenter(f"{name}-security-center", opts=child)

        if spec.kubernetes.enabled:
            # ACK GPU nodes come with the NVIDIA driver, container runtime and device plugin
            # (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/gpu-overview).
            credential = alicloud.cs.get_cluster_credential_output(cluster_id=ack.id, temporary_duration_minutes=60,
                                                                   opts=invoke)
            kube = k8s.Provider(f"{name}-k8s", kubeconfig=pulumi.Output.secret(credential.kube_config), opts=child)
            GpuPlatform(name, platform_args(plan, driver_preinstalled=True, device_plugin_preinstalled=True),
                        opts=pulumi.ResourceOptions(parent=self, providers={"kubernetes": kube}, depends_on=pools))
        self.outputs = outputs
        self.register_outputs(outputs)
