"""GpuCluster on AWS: EKS, GPU and system node groups, storage, identity, audit and budget from one args object."""

from dataclasses import replace

from typing import Mapping, Optional

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..kubernetes.autoscaler import SERVICE_ACCOUNT as AUTOSCALER_SA, AutoscalerArgs
from ..kubernetes.kubeconfig import eks_kubeconfig
from ..base import AWS, Component, as_args
from ..cluster_args import GpuClusterArgs
from ..kubernetes.platform import MIG_CONFIG_LABEL, NODE_GROUP_LABEL, GpuPlatform, WorkloadServiceAccount
from ..policy_document import Statement
from ..providers import caller_provider
from ..kubernetes.storage import SharedVolumeSpec, StorageClassSpec
from .addons import AFTER_NODES, BEFORE_NODES, AddonRole, EksAddons, EksAddonsArgs, ebs_csi_key_statements
from .audit import AuditTrail, AuditTrailArgs, ThreatDetection, ThreatDetectionArgs
from .budget import CostBudget, CostBudgetArgs
from .eks import EksArgs, EksCluster
from .iam import NodeRole, NodeRoleArgs, WorkloadRole, WorkloadRoleArgs, cluster_autoscaler_statements
from .kms import DataKey, DataKeyArgs
from ..zones import check_offered, subnet_zones
from .network import EfaFabric, EfaFabricArgs, GpuNetwork, NetworkArgs
from .node_group import GpuNodeGroup, NodeGroupArgs, SystemNodeGroup
from .storage import BucketArgs, DataBucket, LustreArgs, LustreFileSystem

TRAINING_SERVICE_ACCOUNT = "trainer"
SYSTEM_GROUP = "system"
SHARED_CLAIM = "shared-data"
# The label the Cluster Autoscaler's AWS provider reads to tell GPU nodes apart (GPULabel), so it waits for
# the device plugin instead of treating a fresh GPU node as unready. cloudprovider/aws/aws_cloud_provider.go
GPU_LABEL = "k8s.amazonaws.com/accelerator"
# The label NVIDIA's device plugin chart requires (node affinity) when NFD is not installed, set from the start so
# the plugin, the exporter and scale-from-zero templates all match GPU nodes (chart_workloads.yaml).
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
# The FSx for Lustre CSI driver's static volumes: volumeHandle is the file system id.
# https://github.com/kubernetes-sigs/aws-fsx-csi-driver/blob/master/examples/kubernetes/static_provisioning/README.md
FSX_CSI_DRIVER = "fsx.csi.aws.com"
EBS_CSI_DRIVER = "ebs.csi.aws.com"


def addon_roles(key_arn: pulumi.Input[str]) -> dict[str, AddonRole]:
    """Each add-on's own role. The FSx CSI driver gets none: it only mounts statically provisioned file
    systems here, which needs no AWS API; dynamic provisioning would need fsx:CreateFileSystem and more."""
    return {
        "vpc-cni": AddonRole("aws-node", managed_policies=("AmazonEKS_CNI_Policy",)),
        "aws-ebs-csi-driver": AddonRole("ebs-csi-controller-sa",
                                        managed_policies=("service-role/AmazonEBSCSIDriverPolicy",),
                                        statements=ebs_csi_key_statements(key_arn)),
    }


class GpuCluster(Component):
    """A GPU cluster on EKS that works on day one. Uses the caller's AWS provider when one is passed
    (`opts.provider` / `opts.providers`); otherwise makes one for `args.region` with `args.tags` as default tags."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:GpuCluster"
    cluster_name: pulumi.Output[str]
    """The EKS cluster's name."""
    kubeconfig: pulumi.Output[str]
    """A kubeconfig for the cluster (secret); it authenticates with `aws eks get-token`."""
    grafana_admin_password: pulumi.Output[Optional[str]]
    """Grafana's `admin` password (secret); absent without monitoring."""
    kms_key_arn: pulumi.Output[str]
    """The stack's data key."""
    vpc_id: pulumi.Output[str]
    """The VPC."""
    trainer_role_arn: pulumi.Output[str]
    """The IRSA role of the `trainer` ServiceAccount in the trainer namespace."""
    trainer_role_arns: pulumi.Output[Mapping[str, str]]
    """Namespace -> IRSA role of its `trainer` ServiceAccount (the trainer namespace and every team's)."""
    data_bucket: pulumi.Output[Optional[str]]
    """The data bucket's name, with object storage."""
    checkpoints_uri: pulumi.Output[Optional[str]]
    """Where jobs write checkpoints (`s3://<bucket>/checkpoints/`), with object storage."""
    lustre_dns_name: pulumi.Output[Optional[str]]
    """The Lustre file system's DNS name, with one."""

    def __init__(self, name: str, args: GpuClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        args = as_args(GpuClusterArgs, args)
        provider = caller_provider(opts, "aws")
        if provider is None:
            provider = aws.Provider(f"{name}-aws", region=args.region, default_tags={"tags": dict(args.tags)})
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers={"aws": provider}))
        super().__init__(name, opts)
        child = pulumi.ResourceOptions(parent=self)
        invoke = pulumi.InvokeOutputOptions(parent=self, provider=provider)
        tags = {**args.tags, "gpu-cluster": name}
        production = args.protect_data
        identity = aws.get_caller_identity_output(opts=invoke)
        partition = aws.get_partition_output(opts=invoke).partition

        # A Lustre file system caching the SSE-KMS data bucket needs the key policy to let FSx use the key on it;
        # the bucket is declared later (with this key), so its ARN comes in through a deferred output.
        links_bucket = bool(args.object_storage and args.object_storage.cache and args.file_system
                            and args.file_system.kind == "lustre")
        linked_bucket_arn, resolve_linked_bucket = pulumi.deferred_output() if links_bucket else (None, None)
        key = DataKey(f"{name}-data", DataKeyArgs(account_id=identity.account_id, region=args.region,
                                                  partition=partition, tags=tags,
                                                  rotation_days=args.key_rotation_days,
                                                  fsx_linked_bucket_arns=[linked_bucket_arn] if links_bucket else []),
                      opts=child)

        # Zones come from the args (the spec), never from the order a data source lists them in: RDMA groups, groups
        # on a reservation and the file system each get the subnet of their zone, and the subnets' zones are the
        # pinned ones filled up with the others by name. A pinned zone that does not sell its group's shape fails.
        # Plain (blocking) invokes: a zone error stops the program here, before any resource depends on it.
        sync = pulumi.InvokeOptions(parent=self, provider=provider)
        available = aws.get_availability_zones(state="available", opts=sync).names
        zoned = [g for g in args.gpu_groups if g.zone or g.rdma_interfaces]
        sells = {t: aws.ec2.get_instance_type_offerings(
            location_type="availability-zone", filters=[{"name": "instance-type", "values": [t]}],
            opts=sync).locations for t in sorted({g.instance_type for g in zoned})}
        # Without a zone from the caller: the first zone by name that sells every RDMA shape.
        default = args.zone or next((z for z in sorted(available) if all(z in sells[g.instance_type]
                                                                         for g in zoned if not g.zone)),
                                    sorted(available)[0])
        pinned = {g.name: g.zone or default for g in zoned}
        subnet_azs = subnet_zones(available, {**pinned, **({None: default} if args.zone or zoned or args.file_system
                                                           else {})})
        for g in zoned:
            check_offered(g.name, g.instance_type, pinned[g.name], sells[g.instance_type])
        network = GpuNetwork(name, NetworkArgs(
            region=args.region, cidr=args.vpc_cidr, flow_log_retention_days=args.log_retention_days,
            kms_key_arn=key.arn, availability_zones=subnet_azs,
            account_id=identity.account_id, partition=partition, tags=tags), opts=child)

        eks = EksCluster(name, EksArgs(
            kubernetes_version=args.kubernetes_version,
            subnet_ids=[s.id for s in network.private_subnets],
            kms_key_arn=key.arn, account_id=identity.account_id, public_api=args.public_api,
            public_api_cidrs=list(args.public_api_cidrs),
            log_retention_days=args.log_retention_days, partition=partition, tags=tags,
            deletion_protection=production, admin_principal_arns=list(args.cluster_admins)), opts=child)
        node_role = NodeRole(f"{name}-nodes", NodeRoleArgs(partition=partition, tags=tags), opts=child)

        def subnet_in(group: Optional[str]) -> pulumi.Output[str]:
            """The private subnet in a group's zone (None: the cluster's zone)."""
            return network.private_subnets[subnet_azs.index(pinned[group] if group else default)].id

        fabric = None
        if args.rdma:
            fabric = EfaFabric(f"{name}-efa", EfaFabricArgs(
                vpc_id=network.vpc.id, placement_groups=[g.name for g in args.gpu_groups if g.placement_group],
                tags=tags), opts=child)
        client_sgs = [eks.security_group_id] + ([fabric.security_group.id] if fabric else [])

        versions = dict(args.addon_versions)
        lustre_args = args.file_system if args.file_system and args.file_system.kind == "lustre" else None
        if lustre_args is None:
            versions.pop("aws-fsx-csi-driver", None)
        addon_args = dict(cluster_name=eks.name, oidc_provider_arn=eks.oidc_provider.arn,
                          oidc_issuer=eks.oidc_issuer, roles=addon_roles(key.arn), partition=partition, tags=tags)
        # The CNI, kube-proxy and the Pod Identity agent before any node, so nodes come up with networking.
        network_addons = EksAddons(f"{name}-network", EksAddonsArgs(
            versions={k: v for k, v in versions.items() if k in BEFORE_NODES}, **addon_args), opts=child)
        node_opts = pulumi.ResourceOptions(parent=self, depends_on=[*node_role.attachments, network_addons])

        system = args.system
        self.system_group = SystemNodeGroup(f"{name}-{SYSTEM_GROUP}", NodeGroupArgs(
            cluster_name=eks.name, kubernetes_version=args.kubernetes_version, node_role_arn=node_role.arn,
            instance_type=system.instance_type, subnet_ids=[s.id for s in network.private_subnets],
            security_group_ids=[eks.security_group_id], kms_key_arn=key.arn,
            min_nodes=system.min_nodes, desired_nodes=system.desired_nodes,
            max_nodes=system.max_nodes, labels={NODE_GROUP_LABEL: SYSTEM_GROUP},
            root_volume_gib=system.root_volume_gib, release_version=args.node_release_version, tags=tags),
            opts=node_opts)

        self.node_groups = []
        for g in args.gpu_groups:
            efa = g.rdma_interfaces
            labels = {**g.labels, NODE_GROUP_LABEL: g.name,
                      "gpu-blueprints/gpu-model": g.gpu_model,
                      GPU_LABEL: f"nvidia-{g.gpu_model.lower()}", GPU_PRESENT_LABEL: "true",
                      **({"vpc.amazonaws.com/efa.present": "true"} if efa else {}),
                      **({MIG_CONFIG_LABEL: g.mig_profile} if g.mig_profile else {})}
            self.node_groups.append(GpuNodeGroup(f"{name}-{g.name}", NodeGroupArgs(
                cluster_name=eks.name, kubernetes_version=args.kubernetes_version, node_role_arn=node_role.arn,
                instance_type=g.instance_type,
                subnet_ids=([subnet_in(g.name)] if g in zoned else [s.id for s in network.private_subnets]),
                security_group_ids=client_sgs if efa else [eks.security_group_id],
                kms_key_arn=key.arn, min_nodes=g.min_nodes, desired_nodes=g.desired_nodes, max_nodes=g.max_nodes,
                capacity=g.capacity, capacity_reservation_id=g.capacity_reservation_id, labels=labels,
                taints=list(g.taints), root_volume_gib=g.root_volume_gib,
                efa_interfaces=efa,
                placement_group_name=(fabric.placement_groups[g.name].name
                                      if fabric and g.name in fabric.placement_groups else None),
                capacity_block_starts_at=g.capacity_block_starts_at,
                local_nvme_raid0=g.local_nvme_raid0,
                release_version=args.node_release_version,
                extended_resources={"nvidia.com/gpu": g.gpu_resources or g.gpus,
                                    "vpc.amazonaws.com/efa": efa},
                tags=tags), opts=node_opts))

        # CoreDNS and the CSI controllers are Deployments: they need the system nodes to become healthy.
        service_addons = EksAddons(f"{name}-services", EksAddonsArgs(
            versions={k: v for k, v in versions.items() if k in AFTER_NODES}, **addon_args),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.system_group]))

        grants = [key.grant_encrypt_decrypt()]
        outputs: dict[str, pulumi.Input] = {"cluster_name": eks.name, "kms_key_arn": key.arn,
                                            "vpc_id": network.vpc.id}
        bucket = None
        objects = args.object_storage
        training_ns = args.trainer_namespace
        # Every team gets its own identity and claim; the trainer namespace keeps its own whatever teams come.
        trainer_namespaces = list(dict.fromkeys([training_ns, *args.team_namespaces]))
        shared_volumes: list[SharedVolumeSpec] = []
        if objects is not None:
            bucket = DataBucket(f"{name}-data", BucketArgs(
                kms_key_arn=key.arn, protect=production,
                noncurrent_version_days=objects.noncurrent_version_days,
                infrequent_access_after_days=objects.infrequent_access_after_days,
                tags=tags), opts=child)
            if resolve_linked_bucket is not None:
                resolve_linked_bucket(bucket.arn)
            grants += bucket.grant_read("datasets", "ReadDatasets")
            grants += bucket.grant_read_write("checkpoints", "Checkpoints")
            outputs["data_bucket"] = bucket.name
            outputs["checkpoints_uri"] = pulumi.Output.concat("s3://", bucket.name, "/checkpoints/")
        if lustre_args is not None:
            lustre = LustreFileSystem(f"{name}-lustre", LustreArgs(
                vpc_id=network.vpc.id, subnet_id=subnet_in(None), client_security_group_ids=[eks.security_group_id],
                size_gib=lustre_args.size_gib, deployment=lustre_args.deployment,
                throughput_mbps_per_tib=lustre_args.throughput_mbps_per_tib, kms_key_arn=key.arn,
                protect=production, tags=tags,
                cache_bucket_name=bucket.name if bucket is not None and objects.cache else None), opts=child)
            outputs["lustre_dns_name"] = lustre.file_system.dns_name
            shared_volumes += [SharedVolumeSpec(
                claim=SHARED_CLAIM, namespace=ns, driver=FSX_CSI_DRIVER,
                volume_handle=lustre.file_system.id,
                attributes={"dnsname": lustre.file_system.dns_name, "mountname": lustre.file_system.mount_name},
                capacity_gib=lustre_args.size_gib, mount_options=("flock",)) for ns in trainer_namespaces]

        trainers = {ns: WorkloadRole(f"{name}-trainer" if ns == training_ns else f"{name}-trainer-{ns}",
                                     WorkloadRoleArgs(oidc_provider_arn=eks.oidc_provider.arn,
                                                      oidc_issuer=eks.oidc_issuer, namespace=ns,
                                                      service_account=TRAINING_SERVICE_ACCOUNT, statements=grants,
                                                      tags=tags), opts=child)
                    for ns in trainer_namespaces}
        outputs["trainer_role_arn"] = trainers[training_ns].arn
        outputs["trainer_role_arns"] = {ns: role.arn for ns, role in trainers.items()}

        AuditTrail(f"{name}-audit", AuditTrailArgs(
            kms_key_arn=key.arn, retention_days=args.log_retention_days, protect=production,
            account_id=identity.account_id, partition=partition, region=args.region, tags=tags,
            management_events=args.audit_trail), opts=child)
        if args.threat_detection:
            ThreatDetection(f"{name}-guardduty", ThreatDetectionArgs(tags=tags), opts=child)
        CostBudget(f"{name}-monthly", CostBudgetArgs(
            monthly_limit_usd=args.budget.monthly_limit_usd, thresholds_pct=list(args.budget.thresholds_pct),
            contacts=list(args.budget.contacts), cost_tag_key="gpu-cluster", cost_tag_value=name, tags=tags,
            activate_cost_tag=args.budget.activate_cost_tag),
            opts=child)

        kubeconfig = eks_kubeconfig(eks.name, eks.cluster.endpoint, eks.cluster.certificate_authority.data,
                                    args.region)
        outputs["kubeconfig"] = pulumi.Output.secret(kubeconfig)
        if args.platform is not None:
            # The EKS AL2023 NVIDIA AMI ships the driver and container toolkit, not the device plugin
            # (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html).
            kube = k8s.Provider(f"{name}-k8s", kubeconfig=kubeconfig, opts=child)
            autoscaler = None
            scaling = args.autoscaling
            if scaling is not None and scaling.image_tag:
                role = WorkloadRole(f"{name}-cluster-autoscaler", WorkloadRoleArgs(
                    oidc_provider_arn=eks.oidc_provider.arn, oidc_issuer=eks.oidc_issuer, namespace="kube-system",
                    service_account=AUTOSCALER_SA, tags=tags,
                    statements=cluster_autoscaler_statements(name, args.region, identity.account_id, partition)),
                    opts=child)
                autoscaler = AutoscalerArgs(
                    cluster_name=eks.name, region=args.region, role_arn=role.arn,
                    image_tag=scaling.image_tag, node_selector={NODE_GROUP_LABEL: SYSTEM_GROUP},
                    scale_down_unneeded_minutes=scaling.unneeded_minutes,
                    scale_down_utilization_threshold=scaling.utilization_threshold,
                    gpu_scale_down_utilization_threshold=scaling.gpu_utilization_threshold)
            classes = [StorageClassSpec("gp3-encrypted", EBS_CSI_DRIVER, default=True, parameters={
                "type": "gp3", "encrypted": "true", "kmsKeyId": key.arn, "csi.storage.k8s.io/fstype": "ext4"})] \
                if "aws-ebs-csi-driver" in versions else []
            serving = args.platform.serving
            if serving is not None and bucket is not None:  # each model's server reads only its weights' prefix
                readers = {m.model: WorkloadRole(f"{name}-serve-{m.model}", WorkloadRoleArgs(
                    oidc_provider_arn=eks.oidc_provider.arn, oidc_issuer=eks.oidc_issuer, namespace=serving.namespace,
                    service_account=m.model, tags=tags, statements=[
                        *bucket.grant_read(m.weights_prefix, "ReadWeights"),
                        Statement(sid="DecryptWeights", actions=["kms:Decrypt"], resources=[key.arn])]), opts=child)
                    for m in serving.models}
                serving = replace(serving, bucket=bucket.name, service_account_annotations={
                    model: {"eks.amazonaws.com/role-arn": role.arn} for model, role in readers.items()})
            platform = GpuPlatform(name, replace(
                args.platform, driver_preinstalled=True, device_plugin_preinstalled=False, serving=serving,
                system_node_selector={NODE_GROUP_LABEL: SYSTEM_GROUP}, namespaces={training_ns: {}},
                service_accounts=[WorkloadServiceAccount(ns, TRAINING_SERVICE_ACCOUNT,
                                                         {"eks.amazonaws.com/role-arn": role.arn})
                                  for ns, role in trainers.items()],
                storage_classes=classes, shared_volumes=shared_volumes, autoscaler=autoscaler),
                opts=pulumi.ResourceOptions(parent=self, providers={"kubernetes": kube},
                                            depends_on=[self.system_group, service_addons]))
            if platform.grafana_admin_password is not None:
                outputs["grafana_admin_password"] = platform.grafana_admin_password

        self.outputs = outputs
        for key, value in outputs.items():
            setattr(self, key, value)
        self.register_outputs(outputs)


