"""RAM policies name their actions and grant no privilege escalation."""

from ....iam import RAM_ESCALATION, escalations, wildcard_actions
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    document = props.get("policyDocument") or props.get("document")
    found = wildcard_actions(document)
    if found:
        yield f"wildcard actions: {', '.join(sorted(set(found)))}"
    risky = escalations(document, RAM_ESCALATION)
    if risky:
        yield f"privilege-escalation actions on every resource: {', '.join(risky)}"


RULE = ResourceRule(
    description="RAM policies must not allow wildcard actions or privilege escalation.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud RAM: principle of least privilege",
        "hipaa": HIPAA.format("164.308(a)(4)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.2 访问控制 d)"),
    },
    remediation="List the actions the workload needs on named resources; drop ram:* grants.",
    url="https://www.alibabacloud.com/help/en/ram/user-guide/policy-elements",
    types=("alicloud:ram/policy:Policy",),
    check=check,
)
