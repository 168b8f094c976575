"""Every workload namespace has a default-deny ingress NetworkPolicy, so pods are reachable only as allowed.

Without one, any pod in the cluster reaches any other (Kubernetes docs, "Network Policies: default
deny all ingress traffic"; CIS Kubernetes Benchmark 5.3.2). Namespaces of node agents and platform
services are exempt by config, each with its reason.
"""

from ....props import as_list, items, of_type
from ....refs import GDPR, HIPAA, MLPS
from ....rule import StackRule

NAMESPACE = "kubernetes:core/v1:Namespace"
NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
EXEMPT = {
    "kube-system": "control-plane add-ons and node agents",
    "kube-public": "public cluster information, no workloads",
    "kube-node-lease": "node heartbeats, no workloads",
    "gpu-operator": "NVIDIA GPU Operator node agents on the host network",
    "monitoring": "Prometheus scrapes every namespace",
    "gpu-acceptance": "platform acceptance checks (node-local GPU checks and the fabric test between nodes)",
}


def denies_all_ingress(policy) -> bool:
    spec = policy.props.get("spec") or {}
    selects_all = not ((spec.get("podSelector") or {}).get("matchLabels") or
                       (spec.get("podSelector") or {}).get("matchExpressions"))
    return selects_all and "Ingress" in as_list(spec.get("policyTypes")) and not items(spec.get("ingress"))


def check(resources, config):
    denied = {(p.props.get("metadata") or {}).get("namespace") or "default"
              for p in of_type(resources, NETWORK_POLICY) if denies_all_ingress(p)}
    for namespace in of_type(resources, NAMESPACE):
        name = (namespace.props.get("metadata") or {}).get("name") or namespace.name
        if name not in config["exemptNamespaces"] and name not in denied:
            yield f"namespace {name} has no default-deny ingress NetworkPolicy", namespace.urn


RULE = StackRule(
    description="Workload namespaces must have a default-deny ingress NetworkPolicy.",
    severity="medium",
    references={"baseline": "CIS Kubernetes Benchmark 5.3.2", "hipaa": HIPAA.format("164.312(e)(1)"),
                "gdpr": GDPR.format("Art. 32(1)(b)"), "mlps": MLPS.format("8.1.3.2 访问控制")},
    remediation="Add a NetworkPolicy with podSelector: {} and policyTypes: [Ingress] and no ingress rules, then "
                "allow what the namespace needs (pods of the same namespace for multi-node jobs).",
    url="https://kubernetes.io/docs/concepts/services-networking/network-policies/#default-deny-all-ingress-traffic",
    config={"exemptNamespaces": {"type": "array", "items": {"type": "string"}, "default": sorted(EXEMPT),
                                 "description": "Namespaces without the requirement: "
                                                + "; ".join(f"{k}: {v}" for k, v in sorted(EXEMPT.items()))}},
    check=check,
)
