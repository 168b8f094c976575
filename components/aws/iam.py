"""Roles: the node role with only the AWS-managed policies nodes need, and IRSA workload roles."""

from __future__ import annotations

from typing import Sequence

import pulumi
import pulumi_aws as aws

from ..policy_document import Statement, policy_json

# What an EKS worker needs: join the cluster, pull images, run the VPC CNI.
# https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html
NODE_MANAGED_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly", "AmazonEKS_CNI_Policy")


class NodeRole(pulumi.ComponentResource):
    def __init__(self, name: str, *, partition: pulumi.Input[str], tags: dict[str, str],
                 opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:aws:NodeRole", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.role = aws.iam.Role(
            name,
            assume_role_policy=policy_json([Statement(
                sid="Ec2Assume", actions=["sts:AssumeRole"], principals={"Service": "ec2.amazonaws.com"})]),
            tags=tags, opts=child)
        self.attachments = [
            aws.iam.RolePolicyAttachment(
                f"{name}-{policy}", role=self.role.name,
                policy_arn=pulumi.Output.concat("arn:", partition, ":iam::aws:policy/", policy), opts=child)
            for policy in NODE_MANAGED_POLICIES
        ]
        self.arn = self.role.arn
        self.register_outputs({"arn": self.role.arn})


class WorkloadRole(pulumi.ComponentResource):
    """An IRSA role one Kubernetes service account can assume, with the grants it was given."""

    def __init__(self, name: str, *, oidc_provider_arn: pulumi.Input[str], oidc_issuer: pulumi.Input[str],
                 namespace: str, service_account: str, statements: Sequence[Statement], tags: dict[str, str],
                 opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:aws:WorkloadRole", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        trust = pulumi.Output.from_input(oidc_issuer).apply(lambda issuer: policy_json([Statement(
            sid="ServiceAccountAssume", actions=["sts:AssumeRoleWithWebIdentity"],
            principals={"Federated": oidc_provider_arn},
            conditions={"StringEquals": {
                f"{issuer}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                f"{issuer}:aud": "sts.amazonaws.com",
            }})]))
        self.role = aws.iam.Role(name, assume_role_policy=trust, tags=tags, opts=child)
        aws.iam.RolePolicy(name, role=self.role.id, policy=policy_json(statements), opts=child)
        self.arn = self.role.arn
        self.register_outputs({"arn": self.role.arn})
