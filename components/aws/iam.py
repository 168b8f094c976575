"""Roles: the node role with only the AWS-managed policies nodes need, and IRSA workload roles."""

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..policy_document import Statement, policy_json

# What an EKS worker needs: join the cluster and pull images. The VPC CNI gets its own IRSA role
# (the vpc-cni add-on's), as EKS recommends, so pods on the node cannot use its ENI permissions.
# https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html
# https://docs.aws.amazon.com/eks/latest/userguide/cni-iam-role.html
NODE_MANAGED_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly")


@dataclass(frozen=True)
class NodeRoleArgs(Args):
    """The node role."""

    partition: Optional[pulumi.Input[str]] = "aws"
    """The AWS partition of the managed policies' ARNs; `aws` unless the account is in China or GovCloud."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the role; none by default."""


class NodeRole(Component):
    """The EKS node role with only the AWS-managed policies nodes need (join the cluster, pull images)."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:NodeRole"
    arn: pulumi.Output[str]
    """The role's ARN, for node groups."""

    def __init__(self, name: str, args: NodeRoleArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(NodeRoleArgs, args)
        partition, tags = args.partition, dict(args.tags)
        child = pulumi.ResourceOptions(parent=self)
        self.role = aws.iam.Role(
            name,
            assume_role_policy=policy_json(
                [Statement(sid="Ec2Assume", actions=["sts:AssumeRole"], principals={"Service": "ec2.amazonaws.com"})]
            ),
            tags=tags,
            opts=child,
        )
        self.attachments = [
            aws.iam.RolePolicyAttachment(
                f"{name}-{policy}",
                role=self.role.name,
                policy_arn=pulumi.Output.concat("arn:", partition, ":iam::aws:policy/", policy),
                opts=child,
            )
            for policy in NODE_MANAGED_POLICIES
        ]
        self.arn = self.role.arn
        self.register_outputs({"arn": self.role.arn})


@dataclass(frozen=True)
class WorkloadRoleArgs(Args):
    """A role one ServiceAccount may assume, and its grants."""

    oidc_provider_arn: pulumi.Input[str]
    """The cluster's IAM OIDC provider."""
    oidc_issuer: pulumi.Input[str]
    """The cluster's OIDC issuer URL; the trust policy's conditions are keyed on it."""
    namespace: str
    """The ServiceAccount's namespace: only it may assume the role."""
    service_account: str
    """The ServiceAccount's name: only it may assume the role."""
    statements: Optional[Sequence[Statement]] = ()
    """Grants, as one inline policy; none by default (an add-on may need only managed policies)."""
    managed_policies: Optional[Sequence[str]] = ()
    """AWS-managed policy paths (`service-role/AmazonEBSCSIDriverPolicy`) for add-ons whose permissions AWS keeps;
    none by default."""
    partition: Optional[pulumi.Input[str]] = "aws"
    """The AWS partition of managed policy ARNs."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the role; none by default."""


class WorkloadRole(Component):
    """An IRSA role one Kubernetes service account can assume, with exactly the grants it was given."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:WorkloadRole"
    arn: pulumi.Output[str]
    """The role's ARN, for the ServiceAccount's `eks.amazonaws.com/role-arn` annotation."""

    def __init__(self, name: str, args: WorkloadRoleArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(WorkloadRoleArgs, args)
        oidc_provider_arn, oidc_issuer, namespace = args.oidc_provider_arn, args.oidc_issuer, args.namespace
        service_account, statements, tags = args.service_account, list(args.statements), dict(args.tags)
        managed_policies, partition = args.managed_policies, args.partition
        child = pulumi.ResourceOptions(parent=self)
        trust = pulumi.Output.from_input(oidc_issuer).apply(
            lambda issuer: policy_json(
                [
                    Statement(
                        sid="ServiceAccountAssume",
                        actions=["sts:AssumeRoleWithWebIdentity"],
                        principals={"Federated": oidc_provider_arn},
                        conditions={
                            "StringEquals": {
                                f"{issuer}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                                f"{issuer}:aud": "sts.amazonaws.com",
                            }
                        },
                    )
                ]
            )
        )
        self.role = aws.iam.Role(name, assume_role_policy=trust, tags=tags, opts=child)
        if statements:
            aws.iam.RolePolicy(name, role=self.role.id, policy=policy_json(statements), opts=child)
        for policy in managed_policies:
            aws.iam.RolePolicyAttachment(
                f"{name}-{policy.rsplit('/', 1)[-1]}",
                role=self.role.name,
                policy_arn=pulumi.Output.concat("arn:", partition, ":iam::aws:policy/", policy),
                opts=child,
            )
        self.namespace, self.service_account = namespace, service_account
        self.arn = self.role.arn
        self.register_outputs({"arn": self.role.arn})


def cluster_autoscaler_statements(
    cluster_name: str, region: str, account_id: pulumi.Input[str], partition: pulumi.Input[str]
) -> list[Statement]:
    """The Cluster Autoscaler's least privilege: resize and terminate only this cluster's node groups.

    Writes are limited to the Auto Scaling groups EKS creates for this cluster's node groups
    (named eks-<node group>-<uuid>, our node groups are named <cluster>-<group>) and tagged as owned by
    it; the Describe calls support no resource scoping. eks:DescribeNodegroup lets it read labels and
    taints of empty managed node groups. Sources: the autoscaler's AWS README ("Full Cluster Autoscaler
    Features Policy (Recommended)") for the actions, and the EKS User Guide's former autoscaling page
    (awsdocs/amazon-eks-user-guide doc_source/autoscaling.md, 2023) for the owned-tag condition.
    https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/aws/README.md
    """
    groups = pulumi.Output.concat(
        "arn:",
        partition,
        ":autoscaling:",
        region,
        ":",
        account_id,
        ":autoScalingGroup:*:autoScalingGroupName/eks-",
        cluster_name,
        "-*",
    )
    node_groups = pulumi.Output.concat(
        "arn:", partition, ":eks:", region, ":", account_id, ":nodegroup/", cluster_name, "/*/*"
    )
    return [
        Statement(
            sid="ScaleOwnNodeGroups",
            actions=["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
            resources=[groups],
            conditions={"StringEquals": {f"aws:ResourceTag/k8s.io/cluster-autoscaler/{cluster_name}": "owned"}},
        ),
        Statement(
            sid="DescribeScalingState",
            actions=[
                "autoscaling:DescribeAutoScalingGroups",
                "autoscaling:DescribeAutoScalingInstances",
                "autoscaling:DescribeLaunchConfigurations",
                "autoscaling:DescribeScalingActivities",
                "autoscaling:DescribeTags",
                "ec2:DescribeImages",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplateVersions",
                "ec2:GetInstanceTypesFromInstanceRequirements",
            ],
            resources=["*"],
        ),
        Statement(sid="ReadNodeGroupTemplates", actions=["eks:DescribeNodegroup"], resources=[node_groups]),
    ]
