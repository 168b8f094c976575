"""No ingress from the whole internet, except ports a stack opens on purpose (443 to a load balancer)."""

from ....props import AWS_INGRESS_TYPES, WORLD, aws_ingress
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    allowed = set(config["allowedPorts"])
    for low, high, protocol, cidrs in aws_ingress(args.resource_type, props):
        world = [c for c in cidrs if c in WORLD]
        if not world:
            continue  # self-referencing (EFA) and VPC-internal rules are fine
        ports = range(0, 65536) if protocol in ("-1", "all") else range(low, high + 1)
        if not set(ports) <= allowed:
            yield f"{protocol} ports {low}-{high} open to {', '.join(world)}"


RULE = ResourceRule(
    description="Security groups must not allow ingress from 0.0.0.0/0 or ::/0.",
    severity="critical",
    references={
        "baseline": "AWS Security Hub EC2.18",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.2 访问控制"),
    },
    remediation="Restrict cidrBlocks to known networks, or list the port in the rule's allowedPorts "
    "(for example 443 on a public load balancer).",
    url=SECURITY_HUB.format("ec2"),
    config={
        "allowedPorts": {
            "type": "array",
            "items": {"type": "integer"},
            "default": [],
            "description": "Ports that may be open to the internet (443 for a public load balancer).",
        }
    },
    types=AWS_INGRESS_TYPES,
    check=check,
)
