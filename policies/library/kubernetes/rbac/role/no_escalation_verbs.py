"""Roles grant no bind, escalate or impersonate: each lets a subject give itself rights it does not hold.

CIS Kubernetes Benchmark 5.1.8 (limit use of the Bind, Impersonate and Escalate permissions).
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ...rbac_objects import ROLE_TYPES, cis, object_name, rules, values

ESCALATING = ("bind", "escalate", "impersonate")


def check(props, config, args):
    role = object_name(props, args.name)
    for index, rule in rules(props):
        verbs = [v for v in values(rule, "verbs") if v in ESCALATING]
        if verbs:
            yield f"{role} rules[{index}] grants {', '.join(verbs)}"


RULE = ResourceRule(
    description="Roles must not grant bind, escalate or impersonate.",
    severity="high",
    references={
        "baseline": cis("5.1.8", "4.1.8"),
        "hipaa": HIPAA.format("164.308(a)(4)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Remove bind, escalate and impersonate; have an administrator create the bindings the workload needs.",
    url="https://kubernetes.io/docs/reference/access-authn-authz/rbac/#privilege-escalation-prevention-and-bootstrapping",
    types=ROLE_TYPES,
    check=check,
)
