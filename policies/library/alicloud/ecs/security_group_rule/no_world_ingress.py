"""Alibaba Cloud security-group rules: nothing open to the internet but ports the stack allows."""

from ....props import ADMIN_PORTS, WORLD, alicloud_ingress
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    allowed = set(config["allowedPorts"])
    for low, high, protocol, cidrs in alicloud_ingress(props):
        if not any(c in WORLD for c in cidrs):
            continue
        ports = range(0, 65536) if protocol == "all" else range(low, high + 1)
        if not set(ports) <= allowed:
            yield f"{protocol} ports {low}-{high} open to the internet"
        for port, what in ADMIN_PORTS.items():
            if int(port) in ports:
                yield f"{what} (port {port}) is open to the internet"


RULE = ResourceRule(
    description="Security-group rules must not accept ingress from 0.0.0.0/0, and never on administration ports.",
    severity="critical",
    references={
        "baseline": "Alibaba Cloud ECS: security group best practices",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.2 访问控制"),
    },
    remediation="Restrict cidrIp to known networks; list deliberate public ports in allowedPorts (never 22/3389/6443).",
    url="https://www.alibabacloud.com/help/en/ecs/user-guide/best-practices-for-security-groups",
    config={
        "allowedPorts": {
            "type": "array",
            "items": {"type": "integer"},
            "default": [],
            "description": "Ports that may be open to the internet (443 for a public load balancer).",
        }
    },
    types=("alicloud:ecs/securityGroupRule:SecurityGroupRule",),
    check=check,
)
