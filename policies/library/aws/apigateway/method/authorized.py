"""REST API methods name who may call them: authorization NONE lets anyone on the internet invoke the backend.

No Security Hub control covers REST methods (APIGateway.8 judges only HTTP/WebSocket routes,
AWS::ApiGatewayV2::Route); Checkov's CKV_AWS_59 judges the same input. An API key does not count: AWS's API
Gateway developer guide ("Usage plans and API keys for REST APIs", best practices) says not to use API keys for
authentication or authorization, and to use IAM, a Lambda authorizer or a Cognito user pool instead. OPTIONS
methods answer CORS preflight requests, which browsers send without credentials, and are left alone. A method of a
PRIVATE REST API (reachable only through VPC endpoints its resource policy names) is left alone too.
"""

from ....props import attached, items, of_type
from ....refs import GDPR, HIPAA, MLPS
from ....rule import StackRule

METHOD = "aws:apigateway/method:Method"
REST_API = "aws:apigateway/restApi:RestApi"


def private(api) -> bool:
    types = items((api.props.get("endpointConfiguration") or {}).get("types"))
    return list(types) == ["PRIVATE"]


def check(resources, config):
    methods = of_type(resources, METHOD)
    apis = [api for api in of_type(resources, REST_API) if private(api)]
    behind_private = {m.urn for api in apis for m in attached(api, methods, "restApi")}
    for method in methods:
        props = method.props
        verb = str(props.get("httpMethod") or "")
        if props.get("authorization") != "NONE" or verb == "OPTIONS" or method.urn in behind_private:
            continue
        key = " (an API key identifies callers, it does not authorize them)" if props.get("apiKeyRequired") else ""
        yield (f"method {method.name} ({verb}) has authorization NONE: anyone can invoke its backend{key}", method.urn)


RULE = StackRule(
    description="API Gateway REST API methods must require authorization (IAM, a Lambda authorizer or Cognito).",
    severity="medium",
    references={
        "baseline": "AWS API Gateway developer guide: IAM, a Lambda authorizer or Cognito controls access "
        "(Checkov CKV_AWS_59)",
        "hipaa": HIPAA.format("164.312(d)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set authorization to AWS_IAM, CUSTOM (with authorizerId) or COGNITO_USER_POOLS; for an API "
    "meant only for a VPC, make the REST API PRIVATE.",
    url="https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-api-usage-plans.html",
    types=(METHOD, REST_API),
    check=check,
)
