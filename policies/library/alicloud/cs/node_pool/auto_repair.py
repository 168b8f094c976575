"""Node pools repair unhealthy nodes automatically (a failed GPU node otherwise idles at full price)."""

from ....rule import ResourceRule


def check(props, config, args):
    management = props.get("management") or {}
    if management.get("enable") is not True or management.get("autoRepair") is not True:
        yield "management.enable and management.autoRepair are not both true: failed nodes stay failed"


RULE = ResourceRule(
    description="ACK node pools must enable managed auto-repair.",
    severity="medium",
    references={"baseline": "Alibaba Cloud ACK: managed node pools (auto repair)"},
    remediation="Set management: {enable: true, autoRepair: true}.",
    url="https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/overview-of-managed-node-pools",
    types=("alicloud:cs/nodePool:NodePool",),
    check=check,
)
