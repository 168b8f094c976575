"""GpuCluster on Alibaba Cloud: ACK, GPU and system node pools, storage, identity and audit from one args object."""

import hashlib
import json
from typing import Optional

import pulumi
import pulumi_alicloud as alicloud
import pulumi_kubernetes as k8s

from ..base import ALICLOUD, as_args
from ..cluster_args import AlicloudClusterArgs, FileSystemArgs, GpuGroupArgs, platform_args
from ..cluster_base import GpuClusterBase
from ..kubernetes.nodes import (
    ACK_DEVICE_PLUGIN_OFF,
    ACK_GPU_SCHEDULE_LABEL,
    DEVICE_PLUGIN_CONFIG_LABEL,
    ERDMA_PRESENT_LABEL,
    GPU_PRESENT_LABEL,
    MIG_CONFIG_LABEL,
    NODE_GROUP_LABEL,
    SYSTEM_GROUP,
    device_labels,
)
from ..kubernetes.platform import GpuPlatform, WorkloadServiceAccount
from ..kubernetes.serving import ServingAccess, WeightsVolume
from ..kubernetes.storage import SharedVolumeSpec, StorageClassSpec
from ..policy_document import Statement
from ..providers import caller_provider
from ..zones import choose_zones, zoned_groups
from .ack import (
    AckAutoscaling,
    AckAutoscalingArgs,
    AckCluster,
    AckClusterArgs,
    GpuNodeGroup,
    NodeGroupArgs,
    SystemNodeGroup,
)
from .audit import AuditTrail, AuditTrailArgs, ThreatDetection, ThreatDetectionArgs
from .kms import DataKey, DataKeyArgs
from .network import GpuNetwork, NetworkArgs
from .ram import WorkloadRole, WorkloadRoleArgs
from .storage import BucketArgs, DataBucket, SharedFileSystem, SharedFileSystemArgs

TRAINING_SERVICE_ACCOUNT = "trainer"
SHARED_CLAIM = "shared-data"
# Add-ons installed with the cluster. Listing add-ons replaces ACK's default set, so the network plugin is named
# too: Terway (shared-ENI terway-eniip), the plugin that enforces NetworkPolicy, with it enabled (Flannel does not
# enforce it; the plugin is fixed when ACK creates the cluster). ACK Pro runs the managed CSI provisioner in its
# control plane. https://www.alibabacloud.com/help/en/ack/product-overview/csi-provisioner
# https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/use-network-policies
CREATE_ADDONS = ("terway-eniip", "csi-plugin", "managed-csiprovisioner")
ADDON_CONFIGS = {"terway-eniip": json.dumps({"NetworkPolicy": "true", "ENITrunking": "false", "IPVlan": "false"})}
# CPFS over NFS needs the CPFS-NFS client on the nodes, which the cnfs-nas-daemon add-on installs.
# https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/cpfs-volume-overview
CPFS_ADDONS = ("cnfs-nas-daemon",)
# RRSA through the ack-pod-identity-webhook add-on: a labelled namespace and an annotated ServiceAccount get
# the OIDC token and STS variables injected. https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/ack-pod-identity-webhook
RRSA_INJECTION_LABEL = "pod-identity.alibabacloud.com/injection"
RRSA_ROLE_ANNOTATION = "pod-identity.alibabacloud.com/role-name"
# Alibaba Cloud CSI drivers (disk, NAS/CPFS over NFS). https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/mount-a-statically-provisioned-nas-volume
DISK_CSI_DRIVER = "diskplugin.csi.alibabacloud.com"
NAS_CSI_DRIVER = "nasplugin.csi.alibabacloud.com"
# Model weights: a read-only OSS volume whose ossfs client (namespace ack-csi-fuse, ServiceAccount csi-fuse-ossfs)
# assumes the PV's RAM role through RRSA. https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/
# user-guide/mount-statically-provisioned-oss-volumes (RRSA method; read 2026-11-24).
OSS_CSI_DRIVER, OSS_FUSE = "ossplugin.csi.alibabacloud.com", ("ack-csi-fuse", "csi-fuse-ossfs")


def global_name(base: str, account_id: pulumi.Input[str]) -> pulumi.Output[str]:
    """`<base>-<8 hex>`: OSS bucket and SLS project names are shared by every customer, so a name made only of the
    stack's name collides with anyone who deployed the same stack. The suffix is a hash of the account and the
    base name: stable across `pulumi up` runs (no state of its own), different in every account."""
    return pulumi.Output.from_input(account_id).apply(lambda account: unique_name(base, account))


def unique_name(base: str, account: str) -> str:
    return f"{base}-{hashlib.sha256(f'{account}/{base}'.encode()).hexdigest()[:8]}"


class GpuCluster(GpuClusterBase):
    """A GPU cluster on ACK that works on day one. Uses the caller's Alibaba Cloud provider when one is passed
    (`opts.provider` / `opts.providers`); otherwise makes one for `args.region`."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:GpuCluster"
    STAGES = (
        "_zones",
        "_data_key",
        "_audit",
        "_network",
        "_control_plane",
        "_node_groups",
        "_grant_admins",
        "_storage",
        "_identity",
        "_account_services",
        "_platform",
    )
    cluster_id: pulumi.Output[str]
    """The ACK cluster's id."""
    kms_key_id: pulumi.Output[str]
    """The stack's data key."""
    file_system_id: pulumi.Output[Optional[str]]
    """The CPFS or NAS file system, with one."""
    cpfs_export_id: pulumi.Output[Optional[str]]
    """CPFS: the NFS export whose domain `storage.parallelFs.exportDomain` takes."""

    def __init__(self, name: str, args: AlicloudClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        args = as_args(AlicloudClusterArgs, args)
        provider = caller_provider(opts, "alicloud")
        if provider is None:
            provider = alicloud.Provider(f"{name}-alicloud", region=args.region)
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers={"alicloud": provider}))
        super().__init__(name, opts)
        self._name, self._args, self._provider = name, args, provider
        self._child = pulumi.ResourceOptions(parent=self)
        self._tags = {**args.tags, "gpu-cluster": name}
        self._invoke = pulumi.InvokeOutputOptions(parent=self, provider=provider)
        self._account_id = alicloud.get_account_output(opts=self._invoke).id
        self._outputs: dict[str, pulumi.Input] = {}
        self._run_stages()

    def _zones(self) -> None:
        """vSwitches go where the first GPU shape is sold; eRDMA pools and pinned pools get their zone's vSwitch
        (components/zones.py). Plain (blocking) invokes: a zone error stops the program here."""
        args = self._args
        sync = pulumi.InvokeOptions(parent=self, provider=self._provider)
        available = alicloud.get_zones(
            available_instance_type=args.gpu_groups[0].instance_type, available_resource_creation="VSwitch", opts=sync
        ).ids
        sells = {
            t: alicloud.get_zones(available_instance_type=t, available_resource_creation="VSwitch", opts=sync).ids
            for t in sorted({g.instance_type for g in zoned_groups(args.gpu_groups)})
        }
        self._zone_choice = choose_zones(available, args.gpu_groups, sells, args.zone, pin_default=True)

    def _data_key(self) -> None:
        args = self._args
        self._key = DataKey(
            f"{self._name}-data",
            DataKeyArgs(
                protect=args.protect_data,
                tags=self._tags,
                rotation_days=args.key_rotation_days,
                kms_instance_id=args.kms_instance_id,
            ),
            opts=self._child,
        )

    def _audit(self) -> None:
        """ActionTrail and the SLS project the flow logs and control-plane logs also go to."""
        args, name = self._args, self._name
        self._logs = AuditTrail(
            f"{name}-audit",
            AuditTrailArgs(
                region=args.region,
                account_id=self._account_id,
                retention_days=args.log_retention_days,
                kms_key_id=self._key.id,
                tags=self._tags,
                create_trail=args.audit_trail,
                project_name=global_name(f"{name}-audit", self._account_id),
            ),
            opts=self._child,
        )

    def _network(self) -> None:
        self._vpc = GpuNetwork(
            self._name,
            NetworkArgs(
                cidr=self._args.vpc_cidr,
                zone_ids=self._zone_choice.subnets,
                log_project=self._logs.project_name,
                log_store=self._logs.flow_log_store,
                pod_vswitches=True,
                egress_tcp_ports=self._smtp_ports(),
                tags=self._tags,
            ),
            opts=self._child,
        )

    def _smtp_ports(self) -> list[int]:
        """The SMTP relay's port, which Alertmanager (on the nodes) must reach to send e-mail alerts."""
        platform = self._args.platform
        monitoring = platform.monitoring if platform is not None else None
        if monitoring is None or monitoring.smtp is None:
            return []
        return [int(monitoring.smtp.smarthost.rsplit(":", 1)[1])]

    def _vswitch_in(self, group: Optional[str]) -> pulumi.Output[str]:
        """The vSwitch in a pool's zone (None: the cluster's zone)."""
        return self._vpc.vswitches[self._zone_choice.index(group)].id

    def _control_plane(self) -> None:
        args, vpc = self._args, self._vpc
        self._versions = versions = dict(args.addon_versions)
        fs = args.file_system
        self._fs_args = fs_args = fs if fs and fs.kind in ("cpfs", "nas") else None
        self._ack = AckCluster(
            self._name,
            AckClusterArgs(
                vswitch_ids=[v.id for v in vpc.vswitches],
                security_group_id=vpc.security_group.id,
                kms_key_id=self._key.id,
                log_project=self._logs.project_name,
                log_ttl_days=args.log_retention_days,
                public_api=args.public_api,
                kubernetes_version=args.kubernetes_version,
                protect=args.protect_data,
                tags=self._tags,
                addons={
                    a: versions.get(a)
                    for a in CREATE_ADDONS + (CPFS_ADDONS if fs_args and fs_args.kind == "cpfs" else ())
                },
                addon_configs=ADDON_CONFIGS,
                pod_vswitch_ids=[v.id for v in vpc.pod_vswitches],
            ),
            opts=self._child,
        )
        self._outputs.update(cluster_id=self._ack.id, kms_key_id=self._key.id, vpc_id=vpc.vpc.id)

    def _node_groups(self) -> None:
        """The system pool, the GPU pools (each eRDMA pool that wants placement with its deployment set) and the
        autoscaler's settings."""
        args, vpc, scaling = self._args, self._vpc, self._args.autoscaling
        system = args.system
        self.system_pool = SystemNodeGroup(
            f"{self._name}-{SYSTEM_GROUP}",
            NodeGroupArgs(
                cluster_id=self._ack.id,
                instance_type=system.instance_type,
                vswitch_ids=[v.id for v in vpc.vswitches],
                security_group_id=vpc.security_group.id,
                kms_key_id=self._key.id,
                min_nodes=system.min_nodes,
                desired_nodes=system.desired_nodes,
                max_nodes=system.max_nodes,
                labels={NODE_GROUP_LABEL: SYSTEM_GROUP},
                root_volume_gib=system.root_volume_gib,
                # Never elastic: ACK labels nodes of auto-scaling pools k8s.aliyun.com=true, and components that must
                # not be scaled in (CoreDNS, metrics-server, webhooks) keep off such nodes, so they would find none.
                # https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/auto-scaling-of-nodes
                mlps_hardening=args.mlps_hardening,
                autoscaling=False,
                data_disk_gib=100,
                tags=self._tags,
            ),
            opts=self._child,
        )
        self._pools = [self._gpu_node_group(g) for g in args.gpu_groups]
        if scaling is not None:
            AckAutoscaling(
                f"{self._name}-autoscaling",
                AckAutoscalingArgs(
                    cluster_id=self._ack.id,
                    unneeded_minutes=scaling.unneeded_minutes,
                    utilization_threshold=scaling.utilization_threshold,
                    gpu_utilization_threshold=scaling.gpu_utilization_threshold,
                    scaler_type="goatscaler" if scaling.engine == "instant-elasticity" else "cluster-autoscaler",
                ),
                opts=self._child,
            )

    def _gpu_node_group(self, g: GpuGroupArgs) -> GpuNodeGroup:
        name, vpc = self._name, self._vpc
        # eRDMA pools that want placement get a low-latency deployment set of their own: ECS packs its
        # instances into one network topology in the zone.
        # https://www.alibabacloud.com/help/en/ecs/user-guide/deployment-set-overview
        deployment_set = (
            alicloud.ecs.EcsDeploymentSet(
                f"{name}-{g.name}",
                deployment_set_name=f"{name}-{g.name}",
                strategy="LowLatency",
                description=f"{name} {g.name}: eRDMA nodes close together",
                opts=self._child,
            )
            if g.rdma_interfaces and g.placement_group
            else None
        )
        return GpuNodeGroup(
            f"{name}-{g.name}",
            NodeGroupArgs(
                cluster_id=self._ack.id,
                instance_type=g.instance_type,
                vswitch_ids=(
                    [self._vswitch_in(g.name)] if g.name in self._zone_choice.pinned else [v.id for v in vpc.vswitches]
                ),
                deployment_set_id=deployment_set.id if deployment_set else None,
                security_group_id=vpc.security_group.id,
                kms_key_id=self._key.id,
                min_nodes=g.min_nodes,
                desired_nodes=g.desired_nodes,
                max_nodes=g.max_nodes,
                capacity=g.capacity,
                autoscaling=self._args.autoscaling is not None,
                labels={
                    **g.labels,
                    NODE_GROUP_LABEL: g.name,
                    "gpu-blueprints/gpu-model": g.gpu_model,
                    GPU_PRESENT_LABEL: "true",
                    ACK_GPU_SCHEDULE_LABEL: ACK_DEVICE_PLUGIN_OFF,  # the GPU Operator's device plugin instead
                    **({ERDMA_PRESENT_LABEL: "true"} if g.rdma_interfaces else {}),
                    **({MIG_CONFIG_LABEL: g.mig_profile} if g.mig_profile else {}),
                    **({DEVICE_PLUGIN_CONFIG_LABEL: g.name} if g.sharing else {}),
                    **device_labels(g.devices),
                },
                taints=[dict(t) for t in g.taints],
                root_volume_gib=g.root_volume_gib,
                mlps_hardening=self._args.mlps_hardening,
                spot_max_price_usd=g.spot_max_price_usd,
                tags=self._tags,
            ),
            opts=self._child,
        )

    def _grant_admins(self) -> None:
        """ACK grants cluster admins through RBAC permissions (EKS takes them as access entries)."""
        for i, admin in enumerate(self._args.cluster_admins):
            role, _, uid = admin.rpartition(":")
            alicloud.cs.KubernetesPermission(
                f"{self._name}-admin-{i}",
                uid=uid,
                permissions=[
                    {"cluster": self._ack.id, "role_type": "cluster", "role_name": "admin", "is_ram_role": bool(role)}
                ],
                opts=self._child,
            )

    def _storage(self) -> None:
        """The data bucket and the CPFS or NAS file system, with a `shared-data` claim per trainer namespace."""
        args, name, key, fs_args = self._args, self._name, self._key, self._fs_args
        self._grants = [
            Statement(
                actions=["kms:Decrypt", "kms:GenerateDataKey", "kms:DescribeKey"],
                resources=[pulumi.Output.concat("acs:kms:", args.region, ":", self._account_id, ":key/", key.id)],
            )
        ]
        objects = args.object_storage
        # Every team gets its own identity and claim; the trainer namespace keeps its own whatever teams come.
        self._trainer_namespaces = list(dict.fromkeys([args.trainer_namespace, *args.team_namespaces]))
        self._shared_volumes: list[SharedVolumeSpec] = []
        bucket = None
        if objects is not None:
            bucket = DataBucket(
                f"{name}-data",
                BucketArgs(
                    kms_key_id=key.id,
                    protect=args.protect_data,
                    noncurrent_version_days=objects.noncurrent_version_days,
                    infrequent_access_after_days=objects.infrequent_access_after_days,
                    tags=self._tags,
                    bucket_name=global_name(f"{name}-data", self._account_id),
                    cpfs_data_flow=bool(objects.cache and fs_args is not None and fs_args.kind == "cpfs"),
                ),
                opts=self._child,
            )
            self._grants += bucket.grant_read_write("checkpoints") + bucket.grant_read_write("datasets")
            self._outputs["data_bucket"] = bucket.name
            self._outputs["checkpoints_uri"] = pulumi.Output.concat("oss://", bucket.name, "/checkpoints/")
        self._bucket = bucket
        if fs_args is not None:
            self._file_system(fs_args, bucket.name if bucket is not None and objects.cache else None)

    def _file_system(self, fs_args: FileSystemArgs, cache_bucket: Optional[pulumi.Output[str]]) -> None:
        fs = SharedFileSystem(
            f"{self._name}-{fs_args.kind}",
            SharedFileSystemArgs(
                kind=fs_args.kind,
                size_gib=fs_args.size_gib,
                vpc_id=self._vpc.vpc.id,
                vswitch_id=self._vswitch_in(None),
                zone_id=self._zone_choice.default,
                kms_key_id=self._key.id,
                protect=self._args.protect_data,
                tags=self._tags,
                export_domain=fs_args.export_domain,
                cache_bucket_name=cache_bucket,
            ),
            opts=self._child,
        )
        self._outputs["file_system_id"] = fs.file_system_id
        cpfs = fs_args.kind == "cpfs"
        server, path = fs.nfs_server, fs.nfs_path
        if cpfs:
            self._outputs["cpfs_export_id"] = fs.export_id
        if server is not None:
            # CPFS goes through the CPFS-NFS client (cnfs-nas-daemon); NAS extreme is plain NFSv3.
            self._shared_volumes += [
                SharedVolumeSpec(
                    claim=SHARED_CLAIM,
                    namespace=ns,
                    driver=NAS_CSI_DRIVER,
                    # CPFS: the export's id (unique, and it ties the volume to the export in the plan).
                    volume_handle=fs.export_id if cpfs else f"{ns}-{SHARED_CLAIM}",
                    attributes={"server": server, "path": path, **({"mountProtocol": "cpfs-nfs"} if cpfs else {})},
                    capacity_gib=fs_args.size_gib,
                    mount_options=("nolock,tcp,noresvport", "vers=3"),
                )
                for ns in self._trainer_namespaces
            ]

    def _identity(self) -> None:
        """An RRSA role per trainer namespace, the eRDMA controller and the pod identity webhook."""
        args, name, ack, training_ns = self._args, self._name, self._ack, self._args.trainer_namespace
        self._trainers = {
            ns: WorkloadRole(
                f"{name}-trainer" if ns == training_ns else f"{name}-trainer-{ns}",
                WorkloadRoleArgs(
                    account_id=self._account_id,
                    cluster_id=ack.id,
                    namespace=ns,
                    service_account=TRAINING_SERVICE_ACCOUNT,
                    statements=self._grants,
                    tags=self._tags,
                ),
                opts=self._child,
            )
            for ns in self._trainer_namespaces
        }
        self._outputs["trainer_role_arn"] = self._trainers[training_ns].arn
        self._outputs["trainer_role_arns"] = {ns: role.arn for ns, role in self._trainers.items()}
        if args.rdma:
            # The eRDMA controller is an ACK add-on: ACK installs and authorizes it, so the stack grants it no
            # RAM role of its own. "ofed" is the driver mode for GPU instances running NCCL
            # (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/use-erdma-in-ack-clusters).
            # The config is the chart's values: the agent reads `agent.preferDriver` (AliyunContainerService/
            # alibabacloud-erdma-controller v0.2.11 deploy/helm/templates/daemonset.yaml); a top-level key is ignored.
            alicloud.cs.KubernetesAddon(
                f"{name}-erdma-controller",
                cluster_id=ack.id,
                name="ack-erdma-controller",
                config=json.dumps({"agent": {"preferDriver": "ofed"}}),
                opts=pulumi.ResourceOptions(parent=self, depends_on=self._pools),
            )
        # Injects the RRSA token and STS variables into pods whose ServiceAccount names a role.
        webhook = self._versions.get("ack-pod-identity-webhook")
        self._identity_webhook = alicloud.cs.KubernetesAddon(
            f"{name}-pod-identity-webhook",
            cluster_id=ack.id,
            name="ack-pod-identity-webhook",
            **({"version": webhook} if webhook else {}),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.system_pool]),
        )

    def _account_services(self) -> None:
        """Threat detection (Alibaba Cloud budgets are not declared)."""
        if self._args.threat_detection:
            ThreatDetection(f"{self._name}-security-center", ThreatDetectionArgs(), opts=self._child)

    def _platform(self) -> None:
        """The kubeconfig (a one-hour credential of the identity running `pulumi up`) and the Kubernetes layer."""
        args, name = self._args, self._name
        credential = alicloud.cs.get_cluster_credential_output(
            cluster_id=self._ack.id, temporary_duration_minutes=60, opts=self._invoke
        )
        kubeconfig = pulumi.Output.secret(credential.kube_config)
        self._outputs["kubeconfig"] = kubeconfig
        if args.platform is None:
            return
        # ACK GPU nodes come with the NVIDIA driver, container runtime and device plugin
        # (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/gpu-overview); the driver
        # is kept, the GPU Operator brings the runtime settings and the device plugin (ACK's is off by label).
        kube = k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig, opts=self._child)
        classes = [
            StorageClassSpec(
                "essd-encrypted",
                DISK_CSI_DRIVER,
                default=True,
                parameters={"type": "cloud_essd", "encrypted": "true", "kmsKeyId": self._key.id},
            )
        ]
        platform = GpuPlatform(
            name,
            platform_args(
                args.platform,
                node_groups=[g.nodes() for g in args.gpu_groups],
                driver_preinstalled=True,
                device_plugin_preinstalled=False,  # ACK's own is off on our GPU pools (ACK_GPU_SCHEDULE_LABEL)
                system_node_selector={NODE_GROUP_LABEL: SYSTEM_GROUP},
                namespaces={ns: {RRSA_INJECTION_LABEL: "on"} for ns in self._trainer_namespaces},
                service_accounts=[
                    WorkloadServiceAccount(ns, TRAINING_SERVICE_ACCOUNT, {RRSA_ROLE_ANNOTATION: role.role_name})
                    for ns, role in self._trainers.items()
                ],
                # ACK scales node pools itself (AckAutoscaling): no Cluster Autoscaler in the cluster.
                storage_classes=classes,
                shared_volumes=self._shared_volumes,
                autoscaler=None,
                karpenter=None,  # EKS only: ACK scales node pools itself
                serving_access=self._serving_access(),
                # Amazon SNS is AWS's; the spec refuses `sns` receivers on Alibaba Cloud.
                alert_topic=None,
            ),
            opts=pulumi.ResourceOptions(
                parent=self,
                providers={"kubernetes": kube},
                depends_on=[self.system_pool, self._identity_webhook, *self._pools],
            ),
        )
        if platform.grafana_admin_password is not None:
            self._outputs["grafana_admin_password"] = platform.grafana_admin_password

    def _serving_access(self) -> Optional[ServingAccess]:
        """Each model's weights' prefix as a read-only OSS volume, through a RAM role that reads only that prefix."""
        serving, bucket, args = self._args.platform.serving, self._bucket, self._args
        if serving is None or bucket is None:
            return None
        readers = {
            m.model: WorkloadRole(
                f"{self._name}-serve-{m.model}",
                WorkloadRoleArgs(
                    account_id=self._account_id,
                    cluster_id=self._ack.id,
                    namespace=OSS_FUSE[0],
                    service_account=OSS_FUSE[1],
                    statements=[
                        *bucket.grant_read(m.weights_prefix),
                        Statement(actions=["kms:Decrypt"], resources=self._grants[0].resources),
                    ],
                    tags=self._tags,
                ),
                opts=self._child,
            )
            for m in serving.models
        }
        return ServingAccess(
            volumes={
                m.model: WeightsVolume(
                    OSS_CSI_DRIVER,
                    {
                        "bucket": bucket.name,
                        "path": "/" + m.weights_prefix.rstrip("/"),
                        "url": f"http://oss-{args.region}-internal.aliyuncs.com",
                        "authType": "rrsa",
                        "roleName": readers[m.model].role_name,
                        "otherOpts": "-o umask=022 -o allow_other",
                        "sigVersion": "v4",
                    },
                )
                for m in serving.models
            }
        )
