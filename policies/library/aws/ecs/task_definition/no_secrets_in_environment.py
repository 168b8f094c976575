"""No credentials in ECS container environment variables: the task definition keeps them in plain text for anyone
who may describe it (ecs:DescribeTaskDefinition); a container's `secrets` (Secrets Manager or SSM Parameter Store)
hands them over at start instead."""

import json

from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule
from ....secrets import in_variables


def containers(value) -> list:
    """The container definitions, given as JSON text (as pulumi-aws takes them) or as a list; none while unknown."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    return [c for c in value if isinstance(c, dict)] if isinstance(value, list) else []


def check(props, config, args):
    for container in containers(props.get("containerDefinitions")):
        variables = {e.get("name"): e.get("value") for e in container.get("environment") or [] if isinstance(e, dict)}
        for name in in_variables({k: v for k, v in variables.items() if isinstance(k, str)}):
            yield (
                f"container {container.get('name')}: environment variable {name} holds a literal secret; "
                "pass it in the container's secrets instead"
            )


RULE = ResourceRule(
    description="ECS task definitions must not pass secrets as container environment variables.",
    severity="high",
    references={
        "baseline": "AWS Security Hub ECS.8",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Store the value in Secrets Manager or SSM Parameter Store and list it under the container's "
    "secrets (name, valueFrom: the secret's ARN).",
    url=SECURITY_HUB.format("ecs"),
    types=("aws:ecs/taskDefinition:TaskDefinition",),
    check=check,
)
