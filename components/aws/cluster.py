"""GpuCluster on AWS: EKS, GPU and system node groups, storage, identity, audit and budget from one args object."""

from typing import Optional

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..base import AWS, as_args
from ..cluster_args import AwsClusterArgs, GpuGroupArgs, platform_args
from ..cluster_base import GpuClusterBase
from ..kubernetes.autoscaler import SERVICE_ACCOUNT as AUTOSCALER_SA
from ..kubernetes.autoscaler import AutoscalerArgs
from ..kubernetes.karpenter import KarpenterArgs, KarpenterPool
from ..kubernetes.kubeconfig import eks_kubeconfig
from ..kubernetes.monitoring import ALERTMANAGER_SERVICE_ACCOUNT, SnsTarget
from ..kubernetes.monitoring import NAMESPACE as MONITORING_NAMESPACE

# GPU_PRESENT_LABEL is set from the start so the device plugin, the exporter and scale-from-zero templates all
# match GPU nodes (chart_workloads.yaml).
from ..kubernetes.nodes import (
    DEVICE_PLUGIN_CONFIG_LABEL,
    DRA,
    EFA_PRESENT_LABEL,
    EFA_RESOURCE,
    GPU_PRESENT_LABEL,
    GPU_RESOURCE,
    MIG_CONFIG_LABEL,
    NODE_GROUP_LABEL,
    SYSTEM_GROUP,
    device_labels,
)
from ..kubernetes.platform import GpuPlatform, WorkloadServiceAccount
from ..kubernetes.serving import ServingAccess
from ..kubernetes.storage import SharedVolumeSpec, StorageClassSpec
from ..policy_document import Statement
from ..providers import caller_provider
from ..zones import choose_zones, zoned_groups
from .addons import AFTER_NODES, BEFORE_NODES, AddonRole, EksAddons, EksAddonsArgs, ebs_csi_key_statements
from .alerts import SnsAlertTopic, SnsAlertTopicArgs
from .audit import AuditTrail, AuditTrailArgs, ThreatDetection, ThreatDetectionArgs
from .budget import CostBudget, CostBudgetArgs
from .eks import EksArgs, EksCluster
from .iam import NodeRole, NodeRoleArgs, WorkloadRole, WorkloadRoleArgs, cluster_autoscaler_statements
from .karpenter import KarpenterAws, KarpenterAwsArgs
from .kms import DataKey, DataKeyArgs
from .network import EfaFabric, EfaFabricArgs, GpuNetwork, NetworkArgs
from .node_group import GpuNodeGroup, NodeGroupArgs, SystemNodeGroup
from .storage import BucketArgs, DataBucket, LustreArgs, LustreFileSystem

TRAINING_SERVICE_ACCOUNT = "trainer"
SHARED_CLAIM = "shared-data"
# The label the Cluster Autoscaler's AWS provider reads to tell GPU nodes apart (GPULabel), so it waits for
# the device plugin instead of treating a fresh GPU node as unready. cloudprovider/aws/aws_cloud_provider.go
GPU_LABEL = "k8s.amazonaws.com/accelerator"
# The FSx for Lustre CSI driver's static volumes: volumeHandle is the file system id.
# https://github.com/kubernetes-sigs/aws-fsx-csi-driver/blob/master/examples/kubernetes/static_provisioning/README.md
FSX_CSI_DRIVER = "fsx.csi.aws.com"
EBS_CSI_DRIVER = "ebs.csi.aws.com"


def addon_roles(key_arn: pulumi.Input[str]) -> dict[str, AddonRole]:
    """Each add-on's own role. The FSx CSI driver gets none: it only mounts statically provisioned file
    systems here, which needs no AWS API; dynamic provisioning would need fsx:CreateFileSystem and more."""
    return {
        "vpc-cni": AddonRole("aws-node", managed_policies=("AmazonEKS_CNI_Policy",)),
        "aws-ebs-csi-driver": AddonRole(
            "ebs-csi-controller-sa",
            managed_policies=("service-role/AmazonEBSCSIDriverPolicy",),
            statements=ebs_csi_key_statements(key_arn),
        ),
    }


class GpuCluster(GpuClusterBase):
    """A GPU cluster on EKS that works on day one. Uses the caller's AWS provider when one is passed
    (`opts.provider` / `opts.providers`); otherwise makes one for `args.region` with `args.tags` as default tags."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:GpuCluster"
    STAGES = (
        "_data_key",
        "_zones",
        "_network",
        "_control_plane",
        "_node_groups",
        "_storage",
        "_identity",
        "_audit",
        "_account_services",
        "_platform",
    )
    cluster_name: pulumi.Output[str]
    """The EKS cluster's name."""
    kms_key_arn: pulumi.Output[str]
    """The stack's data key."""
    lustre_dns_name: pulumi.Output[Optional[str]]
    """The Lustre file system's DNS name, with one."""
    alert_topic_arn: pulumi.Output[Optional[str]]
    """The SNS topic Alertmanager publishes alerts to, with an `sns` receiver: subscribe to it."""

    def __init__(self, name: str, args: AwsClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        args = as_args(AwsClusterArgs, args)
        provider = caller_provider(opts, "aws")
        if provider is None:
            provider = aws.Provider(f"{name}-aws", region=args.region, default_tags={"tags": dict(args.tags)})
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers={"aws": provider}))
        super().__init__(name, opts)
        self._name, self._args, self._provider = name, args, provider
        self._child = pulumi.ResourceOptions(parent=self)
        self._tags = {**args.tags, "gpu-cluster": name}
        invoke = pulumi.InvokeOutputOptions(parent=self, provider=provider)
        self._account_id = aws.get_caller_identity_output(opts=invoke).account_id
        self._partition = aws.get_partition_output(opts=invoke).partition
        self._outputs: dict[str, pulumi.Input] = {}
        self._karpenter_engine = bool(args.autoscaling and args.autoscaling.engine == "karpenter")
        self._run_stages()

    def _data_key(self) -> None:
        """The stack's KMS key. A Lustre file system caching the SSE-KMS data bucket needs the key policy to let FSx
        use the key on it; the bucket is declared later (with this key), so its ARN comes in through a deferred
        output."""
        args = self._args
        links_bucket = bool(
            args.object_storage and args.object_storage.cache and args.file_system and args.file_system.kind == "lustre"
        )
        linked_bucket_arn, self._resolve_linked_bucket = pulumi.deferred_output() if links_bucket else (None, None)
        self._key = DataKey(
            f"{self._name}-data",
            DataKeyArgs(
                account_id=self._account_id,
                region=args.region,
                partition=self._partition,
                tags=self._tags,
                rotation_days=args.key_rotation_days,
                fsx_linked_bucket_arns=[linked_bucket_arn] if links_bucket else [],
            ),
            opts=self._child,
        )

    def _zones(self) -> None:
        """RDMA groups, groups on a reservation and the file system each get the subnet of their zone
        (components/zones.py). Plain (blocking) invokes: a zone error stops the program here."""
        args = self._args
        sync = pulumi.InvokeOptions(parent=self, provider=self._provider)
        available = aws.get_availability_zones(state="available", opts=sync).names
        zoned = zoned_groups(args.gpu_groups)
        sells = {
            t: aws.ec2.get_instance_type_offerings(
                location_type="availability-zone", filters=[{"name": "instance-type", "values": [t]}], opts=sync
            ).locations
            for t in sorted({g.instance_type for g in zoned})
        }
        self._zone_choice = choose_zones(
            available, args.gpu_groups, sells, args.zone, pin_default=bool(args.zone or zoned or args.file_system)
        )

    def _network(self) -> None:
        args = self._args
        self._vpc = GpuNetwork(
            self._name,
            NetworkArgs(
                region=args.region,
                cidr=args.vpc_cidr,
                flow_log_retention_days=args.log_retention_days,
                kms_key_arn=self._key.arn,
                availability_zones=self._zone_choice.subnets,
                account_id=self._account_id,
                partition=self._partition,
                tags=self._tags,
            ),
            opts=self._child,
        )

    def _subnet_in(self, group: Optional[str]) -> pulumi.Output[str]:
        """The private subnet in a group's zone (None: the cluster's zone)."""
        return self._vpc.private_subnets[self._zone_choice.index(group)].id

    def _control_plane(self) -> None:
        """EKS, the node role, the EFA fabric and the add-ons nodes need to come up with networking."""
        args, name, tags = self._args, self._name, self._tags
        self._eks = eks = EksCluster(
            name,
            EksArgs(
                kubernetes_version=args.kubernetes_version,
                subnet_ids=[s.id for s in self._vpc.private_subnets],
                kms_key_arn=self._key.arn,
                account_id=self._account_id,
                public_api=args.public_api,
                public_api_cidrs=list(args.public_api_cidrs),
                log_retention_days=args.log_retention_days,
                partition=self._partition,
                tags=tags,
                deletion_protection=args.protect_data,
                admin_principal_arns=list(args.cluster_admins),
            ),
            opts=self._child,
        )
        self._outputs.update(cluster_name=eks.name, kms_key_arn=self._key.arn, vpc_id=self._vpc.vpc.id)
        self._node_role = NodeRole(
            f"{name}-nodes", NodeRoleArgs(partition=self._partition, tags=tags), opts=self._child
        )
        self._fabric = None
        if args.rdma:
            self._fabric = EfaFabric(
                f"{name}-efa",
                EfaFabricArgs(
                    vpc_id=self._vpc.vpc.id,
                    placement_groups=[g.name for g in args.gpu_groups if g.placement_group],
                    tags=tags,
                ),
                opts=self._child,
            )
        self._versions = versions = dict(args.addon_versions)
        self._lustre_args = args.file_system if args.file_system and args.file_system.kind == "lustre" else None
        if self._lustre_args is None:
            versions.pop("aws-fsx-csi-driver", None)
        self._addon_args = dict(
            cluster_name=eks.name,
            oidc_provider_arn=eks.oidc_provider.arn,
            oidc_issuer=eks.oidc_issuer,
            roles=addon_roles(self._key.arn),
            partition=self._partition,
            tags=tags,
        )
        # The CNI, kube-proxy and the Pod Identity agent before any node, so nodes come up with networking.
        self._network_addons = EksAddons(
            f"{name}-network",
            EksAddonsArgs(versions={k: v for k, v in versions.items() if k in BEFORE_NODES}, **self._addon_args),
            opts=self._child,
        )

    def _node_groups(self) -> None:
        """The system group, the GPU groups, then the add-ons that run on nodes (CoreDNS, CSI controllers)."""
        args = self._args
        node_opts = pulumi.ResourceOptions(parent=self, depends_on=[*self._node_role.attachments, self._network_addons])
        system = args.system
        self.system_group = SystemNodeGroup(
            f"{self._name}-{SYSTEM_GROUP}",
            NodeGroupArgs(
                cluster_name=self._eks.name,
                kubernetes_version=args.kubernetes_version,
                node_role_arn=self._node_role.arn,
                instance_type=system.instance_type,
                subnet_ids=[s.id for s in self._vpc.private_subnets],
                security_group_ids=[self._eks.security_group_id],
                kms_key_arn=self._key.arn,
                min_nodes=system.min_nodes,
                desired_nodes=system.desired_nodes,
                max_nodes=system.max_nodes,
                labels={NODE_GROUP_LABEL: SYSTEM_GROUP},
                root_volume_gib=system.root_volume_gib,
                release_version=args.node_release_version,
                tags=self._tags,
            ),
            opts=node_opts,
        )
        # With Karpenter the GPU groups are NodePools it launches nodes for (_karpenter), not managed node groups.
        self.node_groups = (
            [] if self._karpenter_engine else [self._gpu_node_group(g, node_opts) for g in args.gpu_groups]
        )
        # CoreDNS and the CSI controllers are Deployments: they need the system nodes to become healthy.
        self._service_addons = EksAddons(
            f"{self._name}-services",
            EksAddonsArgs(versions={k: v for k, v in self._versions.items() if k in AFTER_NODES}, **self._addon_args),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.system_group]),
        )

    def _group_labels(self, g: GpuGroupArgs) -> dict[str, str]:
        """The node contract's labels on a GPU group's nodes, whichever autoscaler launches them."""
        return {
            **g.labels,
            NODE_GROUP_LABEL: g.name,
            "gpu-blueprints/gpu-model": g.gpu_model,
            # Not on nodes whose GPUs are all MIG instances under the mixed strategy: the Cluster Autoscaler marks a
            # node with this label and no nvidia.com/gpu allocatable as having an unready GPU, forever
            # (processors/customresources/gpu_processor.go FilterOutNodesWithUnreadyResources at
            # cluster-autoscaler-chart-9.59.0; kubernetes/autoscaler #8095, open), which in the end halts scaling.
            # Nor on DRA nodes (no nvidia.com/gpu either): the AWS provider's GPU config names no DRA driver, so
            # gpuExposedViaDra never exempts them (cluster-autoscaler-1.35.2 utils/gpu/gpu.go).
            **({} if g.mig_resources or g.devices == DRA else {GPU_LABEL: f"nvidia-{g.gpu_model.lower()}"}),
            GPU_PRESENT_LABEL: "true",
            **({EFA_PRESENT_LABEL: "true"} if g.rdma_interfaces and not g.rdma_dra else {}),
            **({MIG_CONFIG_LABEL: g.mig_profile} if g.mig_profile else {}),
            **({DEVICE_PLUGIN_CONFIG_LABEL: g.name} if g.sharing else {}),
            **device_labels(g.devices, bool(g.rdma_dra and g.rdma_interfaces)),
        }

    def _group_subnets(self, g: GpuGroupArgs) -> list[pulumi.Output[str]]:
        """The group's zone's subnet when pinned, else every private subnet."""
        if g.name in self._zone_choice.pinned:
            return [self._subnet_in(g.name)]
        return [s.id for s in self._vpc.private_subnets]

    def _group_security_groups(self, g: GpuGroupArgs) -> list[pulumi.Output[str]]:
        fabric = self._fabric
        if g.rdma_interfaces and fabric:
            return [self._eks.security_group_id, fabric.security_group.id]
        return [self._eks.security_group_id]

    def _placement_group(self, g: GpuGroupArgs) -> Optional[pulumi.Output[str]]:
        fabric = self._fabric
        return fabric.placement_groups[g.name].name if fabric and g.name in fabric.placement_groups else None

    def _gpu_node_group(self, g: GpuGroupArgs, node_opts: pulumi.ResourceOptions) -> GpuNodeGroup:
        args = self._args
        efa = g.rdma_interfaces
        labels = self._group_labels(g)
        return GpuNodeGroup(
            f"{self._name}-{g.name}",
            NodeGroupArgs(
                cluster_name=self._eks.name,
                kubernetes_version=args.kubernetes_version,
                node_role_arn=self._node_role.arn,
                instance_type=g.instance_type,
                subnet_ids=self._group_subnets(g),
                security_group_ids=self._group_security_groups(g),
                kms_key_arn=self._key.arn,
                min_nodes=g.min_nodes,
                desired_nodes=g.desired_nodes,
                max_nodes=g.max_nodes,
                capacity=g.capacity,
                capacity_reservation_id=g.capacity_reservation_id,
                labels=labels,
                taints=list(g.taints),
                root_volume_gib=g.root_volume_gib,
                efa_interfaces=efa,
                placement_group_name=self._placement_group(g),
                capacity_block_starts_at=g.capacity_block_starts_at,
                local_nvme_raid0=g.local_nvme_raid0,
                release_version=args.node_release_version,
                extended_resources=_gpu_template(g, efa),
                tags=self._tags,
            ),
            opts=node_opts,
        )

    def _storage(self) -> None:
        """The data bucket and the Lustre file system, with a `shared-data` claim per trainer namespace."""
        args, name, key, production = self._args, self._name, self._key, self._args.protect_data
        self._grants = [key.grant_encrypt_decrypt()]
        # Every team gets its own identity and claim; the trainer namespace keeps its own whatever teams come.
        self._trainer_namespaces = list(dict.fromkeys([args.trainer_namespace, *args.team_namespaces]))
        self._shared_volumes: list[SharedVolumeSpec] = []
        bucket, objects, lustre_args = None, args.object_storage, self._lustre_args
        if objects is not None:
            bucket = DataBucket(
                f"{name}-data",
                BucketArgs(
                    kms_key_arn=key.arn,
                    protect=production,
                    noncurrent_version_days=objects.noncurrent_version_days,
                    infrequent_access_after_days=objects.infrequent_access_after_days,
                    tags=self._tags,
                ),
                opts=self._child,
            )
            if self._resolve_linked_bucket is not None:
                self._resolve_linked_bucket(bucket.arn)
            self._grants += bucket.grant_read("datasets", "ReadDatasets")
            self._grants += bucket.grant_read_write("checkpoints", "Checkpoints")
            self._outputs["data_bucket"] = bucket.name
            self._outputs["checkpoints_uri"] = pulumi.Output.concat("s3://", bucket.name, "/checkpoints/")
        self._bucket = bucket
        if lustre_args is not None:
            lustre = LustreFileSystem(
                f"{name}-lustre",
                LustreArgs(
                    vpc_id=self._vpc.vpc.id,
                    subnet_id=self._subnet_in(None),
                    client_security_group_ids=[self._eks.security_group_id],
                    size_gib=lustre_args.size_gib,
                    deployment=lustre_args.deployment,
                    throughput_mbps_per_tib=lustre_args.throughput_mbps_per_tib,
                    kms_key_arn=key.arn,
                    protect=production,
                    tags=self._tags,
                    cache_bucket_name=bucket.name if bucket is not None and objects.cache else None,
                ),
                opts=self._child,
            )
            self._outputs["lustre_dns_name"] = lustre.file_system.dns_name
            self._shared_volumes += [
                SharedVolumeSpec(
                    claim=SHARED_CLAIM,
                    namespace=ns,
                    driver=FSX_CSI_DRIVER,
                    volume_handle=lustre.file_system.id,
                    attributes={"dnsname": lustre.file_system.dns_name, "mountname": lustre.file_system.mount_name},
                    capacity_gib=lustre_args.size_gib,
                    mount_options=("flock",),
                )
                for ns in self._trainer_namespaces
            ]

    def _identity(self) -> None:
        """An IRSA role per trainer namespace, with the key and data grants."""
        name, eks, training_ns = self._name, self._eks, self._args.trainer_namespace
        self._trainers = {
            ns: WorkloadRole(
                f"{name}-trainer" if ns == training_ns else f"{name}-trainer-{ns}",
                WorkloadRoleArgs(
                    oidc_provider_arn=eks.oidc_provider.arn,
                    oidc_issuer=eks.oidc_issuer,
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

    def _audit(self) -> None:
        args = self._args
        AuditTrail(
            f"{self._name}-audit",
            AuditTrailArgs(
                kms_key_arn=self._key.arn,
                retention_days=args.log_retention_days,
                protect=args.protect_data,
                account_id=self._account_id,
                partition=self._partition,
                region=args.region,
                tags=self._tags,
                management_events=args.audit_trail,
            ),
            opts=self._child,
        )

    def _account_services(self) -> None:
        """Threat detection, the cost budget and the alert topic."""
        args, name, tags = self._args, self._name, self._tags
        self._alert_target = self._alert_topic()
        if args.threat_detection:
            ThreatDetection(f"{name}-guardduty", ThreatDetectionArgs(tags=tags), opts=self._child)
        CostBudget(
            f"{name}-monthly",
            CostBudgetArgs(
                monthly_limit_usd=args.budget.monthly_limit_usd,
                thresholds_pct=list(args.budget.thresholds_pct),
                contacts=list(args.budget.contacts),
                cost_tag_key="gpu-cluster",
                cost_tag_value=name,
                tags=tags,
                activate_cost_tag=args.budget.activate_cost_tag,
            ),
            opts=self._child,
        )

    def _alert_topic(self) -> Optional[SnsTarget]:
        """The SNS topic Alertmanager publishes to, and the IRSA role of its ServiceAccount allowed only to publish
        there. The topic policy names the role, whose grants name the topic: the role's ARN comes in deferred."""
        args, name, eks = self._args, self._name, self._eks
        if args.alert_topic is None:
            return None
        publisher_arn, resolve_publisher = pulumi.deferred_output()
        topic = SnsAlertTopic(
            f"{name}-alerts",
            SnsAlertTopicArgs(
                kms_key_arn=self._key.arn,
                publisher_role_arn=publisher_arn,
                subscribe_emails=list(args.alert_topic.subscribe_emails),
                tags=self._tags,
            ),
            opts=self._child,
        )
        role = WorkloadRole(
            f"{name}-alertmanager",
            WorkloadRoleArgs(
                oidc_provider_arn=eks.oidc_provider.arn,
                oidc_issuer=eks.oidc_issuer,
                namespace=MONITORING_NAMESPACE,
                service_account=ALERTMANAGER_SERVICE_ACCOUNT,
                statements=topic.grant_publish(),
                tags=self._tags,
            ),
            opts=self._child,
        )
        resolve_publisher(role.arn)
        self._outputs["alert_topic_arn"] = topic.arn
        return SnsTarget(topic.arn, args.region, {"eks.amazonaws.com/role-arn": role.arn})

    def _autoscaler(self) -> Optional[AutoscalerArgs]:
        """The Cluster Autoscaler's IRSA role and settings, with an image for the Kubernetes minor."""
        args, scaling = self._args, self._args.autoscaling
        if scaling is None or not scaling.image_tag or self._karpenter_engine:
            return None
        role = WorkloadRole(
            f"{self._name}-cluster-autoscaler",
            WorkloadRoleArgs(
                oidc_provider_arn=self._eks.oidc_provider.arn,
                oidc_issuer=self._eks.oidc_issuer,
                namespace="kube-system",
                service_account=AUTOSCALER_SA,
                tags=self._tags,
                statements=cluster_autoscaler_statements(self._name, args.region, self._account_id, self._partition),
            ),
            opts=self._child,
        )
        return AutoscalerArgs(
            cluster_name=self._eks.name,
            region=args.region,
            role_arn=role.arn,
            image_tag=scaling.image_tag,
            node_selector={NODE_GROUP_LABEL: SYSTEM_GROUP},
            scale_down_unneeded_minutes=scaling.unneeded_minutes,
            scale_down_utilization_threshold=scaling.utilization_threshold,
            gpu_scale_down_utilization_threshold=scaling.gpu_utilization_threshold,
            provisioning_requests=any(g.provisioned for g in args.gpu_groups),
            dynamic_resource_allocation=any(g.devices == DRA for g in args.gpu_groups),
        )

    def _karpenter(self) -> Optional[KarpenterArgs]:
        """Karpenter's AWS side (role, interruption queue, node access entry) and a NodePool per GPU group."""
        args = self._args
        if not self._karpenter_engine:
            return None
        aws_side = KarpenterAws(
            f"{self._name}-karpenter",
            KarpenterAwsArgs(
                cluster_name=self._name,
                region=args.region,
                account_id=self._account_id,
                node_role_arn=self._node_role.arn,
                oidc_provider_arn=self._eks.oidc_provider.arn,
                oidc_issuer=self._eks.oidc_issuer,
                partition=self._partition,
                tags=self._tags,
            ),
            opts=self._child,
        )
        release = args.node_release_version
        alias = f"al2023@v{release.split('-')[1]}" if release else "al2023@latest"
        return KarpenterArgs(
            cluster_name=self._eks.name,
            role_arn=aws_side.role_arn,
            interruption_queue=aws_side.queue_name,
            node_role_name=self._node_role.role.name,
            node_selector={NODE_GROUP_LABEL: SYSTEM_GROUP},
            tags=self._tags,
            pools=[
                KarpenterPool(
                    name=g.name,
                    instance_types=[g.instance_type],
                    gpus=g.gpu_resources or g.gpus,
                    max_nodes=g.max_nodes,
                    labels=self._group_labels(g),
                    taints=list(g.taints),
                    subnet_ids=self._group_subnets(g),
                    security_group_ids=self._group_security_groups(g),
                    kms_key_arn=self._key.arn,
                    capacity=g.capacity,
                    capacity_reservation_id=g.capacity_reservation_id,
                    zones=[self._zone_choice.pinned[g.name]] if g.name in self._zone_choice.pinned else [],
                    root_volume_gib=g.root_volume_gib,
                    placement_group_name=self._placement_group(g),
                    ami_alias=alias,
                    consolidate_after_minutes=args.autoscaling.unneeded_minutes,
                    local_nvme_raid0=g.local_nvme_raid0,
                )
                for g in args.gpu_groups
            ],
        )

    def _platform(self) -> None:
        """The kubeconfig and the Kubernetes layer on the system nodes."""
        args, name, eks = self._args, self._name, self._eks
        kubeconfig = eks_kubeconfig(eks.name, eks.cluster.endpoint, eks.cluster.certificate_authority.data, args.region)
        self._outputs["kubeconfig"] = pulumi.Output.secret(kubeconfig)
        if args.platform is None:
            return
        # The EKS AL2023 NVIDIA AMI ships the driver and container toolkit, not the device plugin
        # (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html).
        kube = k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig, opts=self._child)
        autoscaler = self._autoscaler()
        classes = (
            [
                StorageClassSpec(
                    "gp3-encrypted",
                    EBS_CSI_DRIVER,
                    default=True,
                    parameters={
                        "type": "gp3",
                        "encrypted": "true",
                        "kmsKeyId": self._key.arn,
                        "csi.storage.k8s.io/fstype": "ext4",
                    },
                )
            ]
            if "aws-ebs-csi-driver" in self._versions
            else []
        )
        platform = GpuPlatform(
            name,
            platform_args(
                args.platform,
                node_groups=[g.nodes() for g in args.gpu_groups],
                driver_preinstalled=True,
                device_plugin_preinstalled=False,
                system_node_selector={NODE_GROUP_LABEL: SYSTEM_GROUP},
                namespaces={args.trainer_namespace: {}},
                service_accounts=[
                    WorkloadServiceAccount(ns, TRAINING_SERVICE_ACCOUNT, {"eks.amazonaws.com/role-arn": role.arn})
                    for ns, role in self._trainers.items()
                ],
                storage_classes=classes,
                shared_volumes=self._shared_volumes,
                autoscaler=autoscaler,
                karpenter=self._karpenter(),
                serving_access=self._serving_access(),
                alert_topic=self._alert_target,
            ),
            opts=pulumi.ResourceOptions(
                parent=self, providers={"kubernetes": kube}, depends_on=[self.system_group, self._service_addons]
            ),
        )
        if platform.grafana_admin_password is not None:
            self._outputs["grafana_admin_password"] = platform.grafana_admin_password

    def _serving_access(self) -> Optional[ServingAccess]:
        """An IRSA role a served model, reading only its weights' prefix (and decrypting with the stack's key)."""
        serving, bucket, eks = self._args.platform.serving, self._bucket, self._eks
        if serving is None or bucket is None:
            return None
        readers = {
            m.model: WorkloadRole(
                f"{self._name}-serve-{m.model}",
                WorkloadRoleArgs(
                    oidc_provider_arn=eks.oidc_provider.arn,
                    oidc_issuer=eks.oidc_issuer,
                    namespace=serving.namespace,
                    service_account=m.model,
                    tags=self._tags,
                    statements=[
                        *bucket.grant_read(m.weights_prefix, "ReadWeights"),
                        Statement(sid="DecryptWeights", actions=["kms:Decrypt"], resources=[self._key.arn]),
                    ],
                ),
                opts=self._child,
            )
            for m in serving.models
        }
        return ServingAccess(
            bucket=bucket.name,
            service_account_annotations={
                model: {"eks.amazonaws.com/role-arn": role.arn} for model, role in readers.items()
            },
        )


def _gpu_template(g: GpuGroupArgs, efa: int) -> dict[str, int]:
    """What one node of the group offers, as the autoscaler's node template must say it: `nvidia.com/gpu` (shared or
    single-strategy MIG counts included), or under the mixed MIG strategy each `nvidia.com/mig-<profile>` instead
    (cluster-autoscaler cloudprovider/aws aws_manager.go extractAllocatableResourcesFromAsg reads any
    `k8s.io/cluster-autoscaler/node-template/resources/<name>` tag; tag cluster-autoscaler-chart-9.59.0); a DRA
    group's claimed devices are none of them."""
    if g.devices == DRA:  # its nodes advertise no nvidia.com/gpu: their GPUs are ResourceSlices
        gpus = {GPU_RESOURCE: 0}
    else:
        gpus = dict(g.mig_resources) if g.mig_resources else {GPU_RESOURCE: g.gpu_resources or g.gpus}
    return {**gpus, EFA_RESOURCE: 0 if g.rdma_dra else efa}
