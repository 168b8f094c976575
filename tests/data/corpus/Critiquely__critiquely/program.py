"""Restated from Critiquely/critiquely infrastructure/ (see annotations.yaml); the trust policy that
aws.iam.get_policy_document builds there is written out as JSON."""

import json

import pulumi_aws as aws

aws.ecr.Repository(
    "cli", name="cli", image_tag_mutability="MUTABLE", image_scanning_configuration={"scan_on_push": True}
)
audience = "sts.amazonaws.com"
aws.iam.OpenIdConnectProvider(
    "github_oidc_provider",
    url="https://token.actions.githubusercontent.com",
    client_id_lists=[audience],
    thumbprint_lists=["6938fd4d98bab03faadb97b34396831e3780aea1"],
)
issuer = "token.actions.githubusercontent.com"
trust = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Federated": f"arn:aws:iam::443170140241:oidc-provider/{issuer}"},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {
                "StringLike": {f"{issuer}:sub": "repo:Critiquely/*"},
                "StringEquals": {f"{issuer}:aud": audience},
            },
        }
    ],
}
aws.iam.Role(
    "github_oidc_role",
    name="github_oidc",
    assume_role_policy=json.dumps(trust),
    managed_policy_arns=["arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryFullAccess"],
)
