"""IAM policies name their actions: no '*' or 'service:*'."""

from ....iam import wildcard_actions
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule

TYPES = (
    "aws:iam/policy:Policy",
    "aws:iam/rolePolicy:RolePolicy",
    "aws:iam/userPolicy:UserPolicy",
    "aws:iam/groupPolicy:GroupPolicy",
)


def check(props, config, args):
    found = wildcard_actions(props.get("policy"))
    if found:
        yield f"wildcard actions: {', '.join(sorted(set(found)))}"


RULE = ResourceRule(
    description="IAM policies must not allow '*' or service-wide wildcard actions.",
    severity="high",
    references={
        "baseline": "AWS Security Hub IAM.21",
        "hipaa": HIPAA.format("164.308(a)(4)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.2 访问控制 d)"),
    },
    remediation="List the actions the workload needs; grant them on the specific resources.",
    url=SECURITY_HUB.format("iam"),
    types=TYPES,
    check=check,
)
