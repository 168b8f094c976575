"""ECS services do not give their tasks public IP addresses (a task with one is reachable from the internet)."""

from ....props import truthy
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if truthy((props.get("networkConfiguration") or {}).get("assignPublicIp")):
        yield "networkConfiguration.assignPublicIp is true: every task gets a public address"


RULE = ResourceRule(
    description="ECS services must not assign public IP addresses to their tasks.",
    severity="high",
    references={
        "baseline": "AWS Security Hub ECS.2",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set networkConfiguration.assignPublicIp: false, run tasks in private subnets and reach the "
    "internet through a NAT gateway or VPC endpoints.",
    url=SECURITY_HUB.format("ecs"),
    types=("aws:ecs/service:Service",),
    check=check,
)
