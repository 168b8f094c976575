"""EKS control-plane audit and authenticator logs go to CloudWatch."""

from ....props import items
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    missing = [t for t in config["requiredLogTypes"] if t not in items(props.get("enabledClusterLogTypes"))]
    if missing:
        yield f"control-plane log types not enabled: {', '.join(missing)}"


RULE = ResourceRule(
    description="EKS clusters must send control-plane audit logs to CloudWatch.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub EKS.8",
        "hipaa": HIPAA.format("164.312(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation="Add the missing types to enabledClusterLogTypes.",
    url=SECURITY_HUB.format("eks"),
    config={
        "requiredLogTypes": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["api", "audit", "authenticator"],
            "description": "Control-plane log types that must be on.",
        }
    },
    types=("aws:eks/cluster:Cluster",),
    check=check,
)
