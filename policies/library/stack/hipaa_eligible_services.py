"""Only HIPAA-eligible AWS services in a stack that handles PHI.

Eligible services: AWS HIPAA Eligible Services Reference
(https://aws.amazon.com/compliance/hipaa-eligible-services-reference/). IAM and Budgets are not on it
but hold no PHI (identities and spend limits), so they are accepted as configuration-only.
"""

from ..refs import HIPAA
from ..rule import StackRule

# pulumi-aws module -> service on the reference list (EC2 covers VPC and EBS; "Amazon EC2 Auto Scaling" is listed).
ELIGIBLE = ("ec2", "autoscaling", "ebs", "eks", "ecr", "s3", "fsx", "efs", "kms", "cloudtrail", "cloudwatch", "guardduty",
            "lb", "alb", "elasticloadbalancingv2", "secretsmanager", "sns", "sqs", "ssm", "backup", "rds",
            "dynamodb", "sagemaker", "batch", "route53", "acm", "securityhub", "config", "cloudformation")
CONFIGURATION_ONLY = ("iam", "budgets", "organizations")


def check(resources, config):
    allowed = set(ELIGIBLE) | set(CONFIGURATION_ONLY) | set(config["extraServices"])
    for resource in resources:
        package, _, rest = resource.resource_type.partition(":")
        if package != "aws":
            continue
        module = rest.split("/")[0]
        if module not in allowed:
            yield f"{resource.resource_type} ({module}) is not on the HIPAA-eligible list", resource.urn


RULE = StackRule(
    description="AWS resources in a HIPAA stack must come from HIPAA-eligible services.",
    severity="high",
    references={"hipaa": HIPAA.format("164.308(b)(1), 164.314(a)")},
    remediation="Replace the service, or add it to extraServices after checking the AWS reference and your BAA.",
    url="https://aws.amazon.com/compliance/hipaa-eligible-services-reference/",
    config={"extraServices": {"type": "array", "items": {"type": "string"}, "default": [],
                              "description": "pulumi-aws modules to accept in addition to the list."}},
    check=check,
)
