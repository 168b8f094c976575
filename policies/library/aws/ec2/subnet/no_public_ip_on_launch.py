"""Subnets do not hand out public IPs to whatever is launched in them."""

from ....props import truthy
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if truthy(props.get("mapPublicIpOnLaunch")):
        yield "mapPublicIpOnLaunch is true: every instance launched here gets a public IP"


RULE = ResourceRule(
    description="Subnets must not assign public IP addresses on launch.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub EC2.15",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set mapPublicIpOnLaunch: false; give public addresses only to load balancers and NAT gateways.",
    url=SECURITY_HUB.format("ec2"),
    types=("aws:ec2/subnet:Subnet",),
    check=check,
)
