"""ECS instances get no public IP; outbound traffic goes through NAT."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    bandwidth = props.get("internetMaxBandwidthOut")
    if bandwidth is not None and int(bandwidth) > 0:
        yield f"internetMaxBandwidthOut is {int(bandwidth)}: the instance is given a public IP address"


RULE = ResourceRule(
    description="ECS instances must not be given public IP addresses.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud ECS: public IP addresses (assigned when internetMaxBandwidthOut > 0)",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set internetMaxBandwidthOut: 0; reach the internet through a NAT gateway.",
    url="https://www.alibabacloud.com/help/en/ecs/user-guide/public-ip-addresses",
    types=("alicloud:ecs/instance:Instance",),
    check=check,
)
