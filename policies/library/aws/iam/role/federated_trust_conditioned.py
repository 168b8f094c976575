"""Federated trust names the subject: an OIDC or SAML provider alone lets every identity it vouches for in.

For an EKS OIDC provider (IRSA) that is every service account in the cluster; AWS's IRSA guide scopes
the trust with `<provider>:sub` (and `:aud`). For SAML the audience is `SAML:aud`.
"""

from ....iam import principals
from ....props import statements
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule

SCOPING_KEYS = (":sub", "SAML:aud", "SAML:sub", "amr")


def scoped(condition) -> bool:
    keys = [key for operator in (condition or {}).values() if isinstance(operator, dict) for key in operator]
    return any(key.endswith(suffix) or key == suffix for key in keys for suffix in SCOPING_KEYS)


def check(props, config, args):
    for index, statement in enumerate(statements(props.get("assumeRolePolicy"))):
        if (
            statement.get("Effect") == "Allow"
            and principals(statement, "Federated")
            and not scoped(statement.get("Condition"))
        ):
            yield (
                f"{statement.get('Sid') or f'statement {index}'} trusts a federated provider without a subject "
                "condition: every identity the provider issues can assume the role"
            )


RULE = ResourceRule(
    description="IAM roles trusted by a federated provider must condition on the subject.",
    severity="high",
    references={
        "baseline": "AWS IAM roles for service accounts (IRSA) trust policy",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Add StringEquals on '<provider>:sub' (system:serviceaccount:<namespace>:<name>) and ':aud'.",
    url="https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html",
    types=("aws:iam/role:Role",),
    check=check,
)
