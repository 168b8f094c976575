"""No binding hands out cluster-admin or names the system:masters group (super-user over the whole cluster).

CIS Kubernetes Benchmark 5.1.1 (cluster-admin only where required) and 5.1.7 (avoid system:masters, a group
that bypasses RBAC altogether and cannot be revoked by removing a binding).
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ...rbac_objects import BINDING_TYPES, cis, object_name, subject_name, subjects


def check(props, config, args):
    binding = object_name(props, args.name)
    namespace = (props.get("metadata") or {}).get("namespace")
    role = (props.get("roleRef") or {}).get("name")
    if role in config["adminRoles"]:
        for subject in subjects(props):
            yield f"{binding} grants {role} to {subject_name(subject, namespace)}"
    for subject in subjects(props):
        if subject.get("kind") == "Group" and subject.get("name") == "system:masters":
            yield f"{binding} names the system:masters group"


RULE = ResourceRule(
    description="Bindings must not grant cluster-admin or name system:masters.",
    severity="critical",
    references={
        "baseline": cis("5.1.1, 5.1.7", "4.1.1, 4.1.7"),
        "hipaa": HIPAA.format("164.308(a)(4)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Bind a Role or ClusterRole with the verbs and resources the subject needs (admin, edit, view or "
    "your own) instead of cluster-admin; grant people access through named groups, never system:masters.",
    url="https://kubernetes.io/docs/concepts/security/rbac-good-practices/",
    config={
        "adminRoles": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["cluster-admin"],
            "description": "Role names that amount to super-user.",
        }
    },
    types=BINDING_TYPES,
    check=check,
)
