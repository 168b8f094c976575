"""Instances from launch configurations get no public IP address."""

from ....props import truthy
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if truthy(props.get("associatePublicIpAddress")):
        yield "associatePublicIpAddress is true: every instance it launches is reachable from the internet"


RULE = ResourceRule(
    description="Launch configurations must not give instances public IP addresses.",
    severity="high",
    references={
        "baseline": "AWS Security Hub AutoScaling.5",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set associatePublicIpAddress: false and launch into private subnets.",
    url=SECURITY_HUB.format("autoscaling"),
    types=("aws:ec2/launchConfiguration:LaunchConfiguration",),
    check=check,
)
