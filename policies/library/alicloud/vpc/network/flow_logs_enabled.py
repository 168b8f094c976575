"""Every Alibaba Cloud VPC records its traffic in a flow log."""

from ....props import attached, of_type
from ....refs import HIPAA, MLPS
from ....rule import StackRule


def check(resources, config):
    flow_logs = of_type(resources, "alicloud:vpc/flowLog:FlowLog")
    for vpc in of_type(resources, "alicloud:vpc/network:Network"):
        if not attached(vpc, flow_logs, "resourceId"):
            yield f"VPC {vpc.name} has no flow log", vpc.urn


RULE = StackRule(
    name="alicloud-vpc-flow-logs",
    description="Every VPC must have a flow log.",
    severity="medium",
    references={"hipaa": HIPAA.format("164.312(b)"), "mlps": MLPS.format("8.1.3.5 安全审计"),
                "baseline": "Alibaba Cloud VPC: flow logs"},
    remediation="Add an alicloud.vpc.FlowLog with resourceType VPC and resourceId from the VPC.",
    url="https://www.alibabacloud.com/help/en/vpc/user-guide/flow-logs-overview",
    check=check,
)
