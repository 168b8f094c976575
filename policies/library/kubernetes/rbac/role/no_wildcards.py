"""Roles name their verbs, resources and API groups: a wildcard grants today's and every future kind and verb.

CIS Kubernetes Benchmark 5.1.3 (minimize wildcard use in Roles and ClusterRoles).
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ...rbac_objects import ROLE_TYPES, cis, object_name, rules, values


def check(props, config, args):
    role = object_name(props, args.name)
    for index, rule in rules(props):
        for field in ("verbs", "resources", "apiGroups", "nonResourceURLs"):
            if "*" in values(rule, field):
                yield f"{role} rules[{index}].{field} is a wildcard"


RULE = ResourceRule(
    description="Roles and ClusterRoles must not use wildcards in verbs, resources or API groups.",
    severity="high",
    references={
        "baseline": cis("5.1.3", "4.1.3"),
        "hipaa": HIPAA.format("164.308(a)(4)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="List the exact verbs, resources and apiGroups the subject needs.",
    url="https://kubernetes.io/docs/concepts/security/rbac-good-practices/",
    types=ROLE_TYPES,
    check=check,
)
