"""RAM role trust names who may assume the role, and OIDC (RRSA) trust names the service account.

Without ``oidc:sub`` every pod of the cluster that can get an OIDC token assumes the role
(ACK RRSA guide: the trust policy conditions on oidc:aud and oidc:sub).
"""

from ....iam import principals
from ....props import statements
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def subject_condition(condition) -> bool:
    return any(isinstance(op, dict) and any(k.endswith(":sub") for k in op) for op in (condition or {}).values())


def check(props, config, args):
    document = props.get("assumeRolePolicyDocument") or props.get("document")
    for index, statement in enumerate(statements(document)):
        if statement.get("Effect") != "Allow":
            continue
        name = statement.get("Sid") or f"statement {index}"
        if not statement.get("Condition") and any(
            "*" in principals(statement, k) for k in ("RAM", "Service", "Federated")
        ):
            yield f"{name} lets any principal assume the role"
        if principals(statement, "Federated") and not subject_condition(statement.get("Condition")):
            yield f"{name} trusts an OIDC provider without an oidc:sub condition"


RULE = ResourceRule(
    description="RAM role trust policies must not trust everyone, and OIDC trust must name the subject.",
    severity="critical",
    references={
        "baseline": "Alibaba Cloud ACK RRSA: RAM role trust policy",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Name the accounts or services; for RRSA add StringEquals oidc:sub system:serviceaccount:<ns>:<name>.",
    url="https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/use-rrsa-to-authorize-pods-to-access-different-cloud-services",
    types=("alicloud:ram/role:Role",),
    check=check,
)
