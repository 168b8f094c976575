"""Namespaces enforce a Pod Security Standard; only named system namespaces may run privileged pods."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule

LABEL = "pod-security.kubernetes.io/enforce"


def check(props, config, args):
    metadata = props.get("metadata") or {}
    name = metadata.get("name", args.name)
    level = (metadata.get("labels") or {}).get(LABEL)
    if level is None:
        yield f"namespace {name} has no {LABEL} label (pods run unchecked)"
    elif level == "privileged" and name not in config["privilegedNamespaces"]:
        yield f"namespace {name} allows privileged pods; only {', '.join(config['privilegedNamespaces'])} may"


RULE = ResourceRule(
    description="Namespaces must enforce a Pod Security Standard; privileged only where node agents run.",
    severity="high",
    references={
        "baseline": "Kubernetes Pod Security Standards (baseline/restricted) with Pod Security Admission",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Label the namespace pod-security.kubernetes.io/enforce: baseline (or restricted).",
    url="https://kubernetes.io/docs/concepts/security/pod-security-admission/",
    config={
        "privilegedNamespaces": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["gpu-operator", "kube-system", "monitoring"],
            "description": "Namespaces whose node agents need privileged pods.",
        }
    },
    types=("kubernetes:core/v1:Namespace",),
    check=check,
)
