"""No ingress from the whole internet, except authorized ports (Security Hub EC2.18, severity High).

EC2.18's parameters: authorizedTcpPorts, Security Hub's default [80, 443] (a web server or load balancer), and
authorizedUdpPorts, no default. The rule's allowedPorts and allowedUdpPorts take the same defaults; a pack or stack
that wants fewer public ports sets them (allowedPorts: [] forbids all).
"""

from ....props import AWS_INGRESS_TYPES, WORLD, aws_ingress
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    tcp, udp = set(config["allowedPorts"]), set(config["allowedUdpPorts"])
    for low, high, protocol, cidrs in aws_ingress(args.resource_type, props):
        allowed = {"tcp": tcp, "6": tcp, "udp": udp, "17": udp}.get(protocol.lower())
        world = [c for c in cidrs if c in WORLD]
        if not world:
            continue  # self-referencing (EFA) and VPC-internal rules are fine
        # Only TCP and UDP have ports to authorize; for ICMP and the rest fromPort/toPort are types and codes.
        if allowed is None or not set(range(low, high + 1)) <= allowed:
            yield f"{protocol} ports {low}-{high} open to {', '.join(world)}"


RULE = ResourceRule(
    description="Security groups must not allow ingress from 0.0.0.0/0 or ::/0 except on authorized ports "
    "(TCP 80 and 443 by default).",
    severity="high",
    references={
        "baseline": "AWS Security Hub EC2.18",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.2 访问控制"),
    },
    remediation="Restrict cidrBlocks to known networks, or list the port in the rule's allowedPorts "
    "(TCP; 80 and 443 by default) or allowedUdpPorts.",
    url=SECURITY_HUB.format("ec2"),
    config={
        "allowedPorts": {
            "type": "array",
            "items": {"type": "integer"},
            "default": [80, 443],
            "description": "TCP ports that may be open to the internet (EC2.18's authorizedTcpPorts, default 80, 443).",
        },
        "allowedUdpPorts": {
            "type": "array",
            "items": {"type": "integer"},
            "default": [],
            "description": "UDP ports that may be open to the internet (EC2.18's authorizedUdpPorts, no default).",
        },
    },
    types=AWS_INGRESS_TYPES,
    check=check,
)
