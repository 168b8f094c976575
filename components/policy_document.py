"""A typed policy document builder for AWS IAM and Alibaba Cloud RAM: statements in, JSON Output out.

Used instead of hand-written JSON strings so every policy is built from the same few
checked shapes, and resource ARNs that are still Outputs slot in without string splicing.
"""

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import pulumi

from .base import Args


@dataclass(frozen=True)
class Statement(Args):
    """One IAM/RAM policy statement."""

    actions: Sequence[str]
    """Actions allowed or denied."""
    sid: Optional[str] = None
    """Statement id; none by default."""
    resources: Optional[Sequence[pulumi.Input[str]]] = ()
    """ARNs the statement covers; `*` where the action takes none."""
    effect: Optional[str] = "Allow"
    """Allow (default) or Deny."""
    principals: Optional[Mapping[str, Any] | Sequence[str]] = None
    """IAM: {"Service": ...}; OSS: ["*"]."""
    conditions: Optional[Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    """Condition operator -> key -> value; none by default."""

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"Sid": self.sid} if self.sid else {}
        body.update({"Effect": self.effect, "Action": sorted(self.actions)})
        if self.principals is not None:
            body["Principal"] = dict(self.principals) if isinstance(self.principals, Mapping) else list(self.principals)
        if self.resources:
            body["Resource"] = list(self.resources)
        if self.conditions:
            body["Condition"] = {op: dict(values) for op, values in self.conditions.items()}
        return body


IAM_VERSION = "2012-10-17"
RAM_VERSION = "1"


def policy_json(statements: Sequence[Statement], version: str = IAM_VERSION) -> pulumi.Output[str]:
    """The policy document as a JSON string Output (ARNs resolved when known)."""
    return pulumi.Output.json_dumps({"Version": version, "Statement": [s.to_json() for s in statements]})


def ram_policy_json(statements: Sequence[Statement]) -> pulumi.Output[str]:
    return policy_json(statements, RAM_VERSION)


def source_conditions(
    source_account: Optional[pulumi.Input[str]] = None, source_arn: Optional[pulumi.Input[str]] = None
) -> dict[str, dict[str, Any]]:
    """Trust-policy conditions against the cross-service confused deputy: the account (StringEquals
    aws:SourceAccount) and the resource pattern (ArnLike aws:SourceArn) the service acts for
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html)."""
    conditions: dict[str, dict[str, Any]] = {}
    if source_account is not None:
        conditions["StringEquals"] = {"aws:SourceAccount": source_account}
    if source_arn is not None:
        conditions["ArnLike"] = {"aws:SourceArn": source_arn}
    return conditions


def service_role(
    name: str,
    service: str,
    statements: Sequence[Statement],
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
    source_account: Optional[pulumi.Input[str]] = None,
    source_arn: Optional[pulumi.Input[str]] = None,
) -> "pulumi.Resource":
    """An IAM role one AWS service assumes, with exactly the statements it needs (flow logs, CloudTrail).

    Pass ``source_account``/``source_arn`` where the service sends aws:SourceAccount/aws:SourceArn when it
    assumes the role; leave them out only for a service whose documentation says it does not (a condition
    on an absent key denies the assumption)."""
    import pulumi_aws as aws

    role = aws.iam.Role(
        name,
        assume_role_policy=policy_json(
            [
                Statement(
                    sid="ServiceAssume",
                    actions=["sts:AssumeRole"],
                    principals={"Service": service},
                    conditions=source_conditions(source_account, source_arn),
                )
            ]
        ),
        tags=tags,
        opts=opts,
    )
    aws.iam.RolePolicy(name, role=role.id, policy=policy_json(statements), opts=opts)
    return role
