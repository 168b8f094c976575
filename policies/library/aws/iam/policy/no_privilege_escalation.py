"""IAM policies do not grant the actions that let a principal raise its own privileges."""

from ....iam import AWS_ESCALATION, escalations
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from .no_wildcard_actions import TYPES


def check(props, config, args):
    found = escalations(props.get("policy"), AWS_ESCALATION)
    if found:
        yield f"privilege-escalation actions on every resource: {', '.join(found)}"


RULE = ResourceRule(
    description="IAM policies must not grant privilege-escalation actions on all resources.",
    severity="critical",
    references={
        "baseline": "Rhino Security Labs: AWS IAM privilege escalation methods",
        "hipaa": HIPAA.format("164.308(a)(4)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.2 访问控制 d)"),
    },
    remediation="Scope iam:PassRole and policy-management actions to named roles, or remove them.",
    url="https://rhinosecuritylabs.com/aws/aws-privilege-escalation-methods-mitigation/",
    types=TYPES,
    check=check,
)
