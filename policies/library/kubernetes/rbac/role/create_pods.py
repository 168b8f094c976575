"""Roles that create Pods are few and known: whoever creates a Pod chooses its service account, volumes and image.

CIS Kubernetes Benchmark 5.1.4 (minimize access to create pods; CIS Amazon EKS Benchmark 4.1.4): the ability to
create pods opens privilege escalation, "such as assigning privileged service accounts to these pods or mounting
hostPaths with access to sensitive data"; "where possible, remove create access to pod objects". The benchmark
assesses it by hand and warns not to remove it from components that need it for their operation (controllers, job
launchers such as Airflow's KubernetesExecutor), so the finding is advisory: it asks a person to confirm each grant.
Read at Tenable's audit of the CIS benchmarks (tenable.com/audits), as rbac_objects.py says.
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ...rbac_objects import ROLE_TYPES, cis, object_name, rules, values

CREATE = ("create", "*")


def check(props, config, args):
    role = object_name(props, args.name)
    for index, rule in rules(props):
        groups = values(rule, "apiGroups")
        if groups and "" not in groups and "*" not in groups:
            continue  # Pods are in the core group
        if "pods" in values(rule, "resources") or "*" in values(rule, "resources"):
            verbs = [v for v in values(rule, "verbs") if v in CREATE]
            if verbs:
                yield f"{role} rules[{index}] can {', '.join(verbs)} pods"


RULE = ResourceRule(
    description="Roles should not create Pods unless the workload launches Pods by design.",
    severity="medium",
    level="advisory",
    references={
        "baseline": cis("5.1.4", "4.1.4"),
        "hipaa": HIPAA.format("164.308(a)(4)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Drop create on pods; let a controller (a Job, a Deployment) create them under its own account.",
    url="https://kubernetes.io/docs/concepts/security/rbac-good-practices/",
    types=ROLE_TYPES,
    check=check,
)
