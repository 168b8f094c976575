"""Every VPC records its traffic in a flow log."""

from ....props import attached, of_type
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule


def check(resources, config):
    flow_logs = of_type(resources, "aws:ec2/flowLog:FlowLog")
    for vpc in of_type(resources, "aws:ec2/vpc:Vpc"):
        if not attached(vpc, flow_logs, "vpcId"):
            yield f"VPC {vpc.name} has no flow log", vpc.urn


RULE = StackRule(
    name="aws-vpc-flow-logs",
    description="Every VPC must have a flow log.",
    severity="medium",
    references={"hipaa": HIPAA.format("164.312(b)"), "mlps": MLPS.format("8.1.3.5 安全审计"),
                "baseline": "AWS Security Hub EC2.6"},
    remediation="Add an aws.ec2.FlowLog with vpcId from the VPC and trafficType ALL.",
    url=SECURITY_HUB.format("ec2"),
    check=check,
)
