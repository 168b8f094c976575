"""EKS managed add-ons, as EKS ships them, each at a pinned version and with its own IRSA role.

Networking add-ons (vpc-cni, kube-proxy, eks-pod-identity-agent) come before any node, so nodes
start with a working CNI; the rest (CoreDNS and the CSI drivers, which run Deployments) after the
system node group exists, so EKS can report them healthy.
https://docs.aws.amazon.com/eks/latest/userguide/eks-add-ons.html
"""

import json
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..policy_document import Statement
from .iam import WorkloadRole, WorkloadRoleArgs

BEFORE_NODES = ("vpc-cni", "kube-proxy", "eks-pod-identity-agent")
# The node monitoring agent reports the GPU, kernel, network and storage faults that EKS node auto repair acts on
# (https://docs.aws.amazon.com/eks/latest/userguide/node-health.html); its DaemonSets need no IAM role.
AFTER_NODES = ("coredns", "aws-ebs-csi-driver", "aws-fsx-csi-driver", "eks-node-monitoring-agent")
# The VPC CNI enforces NetworkPolicy only with its network policy agent on (add-on v1.14.0 and later; nodes with
# kernel 5.10+ and the BPF file system mounted, as the EKS AL2023 AMIs have): without it, policies are accepted and
# ignored. https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy-configure.html
# The node monitoring agent's DCGM DaemonSet tolerates no taint by default, so on tainted GPU nodes it would see no
# GPU (aws/eks-node-monitoring-agent charts/.../values.yaml, dcgmAgent.tolerations: [], and
# charts/configuration.schema.json, read 2026-11-24).
CONFIGURATIONS = {
    "vpc-cni": json.dumps({"enableNetworkPolicy": "true"}),
    "eks-node-monitoring-agent": json.dumps({"dcgmAgent": {"tolerations": [{"operator": "Exists"}]}}),
}


@dataclass(frozen=True)
class AddonRole(Args):
    """Who an add-on's controller runs as and what AWS lets it do."""

    service_account: str
    """The controller's ServiceAccount in kube-system."""
    managed_policies: Optional[Sequence[str]] = ()
    """AWS-managed policy paths; none by default."""
    statements: Optional[Sequence[Statement]] = ()
    """Extra grants (for example on the stack's KMS key); none by default."""


@dataclass(frozen=True)
class EksAddonsArgs(Args):
    """EKS managed add-ons at pinned versions."""

    cluster_name: pulumi.Input[str]
    """The EKS cluster."""
    versions: Mapping[str, str]
    """Add-on name -> version; only the add-ons named here are installed (pin them per Kubernetes minor)."""
    oidc_provider_arn: pulumi.Input[str]
    """The cluster's IAM OIDC provider, for the add-ons' IRSA roles."""
    oidc_issuer: pulumi.Input[str]
    """The cluster's OIDC issuer URL."""
    roles: Optional[Mapping[str, AddonRole]] = field(default_factory=dict)
    """Add-on name -> its IRSA role; add-ons without one run with none (default: none)."""
    configurations: Optional[Mapping[str, str]] = field(default_factory=lambda: dict(CONFIGURATIONS))
    """Add-on name -> its configuration values (JSON, as describe-addon-configuration allows); by default the VPC CNI
    enforces NetworkPolicy and the node monitoring agent's DCGM pods tolerate GPU taints."""
    partition: Optional[pulumi.Input[str]] = "aws"
    """The AWS partition of managed policy ARNs."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the add-ons and roles; none by default."""


def ebs_csi_key_statements(kms_key_arn: pulumi.Input[str]) -> list[Statement]:
    """What the EBS CSI driver needs to create and attach volumes encrypted with a customer key.

    https://docs.aws.amazon.com/eks/latest/userguide/ebs-csi.html (KMS policy for encrypted volumes)
    """
    return [
        Statement(
            sid="CreateGrantsForEbs",
            actions=["kms:CreateGrant", "kms:ListGrants", "kms:RevokeGrant"],
            resources=[kms_key_arn],
            conditions={"Bool": {"kms:GrantIsForAWSResource": "true"}},
        ),
        Statement(
            sid="UseKeyForEbs",
            actions=["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"],
            resources=[kms_key_arn],
        ),
    ]


class EksAddons(Component):
    """The add-ons named in ``args.versions``; the caller orders node groups between two of these
    (``BEFORE_NODES``, then ``AFTER_NODES`` with ``depends_on`` the system group)."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:EksAddons"
    addon_names: pulumi.Output[Sequence[str]]
    """The add-ons installed."""

    def __init__(self, name: str, args: EksAddonsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(EksAddonsArgs, args)
        self.addons: dict[str, aws.eks.Addon] = {}
        self.roles: dict[str, WorkloadRole] = {}
        for addon in sorted(args.versions):
            role_arn = None
            role = args.roles.get(addon)
            if role is not None:
                self.roles[addon] = WorkloadRole(
                    f"{name}-{addon}",
                    WorkloadRoleArgs(
                        oidc_provider_arn=args.oidc_provider_arn,
                        oidc_issuer=args.oidc_issuer,
                        namespace="kube-system",
                        service_account=role.service_account,
                        statements=role.statements,
                        managed_policies=role.managed_policies,
                        partition=args.partition,
                        tags=dict(args.tags),
                    ),
                    opts=pulumi.ResourceOptions(parent=self),
                )
                role_arn = self.roles[addon].arn
            self.addons[addon] = aws.eks.Addon(
                f"{name}-{addon}",
                cluster_name=args.cluster_name,
                addon_name=addon,
                addon_version=args.versions[addon],
                service_account_role_arn=role_arn,
                configuration_values=(args.configurations or {}).get(addon),
                resolve_conflicts_on_create="OVERWRITE",
                resolve_conflicts_on_update="OVERWRITE",
                tags=dict(args.tags),
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.addon_names = pulumi.Output.from_input(sorted(self.addons))
        self.register_outputs({"addon_names": self.addon_names})
