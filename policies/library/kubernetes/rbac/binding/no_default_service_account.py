"""No binding grants rights to a namespace's default service account (every pod without its own account gets them).

CIS Kubernetes Benchmark 5.1.5 (default service accounts not actively used: no roles bound to them).
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ...rbac_objects import BINDING_TYPES, cis, object_name, subject_name, subjects


def check(props, config, args):
    binding = object_name(props, args.name)
    namespace = (props.get("metadata") or {}).get("namespace")
    role = (props.get("roleRef") or {}).get("name")
    for subject in subjects(props):
        if subject.get("kind") == "ServiceAccount" and subject.get("name") == "default":
            who = subject_name(subject, namespace)
            yield f"{binding} grants {role} to {who}, which every pod without its own account uses"
        if subject.get("kind") == "Group" and subject.get("name", "").startswith("system:serviceaccounts"):
            yield f"{binding} grants {role} to group {subject.get('name')}, which holds the default service accounts"


RULE = ResourceRule(
    description="Bindings must not grant rights to default service accounts.",
    severity="high",
    references={
        "baseline": cis("5.1.5", "4.1.5"),
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Create a ServiceAccount for the workload that needs the API, bind the role to it and set the "
    "pod's serviceAccountName.",
    url="https://kubernetes.io/docs/concepts/security/rbac-good-practices/",
    types=BINDING_TYPES,
    check=check,
)
