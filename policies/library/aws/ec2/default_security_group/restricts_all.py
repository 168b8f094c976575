"""The VPC's default security group allows no traffic, so nothing lands in it by accident open."""

from ....props import items
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    for direction in ("ingress", "egress"):
        if items(props.get(direction)):
            yield f"the default security group declares {direction} rules; it should allow no traffic"


RULE = ResourceRule(
    description="The default security group of a VPC must not allow inbound or outbound traffic.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub EC2.2 (CIS AWS Foundations 5.4)",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Declare aws.ec2.DefaultSecurityGroup with no ingress and no egress; use dedicated groups.",
    url=SECURITY_HUB.format("ec2"),
    types=("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup",),
    check=check,
)
