"""Every VPC records its traffic in a flow log."""

from ....props import without
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule


def check(resources, config):
    for vpc in without(resources, "aws:ec2/vpc:Vpc", "aws:ec2/flowLog:FlowLog", "vpcId"):
        yield f"VPC {vpc.name} has no flow log", vpc.urn


RULE = StackRule(
    description="Every VPC must have a flow log.",
    severity="medium",
    references={
        "hipaa": HIPAA.format("164.312(b)"),
        "mlps": MLPS.format("8.1.3.5 安全审计"),
        "baseline": "AWS Security Hub EC2.6",
    },
    remediation="Add an aws.ec2.FlowLog with vpcId from the VPC and trafficType ALL.",
    url=SECURITY_HUB.format("ec2"),
    types=("aws:ec2/vpc:Vpc", "aws:ec2/flowLog:FlowLog"),
    check=check,
)
