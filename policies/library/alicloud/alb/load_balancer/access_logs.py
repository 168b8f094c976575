"""Application Load Balancers (ALB) ship access logs to Simple Log Service.

pulumi-alicloud 4.0.0 offers two ways, both with ``logProject`` and ``logStore`` (the SLS project and logstore the
access log goes to): ``alb.LoadBalancer.accessLogConfig``, or an ``alb.LoadBalancerAccessLogConfigAttachment`` whose
``loadBalancerId`` is the instance (the API's EnableLoadBalancerAccessLog,
https://www.alibabacloud.com/help/en/slb/application-load-balancer/developer-reference/api-alb-2020-06-16-enableloadbalanceraccesslog,
read 2026-11-27). Without either the instance records no requests. The logstore's retention is
``alicloud-log-store-retention``'s concern (180 days in the mlps pack).
"""

from ....props import attached, of_type
from ....refs import GDPR, HIPAA, MLPS
from ....rule import StackRule

LOAD_BALANCER = "alicloud:alb/loadBalancer:LoadBalancer"
ATTACHMENT = "alicloud:alb/loadBalancerAccessLogConfigAttachment:LoadBalancerAccessLogConfigAttachment"


def ships_logs(config) -> bool:
    return bool(config.get("logProject") and config.get("logStore"))


def check(resources, config):
    attachments = of_type(resources, ATTACHMENT)
    for balancer in of_type(resources, LOAD_BALANCER):
        if ships_logs(balancer.props.get("accessLogConfig") or {}):
            continue
        if not any(ships_logs(a.props) for a in attached(balancer, attachments, "loadBalancerId")):
            yield (
                f"ALB {balancer.name} has no accessLogConfig (logProject, logStore) and no access-log attachment: "
                "requests to the load balancer are not recorded",
                balancer.urn,
            )


RULE = StackRule(
    description="Application Load Balancers must ship access logs to an SLS logstore.",
    severity="medium",
    references={
        "baseline": "Alibaba Cloud ALB: EnableLoadBalancerAccessLog (counterpart of AWS Security Hub ELB.5)",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.5 安全审计"),
    },
    remediation="Set accessLogConfig: {logProject: <SLS project>, logStore: <logstore kept 180 days or more>}, or "
    "declare an alb.LoadBalancerAccessLogConfigAttachment for the instance.",
    url="https://www.alibabacloud.com/help/en/slb/application-load-balancer/developer-reference/api-alb-2020-06-16-enableloadbalanceraccesslog",
    types=(LOAD_BALANCER, ATTACHMENT),
    check=check,
)
