"""The EKS API server is private, or public only to listed networks."""

from ....props import WORLD, items
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    vpc = props.get("vpcConfig") or {}
    if vpc.get("endpointPublicAccess") is False:
        return
    cidrs = items(vpc.get("publicAccessCidrs")) or ["0.0.0.0/0"]  # EKS's default when public
    if any(c in WORLD for c in cidrs):
        yield "the API server endpoint is open to the whole internet"


RULE = ResourceRule(
    description="EKS API endpoints must be private or limited to known networks.",
    severity="high",
    references={
        "baseline": "AWS Security Hub EKS.1",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.2 访问控制"),
    },
    remediation="Set vpcConfig.endpointPublicAccess: false, or publicAccessCidrs to your networks.",
    url=SECURITY_HUB.format("eks"),
    types=("aws:eks/cluster:Cluster",),
    check=check,
)
