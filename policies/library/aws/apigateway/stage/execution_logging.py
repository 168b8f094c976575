"""Every REST and WebSocket API stage writes execution logs at ERROR or INFO (Security Hub APIGateway.1, Medium).

pulumi-aws 7.51.1 sets a REST stage's logging level on its own resource, aws:apigateway/methodSettings, for a
stage (stageName) and a method path; "*/*" covers every method. A stack rule therefore pairs each stage with method
settings for "*/*" whose stageName was computed from the stage (or names the same stage of the same API) and whose
settings.loggingLevel is ERROR or INFO. A WebSocket API's stage (aws:apigatewayv2/stage of an aws:apigatewayv2/api
with protocolType WEBSOCKET) carries defaultRouteSettings.loggingLevel itself; HTTP APIs have no execution logs
(the control does not judge them).
"""

from ....props import attached, of_type
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule

STAGE = "aws:apigateway/stage:Stage"
SETTINGS = "aws:apigateway/methodSettings:MethodSettings"
V2_API = "aws:apigatewayv2/api:Api"
V2_STAGE = "aws:apigatewayv2/stage:Stage"
LEVELS = ("ERROR", "INFO")


def _logs(settings) -> bool:
    return settings.props.get("methodPath") == "*/*" and (settings.props.get("settings") or {}).get("loggingLevel") in (
        LEVELS
    )


def _same_stage(stage, settings) -> bool:
    return bool(
        stage.props.get("stageName")
        and settings.props.get("stageName") == stage.props.get("stageName")
        and settings.props.get("restApi") == stage.props.get("restApi")
    )


def check(resources, config):
    logging = [s for s in of_type(resources, SETTINGS) if _logs(s)]
    for stage in of_type(resources, STAGE):
        if not attached(stage, logging, "stageName") and not any(_same_stage(stage, s) for s in logging):
            name = stage.props.get("stageName") or stage.name
            yield (f"REST API stage {name} has no method settings for */* with loggingLevel ERROR or INFO", stage.urn)
    websockets = [a for a in of_type(resources, V2_API) if a.props.get("protocolType") == "WEBSOCKET"]
    for stage in of_type(resources, V2_STAGE):
        level = (stage.props.get("defaultRouteSettings") or {}).get("loggingLevel")
        if any(a.urn in {d.urn for d in stage.property_dependencies.get("apiId", [])} for a in websockets) and (
            level not in LEVELS
        ):
            yield (
                f"WebSocket API stage {stage.props.get('name') or stage.name} has loggingLevel {level or 'unset'}",
                stage.urn,
            )


RULE = StackRule(
    description="API Gateway REST and WebSocket API stages must have execution logging enabled.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub APIGateway.1",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation='Add aws.apigateway.MethodSettings(rest_api=api.id, stage_name=stage.stage_name, method_path="*/*", '
    'settings={"logging_level": "ERROR"}) (the account needs an API Gateway CloudWatch role); for WebSocket stages '
    'set default_route_settings.logging_level to "ERROR" or "INFO".',
    url=SECURITY_HUB.format("apigateway"),
    types=(STAGE, SETTINGS, V2_API, V2_STAGE),
    check=check,
)
