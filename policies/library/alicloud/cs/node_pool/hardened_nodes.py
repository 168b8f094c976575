"""ACK GPU nodes: metadata tokens required, no public IPs."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if (props.get("instanceMetadataOptions") or {}).get("httpTokens") != "required":
        yield "instanceMetadataOptions.httpTokens is not 'required' (metadata reachable without a token)"
    if int(props.get("internetMaxBandwidthOut", 0) or 0) > 0:
        yield "internetMaxBandwidthOut > 0 gives every node a public IP; use the NAT gateway"


RULE = ResourceRule(
    description="ACK node pools must require metadata tokens and give nodes no public IPs.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud ECS: instance metadata security hardening mode",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set instanceMetadataOptions.httpTokens: required and leave internetMaxBandwidthOut at 0.",
    url="https://www.alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata",
    types=("alicloud:cs/nodePool:NodePool",),
    check=check,
)
