"""Restated from smpnet74/test pulumi/__main__.py (see annotations.yaml); the Lambda archive is a placeholder path."""

import json

import pulumi
import pulumi_aws as aws

statement = {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}}
role = aws.iam.Role("lambda-role", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [statement]}))
aws.iam.RolePolicyAttachment(
    "lambda-policy", policy_arn="arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole", role=role.name
)
aws.lambda_.Function(
    "civo-batch",
    code=pulumi.AssetArchive({".": pulumi.FileArchive("package.zip")}),
    handler="civo.lambda_handler",
    role=role.arn,
    runtime="python3.8",
    timeout=30,
)
