"""EKS control plane: private endpoint, KMS-encrypted secrets, audit logs, IRSA, access entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import pulumi
import pulumi_aws as aws

from ..policy_document import Statement, policy_json

CONTROL_PLANE_LOGS = ("api", "audit", "authenticator", "controllerManager", "scheduler")


@dataclass(frozen=True)
class EksArgs:
    kubernetes_version: str
    subnet_ids: Sequence[pulumi.Input[str]]
    kms_key_arn: pulumi.Input[str]
    public_api: bool
    public_api_cidrs: Sequence[str]
    log_retention_days: int
    partition: pulumi.Input[str]
    tags: dict[str, str]
    deletion_protection: bool = False
    admin_principal_arns: Sequence[str] = field(default_factory=tuple)


class EksCluster(pulumi.ComponentResource):
    def __init__(self, name: str, args: EksArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:aws:EksCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = args.tags
        self.role = aws.iam.Role(
            f"{name}-cluster",
            assume_role_policy=policy_json([Statement(
                sid="EksAssume", actions=["sts:AssumeRole", "sts:TagSession"],
                principals={"Service": "eks.amazonaws.com"})]),
            tags=tags, opts=child)
        attachment = aws.iam.RolePolicyAttachment(
            f"{name}-cluster-policy", role=self.role.name,
            policy_arn=pulumi.Output.concat("arn:", args.partition, ":iam::aws:policy/AmazonEKSClusterPolicy"),
            opts=child)
        # EKS writes control-plane logs to this group; creating it first sets retention and the key.
        log_group = aws.cloudwatch.LogGroup(
            f"{name}-control-plane", name=f"/aws/eks/{name}/cluster",
            retention_in_days=args.log_retention_days, kms_key_id=args.kms_key_arn, tags=tags, opts=child)
        self.cluster = aws.eks.Cluster(
            name,
            name=name,
            version=args.kubernetes_version,
            role_arn=self.role.arn,
            vpc_config={
                "subnet_ids": list(args.subnet_ids),
                "endpoint_private_access": True,
                "endpoint_public_access": args.public_api,
                **({"public_access_cidrs": list(args.public_api_cidrs)} if args.public_api else {}),
            },
            encryption_config={"provider": {"key_arn": args.kms_key_arn}, "resources": ["secrets"]},
            enabled_cluster_log_types=list(CONTROL_PLANE_LOGS),
            access_config={"authentication_mode": "API", "bootstrap_cluster_creator_admin_permissions": True},
            deletion_protection=args.deletion_protection,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[attachment, log_group]))
        issuer = self.cluster.identities[0].oidcs[0].issuer
        self.oidc_provider = aws.iam.OpenIdConnectProvider(
            f"{name}-irsa", url=issuer, client_id_lists=["sts.amazonaws.com"], tags=tags, opts=child)
        self.oidc_issuer = issuer.apply(lambda url: url.removeprefix("https://"))
        for i, principal in enumerate(args.admin_principal_arns):
            entry = aws.eks.AccessEntry(f"{name}-admin-{i}", cluster_name=self.cluster.name,
                                        principal_arn=principal, type="STANDARD", tags=tags, opts=child)
            aws.eks.AccessPolicyAssociation(
                f"{name}-admin-{i}", cluster_name=self.cluster.name, principal_arn=principal,
                policy_arn="arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
                access_scope={"type": "cluster"}, opts=pulumi.ResourceOptions(parent=self, depends_on=[entry]))
        self.name = self.cluster.name
        self.security_group_id = self.cluster.vpc_config.cluster_security_group_id
        self.register_outputs({"name": self.cluster.name, "endpoint": self.cluster.endpoint})
