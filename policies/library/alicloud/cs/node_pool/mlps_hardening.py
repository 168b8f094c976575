"""ACK nodes run with MLPS hardening (等保加固) of the node OS."""

from ....refs import MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("socEnabled") is not True:
        yield "socEnabled is off: the node OS is not hardened to the MLPS 2.0 baseline"


RULE = ResourceRule(
    description="ACK node pools must enable MLPS security hardening of the node OS.",
    severity="medium",
    references={"mlps": MLPS.format("8.1.4.4 入侵防范, 8.1.4.1 身份鉴别")},
    remediation="Set socEnabled: true (Alibaba Cloud Linux 3 images).",
    url="https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/ack-reinforcement-based-on-classified-protection",
    types=("alicloud:cs/nodePool:NodePool",),
    check=check,
)
