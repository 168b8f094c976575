"""HTTP and WebSocket API stages write access logs (Security Hub APIGateway.9, severity Medium)."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if not (props.get("accessLogSettings") or {}).get("destinationArn"):
        yield "accessLogSettings.destinationArn is unset: requests to the stage are not logged"


RULE = ResourceRule(
    description="API Gateway V2 stages must have access logging configured.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub APIGateway.9",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation="Set accessLogSettings: {destinationArn: <log group ARN>, format: <JSON with $context.requestId, "
    "$context.identity.sourceIp, $context.status>}.",
    url=SECURITY_HUB.format("apigateway"),
    types=("aws:apigatewayv2/stage:Stage",),
    check=check,
)
