"""No one-for-all trust: a role's trust policy names who may assume it."""

from ....iam import principals
from ....props import statements
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    for index, statement in enumerate(statements(props.get("assumeRolePolicy"))):
        if statement.get("Effect") != "Allow" or statement.get("Condition"):
            continue
        if any("*" in principals(statement, kind) for kind in ("AWS", "Service", "Federated")):
            yield f"{statement.get('Sid') or f'statement {index}'} lets any principal assume the role"


RULE = ResourceRule(
    description="IAM role trust policies must not allow any principal ('*') to assume the role.",
    severity="critical",
    references={
        "baseline": "Checkov CKV_AWS_60",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Name the accounts, roles, services or identity providers that may assume the role.",
    url="https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html",
    types=("aws:iam/role:Role",),
    check=check,
)
