"""Every Alibaba Cloud VPC records its traffic in a flow log."""

from ....props import without
from ....refs import HIPAA, MLPS
from ....rule import StackRule


def check(resources, config):
    for vpc in without(resources, "alicloud:vpc/network:Network", "alicloud:vpc/flowLog:FlowLog", "resourceId"):
        yield f"VPC {vpc.name} has no flow log", vpc.urn


RULE = StackRule(
    description="Every VPC must have a flow log.",
    severity="medium",
    references={
        "hipaa": HIPAA.format("164.312(b)"),
        "mlps": MLPS.format("8.1.3.5 安全审计"),
        "baseline": "Alibaba Cloud VPC: flow logs",
    },
    remediation="Add an alicloud.vpc.FlowLog with resourceType VPC and resourceId from the VPC.",
    url="https://www.alibabacloud.com/help/en/vpc/user-guide/flow-logs-overview",
    types=("alicloud:vpc/network:Network", "alicloud:vpc/flowLog:FlowLog"),
    check=check,
)
