"""Reading Kubernetes RBAC objects: who a binding names, what a role's rules allow.

Control numbers: CIS Kubernetes Benchmark section 5.1 "RBAC and Service Accounts" (v1.23 and later: 5.1.1
cluster-admin only where required, 5.1.2 minimize access to secrets, 5.1.3 minimize wildcard use, 5.1.5
default service accounts not actively used, 5.1.6 service account tokens only where necessary, 5.1.7 avoid
system:masters, 5.1.8 limit bind, impersonate and escalate); CIS Amazon EKS Benchmark section 4.1 numbers
the same controls 4.1.1 to 4.1.8 (v1.1.0 and later). Read at Tenable's audit of CIS Kubernetes v1.23
(tenable.com/audits, CIS_Kubernetes_v1.23_v1.0.1_Level_1_Master) and Lacework's CIS Amazon EKS 1.1.0 catalogue
(docs.lacework.net/catalog/policies/lacework-global-335).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from ..props import items

GROUP = "kubernetes:rbac.authorization.k8s.io/v1"
ROLE_TYPES = (f"{GROUP}:Role", f"{GROUP}:ClusterRole")
BINDING_TYPES = (f"{GROUP}:RoleBinding", f"{GROUP}:ClusterRoleBinding")


def cis(kubernetes: str, eks: str) -> str:
    return f"CIS Kubernetes Benchmark {kubernetes}; CIS Amazon EKS Benchmark {eks}"


def object_name(props: Mapping[str, Any], fallback: str) -> str:
    metadata = props.get("metadata") or {}
    namespace = metadata.get("namespace")
    name = metadata.get("name") or fallback
    return f"{namespace}/{name}" if namespace else name


def subjects(props: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield from (s for s in items(props.get("subjects")) if isinstance(s, Mapping))


def subject_name(subject: Mapping[str, Any], binding_namespace: str | None) -> str:
    namespace = subject.get("namespace") or binding_namespace or "default"
    if subject.get("kind") == "ServiceAccount":
        return f"ServiceAccount {namespace}/{subject.get('name')}"
    return f"{subject.get('kind')} {subject.get('name')}"


def rules(props: Mapping[str, Any]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for index, rule in enumerate(items(props.get("rules"))):
        if isinstance(rule, Mapping):
            yield index, rule


def values(rule: Mapping[str, Any], field: str) -> list[str]:
    return [v for v in items(rule.get(field)) if isinstance(v, str)]
