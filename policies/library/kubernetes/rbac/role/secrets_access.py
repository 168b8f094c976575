"""Roles that read Secrets are few and known: get, list or watch on secrets reads every credential they hold.

CIS Kubernetes Benchmark 5.1.2 (minimize access to secrets). Advisory: controllers (cert-manager, external
secrets, operators) need it by design; the finding asks a person to confirm each grant.
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ...rbac_objects import ROLE_TYPES, cis, object_name, rules, values

READ = ("get", "list", "watch", "*")


def check(props, config, args):
    role = object_name(props, args.name)
    for index, rule in rules(props):
        resources = values(rule, "resources")
        if "" in values(rule, "apiGroups") or "*" in values(rule, "apiGroups") or not values(rule, "apiGroups"):
            if "secrets" in resources or "*" in resources:
                verbs = [v for v in values(rule, "verbs") if v in READ]
                if verbs:
                    yield f"{role} rules[{index}] can {', '.join(verbs)} secrets"


RULE = ResourceRule(
    description="Roles should not read Secrets unless the workload needs them.",
    severity="medium",
    level="advisory",
    references={
        "baseline": cis("5.1.2", "4.1.2"),
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Drop get/list/watch on secrets, or limit the rule to named secrets with resourceNames.",
    url="https://kubernetes.io/docs/concepts/security/rbac-good-practices/",
    types=ROLE_TYPES,
    check=check,
)
