"""RAM roles for workloads through ACK RRSA, each with only the statements it was granted."""

from __future__ import annotations

from typing import Sequence

import pulumi
import pulumi_alicloud as alicloud

from ..policy_document import Statement, ram_policy_json

class RrsaRole(pulumi.ComponentResource):
    def __init__(self, name: str, *, account_id: pulumi.Input[str], cluster_id: pulumi.Input[str], namespace: str,
                 service_account: str, statements: Sequence[Statement], tags: dict[str, str],
                 opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:RrsaRole", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        provider_arn = pulumi.Output.concat("acs:ram::", account_id, ":oidc-provider/ack-rrsa-", cluster_id)
        trust = ram_policy_json([Statement(
            actions=["sts:AssumeRole"], principals={"Federated": [provider_arn]},
            conditions={"StringEquals": {
                "oidc:aud": "sts.aliyuncs.com",
                "oidc:sub": f"system:serviceaccount:{namespace}:{service_account}",
            }})])
        self.role = alicloud.ram.Role(name, role_name=name, assume_role_policy_document=trust,
                                      description=f"RRSA role for {namespace}/{service_account}", tags=tags,
                                      opts=child)
        policy = alicloud.ram.Policy(name, policy_name=name, policy_document=ram_policy_json(statements),
                                     description=f"grants of {namespace}/{service_account}", opts=child)
        alicloud.ram.RolePolicyAttachment(name, role_name=self.role.role_name, policy_name=policy.policy_name,
                                          policy_type="Custom", opts=child)
        self.arn = self.role.arn
        self.role_name = self.role.role_name
        self.register_outputs({"arn": self.role.arn})
