"""EKS managed add-ons, as EKS ships them, each at a pinned version and with its own IRSA role.

Networking add-ons (vpc-cni, kube-proxy, eks-pod-identity-agent) come before any node, so nodes
start with a working CNI; the rest (CoreDNS and the CSI drivers, which run Deployments) after the
system node group exists, so EKS can report them healthy.
https://docs.aws.amazon.com/eks/latest/userguide/eks-add-ons.html
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import pulumi
import pulumi_aws as aws

from ..policy_document import Statement
from .iam import WorkloadRole

BEFORE_NODES = ("vpc-cni", "kube-proxy", "eks-pod-identity-agent")
AFTER_NODES = ("coredns", "aws-ebs-csi-driver", "aws-fsx-csi-driver")


@dataclass(frozen=True)
class AddonRole:
    """Who an add-on's controller runs as and what AWS lets it do."""

    service_account: str  # in kube-system
    managed_policies: Sequence[str] = ()
    statements: Sequence[Statement] = ()


@dataclass(frozen=True)
class EksAddonsArgs:
    cluster_name: pulumi.Input[str]
    versions: Mapping[str, str]  # add-on name -> version; only the add-ons named here are installed
    oidc_provider_arn: pulumi.Input[str]
    oidc_issuer: pulumi.Input[str]
    roles: Mapping[str, AddonRole]  # add-on name -> its IRSA role; add-ons without one use none
    partition: pulumi.Input[str]
    tags: Mapping[str, str]


def ebs_csi_key_statements(kms_key_arn: pulumi.Input[str]) -> list[Statement]:
    """What the EBS CSI driver needs to create and attach volumes encrypted with a customer key.

    https://docs.aws.amazon.com/eks/latest/userguide/ebs-csi.html (KMS policy for encrypted volumes)
    """
    return [
        Statement(sid="CreateGrantsForEbs", actions=["kms:CreateGrant", "kms:ListGrants", "kms:RevokeGrant"],
                  resources=[kms_key_arn], conditions={"Bool": {"kms:GrantIsForAWSResource": "true"}}),
        Statement(sid="UseKeyForEbs", actions=["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*",
                                               "kms:GenerateDataKey*", "kms:DescribeKey"],
                  resources=[kms_key_arn]),
    ]


class EksAddons(pulumi.ComponentResource):
    """The add-ons named in ``args.versions``; the caller orders node groups between two of these
    (``BEFORE_NODES``, then ``AFTER_NODES`` with ``depends_on`` the system group)."""

    def __init__(self, name: str, args: EksAddonsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:aws:EksAddons", name, None, opts)
        self.addons: dict[str, aws.eks.Addon] = {}
        self.roles: dict[str, WorkloadRole] = {}
        for addon in sorted(args.versions):
            role_arn = None
            role = args.roles.get(addon)
            if role is not None:
                self.roles[addon] = WorkloadRole(
                    f"{name}-{addon}", oidc_provider_arn=args.oidc_provider_arn, oidc_issuer=args.oidc_issuer,
                    namespace="kube-system", service_account=role.service_account, statements=role.statements,
                    managed_policies=role.managed_policies, partition=args.partition, tags=dict(args.tags),
                    opts=pulumi.ResourceOptions(parent=self))
                role_arn = self.roles[addon].arn
            self.addons[addon] = aws.eks.Addon(
                f"{name}-{addon}", cluster_name=args.cluster_name, addon_name=addon,
                addon_version=args.versions[addon], service_account_role_arn=role_arn,
                resolve_conflicts_on_create="OVERWRITE", resolve_conflicts_on_update="OVERWRITE",
                tags=dict(args.tags), opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"addons": sorted(self.addons)})
