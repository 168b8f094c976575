"""Restated from tonythetaylor/security-engineer-toolset iac/pulumi/kubernetes/main.py (see annotations.yaml)."""

import pulumi_kubernetes as k8s

k8s.networking.v1.NetworkPolicy(
    "secure-policy", metadata={"name": "deny-all"}, spec={"pod_selector": {}, "policy_types": ["Ingress", "Egress"]}
)
