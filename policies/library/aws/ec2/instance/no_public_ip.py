"""EC2 instances get no public IPv4 address; they reach the internet through NAT or a load balancer."""

from ....props import truthy
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if truthy(props.get("associatePublicIpAddress")):
        yield "associatePublicIpAddress is true: the instance is reachable from the internet"


RULE = ResourceRule(
    description="EC2 instances must not have a public IPv4 address.",
    severity="high",
    references={
        "baseline": "AWS Security Hub EC2.9",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set associatePublicIpAddress: false, use a private subnet; publish through a load balancer.",
    url=SECURITY_HUB.format("ec2"),
    types=("aws:ec2/instance:Instance",),
    check=check,
)
