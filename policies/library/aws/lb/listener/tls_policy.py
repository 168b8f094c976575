"""Load balancer listeners encrypt in transit with a TLS 1.2+ policy; plain HTTP only redirects to HTTPS."""

from ....props import items
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def redirects_to_https(props) -> bool:
    actions = items(props.get("defaultActions"))
    return bool(actions) and all(
        a.get("type") == "redirect" and (a.get("redirect") or {}).get("protocol") == "HTTPS" for a in actions
    )


def protocol_of(props):
    """The listener's protocol; an Application Load Balancer listener that names none speaks HTTP (pulumi-aws
    lb.Listener `protocol`: "For Application Load Balancers, valid values are HTTP and HTTPS, with a default of
    HTTP"). Gateway Load Balancer listeners take neither port nor protocol, so a listener without a port is left."""
    protocol = props.get("protocol")
    if protocol is None and props.get("port") is not None and not props.get("certificateArn"):
        return "HTTP"
    return protocol


def check(props, config, args):
    protocol = protocol_of(props)
    if protocol in ("HTTPS", "TLS"):
        policy = props.get("sslPolicy")
        if policy and policy not in config["allowedPolicies"]:
            yield f"sslPolicy {policy} allows protocols or ciphers older than TLS 1.2"
    elif protocol == "HTTP" and not redirects_to_https(props):
        yield "an HTTP listener that does not redirect to HTTPS sends traffic in clear text"
    elif protocol in ("TCP", "UDP", "TCP_UDP") and config["flagPlainTcp"]:
        yield f"a {protocol} listener passes traffic unencrypted unless the targets terminate TLS"


# ELB security policies that allow only TLS 1.2 and 1.3 (Elastic Load Balancing user guide,
# "Security policies for your Application Load Balancer").
TLS12_POLICIES = [
    "ELBSecurityPolicy-TLS13-1-2-2021-06",
    "ELBSecurityPolicy-TLS13-1-2-Res-2021-06",
    "ELBSecurityPolicy-TLS13-1-2-Ext1-2021-06",
    "ELBSecurityPolicy-TLS13-1-2-Ext2-2021-06",
    "ELBSecurityPolicy-TLS13-1-3-2021-06",
    "ELBSecurityPolicy-TLS13-1-2-FIPS-2023-04",
    "ELBSecurityPolicy-TLS13-1-3-FIPS-2023-04",
    "ELBSecurityPolicy-TLS-1-2-2017-01",
    "ELBSecurityPolicy-TLS-1-2-Ext-2018-06",
    "ELBSecurityPolicy-FS-1-2-2019-08",
    "ELBSecurityPolicy-FS-1-2-Res-2019-08",
    "ELBSecurityPolicy-FS-1-2-Res-2020-10",
]

RULE = ResourceRule(
    description="Load balancer listeners must use TLS 1.2 or newer, and HTTP listeners must redirect to HTTPS.",
    severity="high",
    references={
        "baseline": "AWS Security Hub ELB.1; Checkov CKV_AWS_103",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation="Use protocol HTTPS with sslPolicy ELBSecurityPolicy-TLS13-1-2-2021-06; make port 80 a redirect.",
    url="https://docs.aws.amazon.com/elasticloadbalancing/latest/application/describe-ssl-policies.html",
    config={
        "allowedPolicies": {
            "type": "array",
            "items": {"type": "string"},
            "default": TLS12_POLICIES,
            "description": "ELB security policies that allow only TLS 1.2 and newer.",
        },
        "flagPlainTcp": {
            "type": "boolean",
            "default": False,
            "description": "Also flag TCP/UDP listeners (the targets may terminate TLS).",
        },
    },
    types=("aws:lb/listener:Listener", "aws:alb/listener:Listener"),
    check=check,
)
