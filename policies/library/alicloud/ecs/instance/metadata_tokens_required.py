"""ECS instances answer metadata requests only in security-hardened mode (tokens), like IMDSv2 on AWS."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("httpEndpoint") == "disabled":
        return
    if props.get("httpTokens") != "required":
        yield "httpTokens is not 'required': normal mode answers metadata requests without a token"


RULE = ResourceRule(
    description="ECS instances must access instance metadata in security-hardened mode.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud ECS: instance metadata security-hardened mode",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set httpTokens: required.",
    url="https://www.alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata",
    types=("alicloud:ecs/instance:Instance",),
    check=check,
)
