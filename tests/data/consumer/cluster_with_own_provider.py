"""A whole GPU cluster composed for a shipped stack, declared on the caller's own AWS provider (an assumed role)."""

import pulumi
import pulumi_aws as aws

from blueprints.compose import build_cluster, resolve_config
from blueprints.stackconfig import CONFIG_KEY

plan = resolve_config(pulumi.Config().require_object(CONFIG_KEY), source="stack startup-t4")
assumed = aws.Provider(
    "assumed", region="us-east-1", assume_roles=[{"role_arn": "arn:aws:iam::111122223333:role/platform-deployer"}]
)
build_cluster(plan, "consumer", pulumi.ResourceOptions(providers={"aws": assumed}))
