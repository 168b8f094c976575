"""No credentials in Lambda environment variables (shown to anyone who may read the function's configuration)."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ....secrets import in_variables


def check(props, config, args):
    variables = (props.get("environment") or {}).get("variables") or {}
    for name in in_variables(variables):
        yield f"environment variable {name} holds a literal secret; read it from Secrets Manager at run time"


RULE = ResourceRule(
    description="Lambda functions must not hold secrets in environment variables.",
    severity="high",
    references={
        "baseline": "Checkov CKV_AWS_45",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Store the secret in Secrets Manager or SSM Parameter Store; pass its ARN, not its value.",
    url="https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html",
    types=("aws:lambda/function:Function",),
    check=check,
)
