"""Application load balancers keep access logs (who called which endpoint, for incident response).

ELB.5 covers Application and Classic Load Balancers; network and gateway load balancers are out of its
scope. pulumi-aws 7.51.1: loadBalancerType defaults to application, accessLogs.enabled to false "even
when bucket is specified".
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if args.resource_type.startswith("aws:elb/") or (props.get("loadBalancerType") or "application") == "application":
        logs = props.get("accessLogs") or {}
        if logs.get("enabled") is not True or not logs.get("bucket"):
            yield "accessLogs is not enabled with a bucket: requests to the load balancer are not recorded"


RULE = ResourceRule(
    description="Application and Classic Load Balancers must write access logs.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub ELB.5",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation="Set accessLogs: {bucket: <log bucket>, enabled: true} (the bucket's policy must allow the "
    "region's ELB log delivery).",
    url=SECURITY_HUB.format("elb"),
    types=(
        "aws:lb/loadBalancer:LoadBalancer",
        "aws:alb/loadBalancer:LoadBalancer",
        "aws:elb/loadBalancer:LoadBalancer",
    ),
    check=check,
)
