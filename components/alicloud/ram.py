"""RAM roles for workloads through ACK RRSA, each with only the statements it was granted."""

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_alicloud as alicloud

from ..base import ALICLOUD, Args, Component, as_args
from ..policy_document import Statement, ram_policy_json


@dataclass(frozen=True)
class WorkloadRoleArgs(Args):
    """A role one ServiceAccount may assume, and its grants."""

    account_id: pulumi.Input[str]
    """The account of the cluster's RRSA OIDC provider."""
    cluster_id: pulumi.Input[str]
    """The ACK cluster (RRSA on); its OIDC provider is `ack-rrsa-<cluster id>`."""
    namespace: str
    """The ServiceAccount's namespace: only it may assume the role."""
    service_account: str
    """The ServiceAccount's name: only it may assume the role."""
    statements: Optional[Sequence[Statement]] = ()
    """Grants, as one custom policy; none by default."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the role; none by default."""


class WorkloadRole(Component):
    """A RAM role one Kubernetes service account assumes through ACK RRSA, with exactly the grants it was given."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:RrsaRole"
    arn: pulumi.Output[str]
    """The role's ARN."""
    role_name: pulumi.Output[str]
    """The role's name, for the ServiceAccount's `pod-identity.alibabacloud.com/role-name` annotation."""

    def __init__(self, name: str, args: WorkloadRoleArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(WorkloadRoleArgs, args)
        account_id, cluster_id, namespace = args.account_id, args.cluster_id, args.namespace
        service_account, statements, tags = args.service_account, list(args.statements), dict(args.tags)
        child = pulumi.ResourceOptions(parent=self)
        provider_arn = pulumi.Output.concat("acs:ram::", account_id, ":oidc-provider/ack-rrsa-", cluster_id)
        trust = ram_policy_json(
            [
                Statement(
                    actions=["sts:AssumeRole"],
                    principals={"Federated": [provider_arn]},
                    conditions={
                        "StringEquals": {
                            "oidc:aud": "sts.aliyuncs.com",
                            "oidc:sub": f"system:serviceaccount:{namespace}:{service_account}",
                        }
                    },
                )
            ]
        )
        self.role = alicloud.ram.Role(
            name,
            role_name=name,
            assume_role_policy_document=trust,
            description=f"RRSA role for {namespace}/{service_account}",
            tags=tags,
            opts=child,
        )
        policy = alicloud.ram.Policy(
            name,
            policy_name=name,
            policy_document=ram_policy_json(statements),
            description=f"grants of {namespace}/{service_account}",
            opts=child,
        )
        alicloud.ram.RolePolicyAttachment(
            name, role_name=self.role.role_name, policy_name=policy.policy_name, policy_type="Custom", opts=child
        )
        self.arn = self.role.arn
        self.role_name = self.role.role_name
        self.register_outputs({"arn": self.arn, "role_name": self.role_name})
