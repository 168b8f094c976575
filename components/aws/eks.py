"""EKS control plane: private endpoint, KMS-encrypted secrets, audit logs, IRSA, access entries."""

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..policy_document import Statement, policy_json, source_conditions

CONTROL_PLANE_LOGS = ("api", "audit", "authenticator", "controllerManager", "scheduler")


@dataclass(frozen=True)
class EksArgs(Args):
    """An EKS control plane. Fields without a default are required."""

    kubernetes_version: str
    """The Kubernetes minor version (`1.33`)."""
    subnet_ids: Sequence[pulumi.Input[str]]
    """Private subnets for the control plane's network interfaces."""
    kms_key_arn: pulumi.Input[str]
    """Encrypts Kubernetes Secrets (envelope encryption) and the control-plane log group."""
    account_id: pulumi.Input[str]
    """The cluster's account: the cluster role trusts EKS only for this account's cluster of this name
    (aws:SourceAccount and aws:SourceArn, against the confused deputy)."""
    log_retention_days: Optional[int] = 365
    """Control-plane log retention; a year by default, what audit frameworks commonly ask."""
    public_api: Optional[bool] = False
    """Also expose the API server publicly; off by default, the endpoint stays inside the VPC."""
    public_api_cidrs: Optional[Sequence[str]] = ()
    """CIDRs allowed to the public endpoint, when there is one."""
    partition: Optional[pulumi.Input[str]] = "aws"
    """The AWS partition of managed policy ARNs."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on every resource; none by default."""
    deletion_protection: Optional[bool] = False
    """Refuse to delete the cluster (production stacks turn it on); off by default."""
    admin_principal_arns: Optional[Sequence[str]] = ()
    """IAM role/user ARNs granted cluster admin through access entries; the creator is admin either way."""


class EksCluster(Component):
    """An EKS control plane: private endpoint, KMS-encrypted secrets, every control-plane log, IRSA, access entries."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:EksCluster"
    name: pulumi.Output[str]
    """The cluster's name."""
    endpoint: pulumi.Output[str]
    """The API server's URL."""
    oidc_issuer: pulumi.Output[str]
    """The OIDC issuer without `https://`, as IRSA trust policies key it."""
    security_group_id: pulumi.Output[str]
    """The cluster security group EKS creates."""

    def __init__(self, name: str, args: EksArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(EksArgs, args)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        attachment = self._cluster_role(name, args, tags)
        # EKS writes control-plane logs to this group; creating it first sets retention and the key.
        log_group = aws.cloudwatch.LogGroup(
            f"{name}-control-plane",
            name=f"/aws/eks/{name}/cluster",
            retention_in_days=args.log_retention_days,
            kms_key_id=args.kms_key_arn,
            tags=tags,
            opts=child,
        )
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
            opts=pulumi.ResourceOptions(parent=self, depends_on=[attachment, log_group]),
        )
        issuer = self.cluster.identities[0].oidcs[0].issuer
        self.oidc_provider = aws.iam.OpenIdConnectProvider(
            f"{name}-irsa", url=issuer, client_id_lists=["sts.amazonaws.com"], tags=tags, opts=child
        )
        self.oidc_issuer = issuer.apply(lambda url: url.removeprefix("https://"))
        self._admins(name, args, tags)
        self.name = self.cluster.name
        self.security_group_id = self.cluster.vpc_config.cluster_security_group_id
        self.endpoint = self.cluster.endpoint
        self.register_outputs(
            {
                "name": self.name,
                "endpoint": self.endpoint,
                "oidc_issuer": self.oidc_issuer,
                "security_group_id": self.security_group_id,
            }
        )

    def _cluster_role(self, name: str, args: EksArgs, tags: dict) -> aws.iam.RolePolicyAttachment:
        """The cluster's IAM role, trusted by EKS for this cluster only, with AmazonEKSClusterPolicy."""
        child = pulumi.ResourceOptions(parent=self)
        # EKS accepts aws:SourceArn (the cluster's ARN) and aws:SourceAccount in the cluster role's trust policy:
        # https://docs.aws.amazon.com/eks/latest/userguide/cross-service-confused-deputy-prevention.html
        # The region is left a wildcard: the ARN pattern still names this account and this cluster.
        self.role = aws.iam.Role(
            f"{name}-cluster",
            assume_role_policy=policy_json(
                [
                    Statement(
                        sid="EksAssume",
                        actions=["sts:AssumeRole", "sts:TagSession"],
                        principals={"Service": "eks.amazonaws.com"},
                        conditions=source_conditions(
                            args.account_id,
                            pulumi.Output.concat("arn:", args.partition, ":eks:*:", args.account_id, ":cluster/", name),
                        ),
                    )
                ]
            ),
            tags=tags,
            opts=child,
        )
        return aws.iam.RolePolicyAttachment(
            f"{name}-cluster-policy",
            role=self.role.name,
            policy_arn=pulumi.Output.concat("arn:", args.partition, ":iam::aws:policy/AmazonEKSClusterPolicy"),
            opts=child,
        )

    def _admins(self, name: str, args: EksArgs, tags: dict) -> None:
        """An access entry with the cluster-admin policy for each admin principal (API authentication mode)."""
        child = pulumi.ResourceOptions(parent=self)
        for index, principal in enumerate(args.admin_principal_arns):
            entry = aws.eks.AccessEntry(
                f"{name}-admin-{index}",
                cluster_name=self.cluster.name,
                principal_arn=principal,
                type="STANDARD",
                tags=tags,
                opts=child,
            )
            aws.eks.AccessPolicyAssociation(
                f"{name}-admin-{index}",
                cluster_name=self.cluster.name,
                principal_arn=principal,
                policy_arn="arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
                access_scope={"type": "cluster"},
                opts=pulumi.ResourceOptions(parent=self, depends_on=[entry]),
            )
