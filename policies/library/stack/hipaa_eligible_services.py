"""Only HIPAA-eligible AWS services in a stack that handles PHI.

Eligible services: AWS HIPAA Eligible Services Reference
(https://aws.amazon.com/compliance/hipaa-eligible-services-reference/). Eligibility is about where PHI goes: AWS
says a HIPAA account may use any service, but must create, receive, maintain or transmit PHI only in eligible ones
(https://aws.amazon.com/compliance/hipaa-compliance/), and the Security Rule protects electronic PHI, not the
configuration around it (45 CFR 164.302 and 164.306(a); https://www.hhs.gov/hipaa/for-professionals/security/
laws-regulations/index.html). Both read 2026-11-24. So services that only hold account and billing configuration
are accepted: IAM (identities), Budgets (spend limits), Organizations, and Cost Explorer's cost allocation tag (it
activates a tag key for billing reports; the stack's key is `gpu-cluster`, never data). A tag key or value must
still hold no PHI, which is the user's to keep.
"""

from ..refs import HIPAA
from ..rule import StackRule

# pulumi-aws module -> service on the reference list (EC2 covers VPC and EBS; "Amazon EC2 Auto Scaling" is listed).
ELIGIBLE = (
    "ec2",
    "autoscaling",
    "ebs",
    "eks",
    "ecr",
    "s3",
    "fsx",
    "efs",
    "kms",
    "cloudtrail",
    "cloudwatch",
    "guardduty",
    "lb",
    "alb",
    "elasticloadbalancingv2",
    "secretsmanager",
    "sns",
    "sqs",
    "ssm",
    "backup",
    "rds",
    "dynamodb",
    "sagemaker",
    "batch",
    "route53",
    "acm",
    "securityhub",
    "config",
    "cloudformation",
)
CONFIGURATION_ONLY = ("iam", "budgets", "organizations", "costexplorer")


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
    config={
        "extraServices": {
            "type": "array",
            "items": {"type": "string"},
            "default": [],
            "description": "pulumi-aws modules to accept in addition to the list.",
        }
    },
    check=check,
)
