"""Application Load Balancer (ALB) listeners serve HTTP only to redirect it to HTTPS.

pulumi-alicloud 4.0.0: ``alb.Listener.listenerProtocol`` is HTTP, HTTPS or QUIC, and its ``defaultActions`` can
only forward (type ForwardGroup); a redirect to HTTPS is an ``alb.Rule`` on the listener (``listenerId``) whose
``ruleActions`` hold a ``Redirect`` with ``redirectConfig.protocol`` HTTPS, as Alibaba Cloud documents the redirect
(https://www.alibabacloud.com/help/en/slb/application-load-balancer/use-cases/redirect-http-requests-to-an-https-listener,
read 2026-11-27). So the rule reads each HTTP listener with the rules attached to it.
"""

from ....props import attached, items, of_type
from ....refs import GDPR, HIPAA, MLPS
from ....rule import StackRule

LISTENER = "alicloud:alb/listener:Listener"
RULE_TYPE = "alicloud:alb/rule:Rule"


def redirects_to_https(rule) -> bool:
    return any(
        action.get("type") == "Redirect" and (action.get("redirectConfig") or {}).get("protocol") == "HTTPS"
        for action in items(rule.props.get("ruleActions"))
    )


def check(resources, config):
    rules = of_type(resources, RULE_TYPE)
    for listener in of_type(resources, LISTENER):
        if str(listener.props.get("listenerProtocol") or "").upper() != "HTTP":
            continue
        if not any(redirects_to_https(r) for r in attached(listener, rules, "listenerId")):
            yield (
                f"HTTP listener {listener.name} has no alb.Rule redirecting to HTTPS: it serves clear text",
                listener.urn,
            )


RULE = StackRule(
    description="ALB HTTP listeners must redirect to HTTPS (an alb.Rule with a Redirect action to HTTPS).",
    severity="high",
    references={
        "baseline": "Alibaba Cloud ALB: redirect HTTP requests to an HTTPS listener",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation="Serve on an HTTPS listener (listenerProtocol: HTTPS, certificates) and give the HTTP listener an "
    "alb.Rule whose ruleActions are [{type: Redirect, order: 1, redirectConfig: {protocol: HTTPS, port: '443'}}].",
    url="https://www.alibabacloud.com/help/en/slb/application-load-balancer/use-cases/redirect-http-requests-to-an-https-listener",
    types=(LISTENER, RULE_TYPE),
    check=check,
)
