"""GPU nodes get no public IP address: they reach the internet through NAT."""

from ....props import items, truthy
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    for nic in items(props.get("networkInterfaces")):
        if truthy(nic.get("associatePublicIpAddress")):
            card = nic.get("networkCardIndex", 0)
            yield f"network interface {nic.get('deviceIndex', 0)} on card {card} gets a public IP"


RULE = ResourceRule(
    description="Launch templates must not give instances public IP addresses.",
    severity="high",
    references={
        "baseline": "AWS Security Hub EC2.25",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set associatePublicIpAddress: 'false' on every network interface; use private subnets and NAT.",
    url=SECURITY_HUB.format("ec2"),
    types=("aws:ec2/launchTemplate:LaunchTemplate",),
    check=check,
)
