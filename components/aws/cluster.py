"""AwsGpuCluster: the AWS components composed for one resolved plan."""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from blueprints.resolver import ResolvedPlan

from ..kubernetes.kubeconfig import eks_kubeconfig
from ..kubernetes.platform import MIG_CONFIG_LABEL, GpuPlatform, platform_args
from .audit import AuditTrail, ThreatDetection
from .budget import CostBudget
from .eks import EksArgs, EksCluster
from .iam import NodeRole, WorkloadRole
from .kms import DataKey
from .network import SUBNET_COUNT, EfaFabric, GpuNetwork, NetworkArgs
from .node_group import GpuNodeGroup, GpuNodeGroupArgs
from .storage import BucketArgs, DataBucket, LustreArgs, LustreFileSystem

TRAINING_NAMESPACE, TRAINING_SERVICE_ACCOUNT = "training", "trainer"


class AwsGpuCluster(pulumi.ComponentResource):
    def __init__(self, name: str, plan: ResolvedPlan, opts: pulumi.ResourceOptions | None = None):
        spec = plan.spec
        provider = aws.Provider(f"{name}-aws", region=spec.region,
                                default_tags={"tags": spec.project_tags})
        super().__init__("gpu-blueprints:aws:GpuCluster", name, None,
                         pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers={"aws": provider})))
        child = pulumi.ResourceOptions(parent=self)
        invoke = pulumi.InvokeOutputOptions(parent=self, provider=provider)
        tags = {**spec.project_tags, "gpu-cluster": name}
        production = spec.environment == "production"
        identity = aws.get_caller_identity_output(opts=invoke)
        partition = aws.get_partition_output(opts=invoke).partition

        key = DataKey(f"{name}-data", account_id=identity.account_id, region=spec.region,
                      partition=partition, tags=tags, opts=child)

        # EFA node groups must share one AZ: the first subnet AZ that sells every RDMA shape in the plan.
        azs = aws.get_availability_zones_output(state="available", opts=invoke).names
        rdma_types = sorted({g.shape.instance_type for g in plan.node_groups if g.rdma_interfaces})
        offered = [
            aws.ec2.get_instance_type_offerings_output(
                location_type="availability-zone",
                filters=[{"name": "instance-type", "values": [t]}], opts=invoke).locations
            for t in rdma_types
        ]
        rdma_index = pulumi.Output.all(azs, *offered).apply(
            lambda v: next((i for i, az in enumerate(v[0][:SUBNET_COUNT]) if all(az in o for o in v[1:])), 0))
        network = GpuNetwork(name, NetworkArgs(
            region=spec.region, cidr=spec.networking.vpc_cidr, flow_log_retention_days=spec.logging.retention_days,
            kms_key_arn=key.arn, availability_zones=azs, tags=tags), opts=child)

        eks = EksCluster(name, EksArgs(
            kubernetes_version=spec.kubernetes_version,
            subnet_ids=[s.id for s in network.private_subnets],
            kms_key_arn=key.arn, public_api=spec.networking.public_api,
            public_api_cidrs=spec.networking.public_api_cidrs,
            log_retention_days=spec.logging.retention_days, partition=partition, tags=tags,
            deletion_protection=production), opts=child)
        node_role = NodeRole(f"{name}-nodes", partition=partition, tags=tags, opts=child)

        # The private subnet in the RDMA AZ carries every EFA node group (and the file system beside them).
        rdma_subnet_id = pulumi.Output.all(rdma_index, *[s.id for s in network.private_subnets]).apply(
            lambda v: v[1 + v[0]])

        fabric = None
        if plan.rdma:
            fabric = EfaFabric(f"{name}-efa", vpc_id=network.vpc.id,
                               placement=any(g.placement_group for g in plan.node_groups), tags=tags, opts=child)
        client_sgs = [eks.security_group_id] + ([fabric.security_group.id] if fabric else [])

        self.node_groups = []
        for group in plan.node_groups:
            g = group.spec
            efa = group.rdma_interfaces
            self.node_groups.append(GpuNodeGroup(f"{name}-{group.name}", GpuNodeGroupArgs(
                cluster_name=eks.name, kubernetes_version=spec.kubernetes_version, node_role_arn=node_role.arn,
                instance_type=group.shape.instance_type,
                subnet_ids=[rdma_subnet_id] if efa else [s.id for s in network.private_subnets],
                security_group_ids=client_sgs if efa else [eks.security_group_id],
                kms_key_arn=key.arn, min_nodes=g.min_nodes, desired_nodes=g.desired_nodes, max_nodes=g.max_nodes,
                capacity=g.capacity, capacity_reservation_id=g.capacity_reservation_id,
                labels={**g.labels, "gpu-blueprints/node-group": group.name,
                        "gpu-blueprints/gpu-model": group.shape.gpu.model,
                        **({"vpc.amazonaws.com/efa.present": "true"} if efa else {}),
                        **({MIG_CONFIG_LABEL: g.mig_profile} if g.mig_profile else {})},
                taints=[t.model_dump() for t in g.taints], root_volume_gib=g.root_volume_gib,
                efa_interfaces=efa,
                placement_group_name=(fabric.placement_group.name
                                      if fabric and fabric.placement_group and group.placement_group else None),
                tags=tags), opts=pulumi.ResourceOptions(parent=self, depends_on=node_role.attachments)))

        grants = [key.grant_encrypt_decrypt()]
        outputs: dict[str, pulumi.Input] = {"cluster_name": eks.name, "kms_key_arn": key.arn,
                                            "vpc_id": network.vpc.id}
        bucket = None
        storage = spec.storage
        if storage.object_storage.enabled:
            bucket = DataBucket(f"{name}-data", BucketArgs(
                kms_key_arn=key.arn, protect=production,
                noncurrent_version_days=storage.object_storage.noncurrent_version_days,
                infrequent_access_after_days=storage.object_storage.infrequent_access_after_days,
                tags=tags), opts=child)
            grants += bucket.grant_read("datasets", "ReadDatasets")
            grants += bucket.grant_read_write("checkpoints", "Checkpoints")
            outputs["data_bucket"] = bucket.name
        if storage.parallel_fs.type == "lustre":
            lustre = LustreFileSystem(f"{name}-lustre", LustreArgs(
                vpc_id=network.vpc.id, subnet_id=rdma_subnet_id, client_security_group_ids=[eks.security_group_id],
                size_gib=storage.parallel_fs.size_gib or 0, deployment=storage.parallel_fs.deployment,
                throughput_mbps_per_tib=storage.parallel_fs.throughput_mbps_per_tib, kms_key_arn=key.arn,
                protect=production, tags=tags,
                cache_bucket=bucket if storage.object_storage.cache else None), opts=child)
            outputs["lustre_dns_name"] = lustre.file_system.dns_name

        trainer = WorkloadRole(f"{name}-trainer", oidc_provider_arn=eks.oidc_provider.arn,
                               oidc_issuer=eks.oidc_issuer, namespace=TRAINING_NAMESPACE,
                               service_account=TRAINING_SERVICE_ACCOUNT, statements=grants, tags=tags, opts=child)
        outputs["trainer_role_arn"] = trainer.arn

        AuditTrail(f"{name}-audit", kms_key_arn=key.arn, retention_days=spec.logging.retention_days,
                   protect=production, account_id=identity.account_id, partition=partition, region=spec.region,
                   tags=tags, opts=child)
        ThreatDetection(f"{name}-guardduty", tags=tags, opts=child)
        CostBudget(f"{name}-monthly", monthly_limit_usd=spec.budget.monthly_limit_usd,
                   thresholds_pct=spec.budget.alert_thresholds_pct, contacts=spec.budget.contacts,
                   cost_tag=("gpu-cluster", name), tags=tags, opts=child)

        if spec.kubernetes.enabled:
            # The EKS AL2023 NVIDIA AMI ships the driver and container toolkit, not the device plugin
            # (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html).
            kube = k8s.Provider(f"{name}-k8s", kubeconfig=eks_kubeconfig(
                eks.name, eks.cluster.endpoint, eks.cluster.certificate_authority.data, spec.region), opts=child)
            GpuPlatform(name, platform_args(plan, driver_preinstalled=True, device_plugin_preinstalled=False),
                        opts=pulumi.ResourceOptions(parent=self, providers={"kubernetes": kube},
                                                    depends_on=self.node_groups))

        self.outputs = outputs
        self.register_outputs(outputs)
