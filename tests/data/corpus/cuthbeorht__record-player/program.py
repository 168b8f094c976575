"""Restated from cuthbeorht/record-player app/infra/__main__.py (see annotations.yaml); the Lambda archive is a
placeholder path and the deployment trigger a fixed string."""

import json

import pulumi
import pulumi_aws as aws


def trust(service):
    statement = {"Sid": "", "Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def allow(actions, resource):
    return json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": resource}]}
    )


log_group = aws.cloudwatch.LogGroup("health_api_gateway_log_group", name="health_api")
cloudwatch_role = aws.iam.Role("cloudwatchRole", assume_role_policy=trust("apigateway.amazonaws.com"))
lambda_role = aws.iam.Role("iamHealthLambda", assume_role_policy=trust("lambda.amazonaws.com"))
log_actions = ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:DescribeLogGroups", "logs:DescribeLogStreams"]
aws.iam.RolePolicy(
    "cloudwatchRolePolicy",
    role=cloudwatch_role.id,
    policy=allow([*log_actions, "logs:PutLogEvents", "logs:GetLogEvents", "logs:FilterLogEvents"], "*"),
)
aws.apigateway.Account("health_api_gateway_account", cloudwatch_role_arn=cloudwatch_role.arn)
logging = aws.iam.Policy(
    "health_api_gateway_lambda_loggin_policy",
    path="/",
    description="IAM policy for logging from a lambda",
    policy=allow(["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"], "arn:aws:logs:*:*:*"),
)
attachment = aws.iam.RolePolicyAttachment("health_api_gateway_logging", role=lambda_role.name, policy_arn=logging.arn)
function = aws.lambda_.Function(
    "healthLambda",
    code=pulumi.FileArchive("lambda.zip"),
    role=lambda_role.arn,
    handler="app.lambda.handler",
    runtime="python3.8",
    environment={"variables": {"foo": "bar"}},
    opts=pulumi.ResourceOptions(depends_on=[attachment, log_group]),
)
api = aws.apigateway.RestApi("health_apigateway")
resource = aws.apigateway.Resource(
    "health_api_gateway_resource", parent_id=api.root_resource_id, rest_api=api.id, path_part="{proxy+}"
)
method = aws.apigateway.Method(
    "health_api_gateway_method", authorization="NONE", http_method="ANY", resource_id=resource.id, rest_api=api.id
)
aws.lambda_.Permission(
    "allow_health_api_gateway",
    action="lambda:InvokeFunction",
    function=function.name,
    principal="apigateway.amazonaws.com",
    source_arn=api.execution_arn.apply(lambda arn: f"{arn}/*/*/*"),
)
integration = aws.apigateway.Integration(
    "health_api_gateway_integration",
    rest_api=api.id,
    resource_id=resource.id,
    http_method=method.http_method,
    type="AWS_PROXY",
    integration_http_method="POST",
    uri=function.invoke_arn,
)
deployment = aws.apigateway.Deployment(
    "health_deployment",
    rest_api=api.id,
    triggers={"date": "2024-01-01 00:00:00"},
    opts=pulumi.ResourceOptions(depends_on=[method, integration]),
)
stage = aws.apigateway.Stage(
    "health_api_gateway_stage", deployment=deployment.id, rest_api=api.id, stage_name="test", xray_tracing_enabled=True
)
aws.apigateway.MethodSettings(
    "health_api_gatewqay_method_sttings_all",
    rest_api=api.id,
    stage_name=stage.stage_name,
    method_path="*/*",
    settings={"metrics_enabled": True, "logging_level": "INFO"},
)
