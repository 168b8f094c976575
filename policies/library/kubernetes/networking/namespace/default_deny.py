"""Every workload namespace has a default-deny ingress NetworkPolicy, so pods are reachable only as allowed.

Without one, any pod in the cluster reaches any other (Kubernetes docs, "Network Policies: default
deny all ingress traffic"; CIS Kubernetes Benchmark 5.3.2). Namespaces of node agents and platform
services are exempt by config, each with its reason.

A policy counts only where the cluster in the same stack enforces NetworkPolicy, read from the engine's
properties: on EKS the vpc-cni add-on's configurationValues set enableNetworkPolicy "true"
(https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy-configure.html); on ACK the cluster's
Terway add-on (terway-eniip, terway-eni) with NetworkPolicy "true"; Flannel does not enforce it
(https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/use-network-policies).
A stack that declares no cluster (policies for a cluster made elsewhere) is judged on its policies alone.
"""

import json

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
    selects_all = not (
        (spec.get("podSelector") or {}).get("matchLabels") or (spec.get("podSelector") or {}).get("matchExpressions")
    )
    return selects_all and "Ingress" in as_list(spec.get("policyTypes")) and not items(spec.get("ingress"))


EKS_CLUSTER, EKS_ADDON = "aws:eks/cluster:Cluster", "aws:eks/addon:Addon"
ACK_CLUSTER = "alicloud:cs/managedKubernetes:ManagedKubernetes"
TERWAY = ("terway-eniip", "terway-eni")


def _config(value) -> dict:
    if isinstance(value, str):
        try:
            value = json.loads(value or "{}")
        except ValueError:
            return {}
    return dict(value) if hasattr(value, "items") else {}


def unenforced(resources) -> list[str]:
    """The clusters in the stack that would not enforce a NetworkPolicy, with why."""
    missing = []
    vpc_cni = [a for a in of_type(resources, EKS_ADDON) if a.props.get("addonName") == "vpc-cni"]
    if of_type(resources, EKS_CLUSTER) and not any(
        str(_config(a.props.get("configurationValues")).get("enableNetworkPolicy")).lower() == "true" for a in vpc_cni
    ):
        missing.append('the EKS cluster\'s vpc-cni add-on does not set enableNetworkPolicy "true"')
    for cluster in of_type(resources, ACK_CLUSTER):
        addons = items(cluster.props.get("addons"))
        if not any(
            a.get("name") in TERWAY and str(_config(a.get("config")).get("NetworkPolicy")).lower() == "true"
            for a in addons
        ):
            missing.append(
                f'ACK cluster {cluster.name} has no Terway add-on with NetworkPolicy "true" '
                "(Flannel does not enforce NetworkPolicy)"
            )
    return missing


def check(resources, config):
    denied = {
        (p.props.get("metadata") or {}).get("namespace") or "default"
        for p in of_type(resources, NETWORK_POLICY)
        if denies_all_ingress(p)
    }
    not_enforced = unenforced(resources)
    for namespace in of_type(resources, NAMESPACE):
        name = (namespace.props.get("metadata") or {}).get("name") or namespace.name
        if name in config["exemptNamespaces"]:
            continue
        if name not in denied:
            yield f"namespace {name} has no default-deny ingress NetworkPolicy", namespace.urn
        elif not_enforced:
            yield (
                (f"namespace {name} has a default-deny NetworkPolicy that is not enforced: " + "; ".join(not_enforced)),
                namespace.urn,
            )


RULE = StackRule(
    description="Workload namespaces must have a default-deny ingress NetworkPolicy.",
    severity="medium",
    references={
        "baseline": "CIS Kubernetes Benchmark 5.3.2",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.2 访问控制"),
    },
    remediation="Add a NetworkPolicy with podSelector: {} and policyTypes: [Ingress] and no ingress rules, then "
    "allow what the namespace needs (pods of the same namespace for multi-node jobs); on EKS set the "
    'vpc-cni add-on\'s configurationValues enableNetworkPolicy "true", on ACK create the cluster with '
    'Terway (terway-eniip, NetworkPolicy "true").',
    url="https://kubernetes.io/docs/concepts/services-networking/network-policies/#default-deny-all-ingress-traffic",
    config={
        "exemptNamespaces": {
            "type": "array",
            "items": {"type": "string"},
            "default": sorted(EXEMPT),
            "description": "Namespaces without the requirement: "
            + "; ".join(f"{k}: {v}" for k, v in sorted(EXEMPT.items())),
        }
    },
    types=(NAMESPACE, NETWORK_POLICY, EKS_CLUSTER, EKS_ADDON, ACK_CLUSTER),
    check=check,
)
