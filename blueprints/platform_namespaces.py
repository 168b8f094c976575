"""Namespaces the platform itself uses (Kubernetes' own and those of the charts the platform installs), so no team or
serving namespace may take one. The components name each where they install it; the spec, which may not import them,
checks against this list, and tests/test_platform_namespaces.py holds it to what a shipped plan declares."""

PLATFORM_NAMESPACES = frozenset(
    {
        "default",
        "kube-system",
        "kube-public",
        "kube-node-lease",
        "gpu-operator",
        "gpu-acceptance",
        "kueue-system",
        "jobset-system",
        "monitoring",
        "keda",
        "lws-system",
        "kuberay-system",  # KubeRay's operator (components/kubernetes/platform.py AI_OPERATOR_NAMESPACE)
        "envoy-gateway-system",  # Envoy Gateway and Envoy AI Gateway (components/kubernetes/inference_gateway.py)
        "envoy-ai-gateway-system",
    }
)
