"""Service trust names the source: a role an AWS service assumes carries aws:SourceAccount or aws:SourceArn.

Without either key, the service may assume the role on behalf of a resource in any account (the cross-service
confused deputy). AWS IAM User Guide, "The confused deputy problem":
https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html

Some services do not send those keys when they assume a role, and a condition on a key that is absent from
the request denies the assumption: they are exempt through the rule's `exemptServices`, each with its
documentation below.

Advisory, not mandatory: AWS recommends the keys ("we recommend using the aws:SourceArn and aws:SourceAccount global
condition context keys", the services' confused-deputy pages), but no Security Hub FSBP or CIS AWS Foundations
control asks for them in a role's trust policy, and whether a service sends them when it assumes a role is
documented service by service; a mandatory finding would push a condition onto roles whose service may not send
the key, and the role would then stop working. The finding asks a person to add the condition where the service's
page documents it.
"""

from ....iam import principals
from ....props import statements
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule

SOURCE_KEYS = ("aws:sourceaccount", "aws:sourcearn")

# Service principal -> why it is exempt, with the AWS page that says so.
EXEMPT_SERVICES = {
    "cloudtrail.amazonaws.com": (
        "CloudTrail's CloudWatch Logs role: the CloudTrail user guide says confused deputy prevention is not "
        "applicable to it and it does not support aws:SourceArn or aws:SourceAccount "
        "(https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-required-policy-for-cloudwatch-logs.html)"
    ),
    "ec2.amazonaws.com": (
        "EC2 instance roles (instance profiles, EKS node roles): neither the EC2 user guide "
        "(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/iam-roles-for-amazon-ec2.html) nor the EKS node role "
        "page (https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html) documents aws:SourceArn or "
        "aws:SourceAccount for them; their trust policies carry no condition"
    ),
}

EXEMPT_CONFIG = {
    "type": "array",
    "items": {"type": "string"},
    "default": sorted(EXEMPT_SERVICES),
    "description": "Service principals that do not send aws:SourceAccount/aws:SourceArn when they "
    "assume a role: " + "; ".join(f"{k}: {v}" for k, v in sorted(EXEMPT_SERVICES.items())),
}


def _service(name: str) -> str:
    """China-partition principals end in `.amazonaws.com.cn`; the allow-list names the global form."""
    return name.lower().removesuffix(".cn")


def sourced(condition) -> bool:
    """A condition keyed on aws:SourceAccount or aws:SourceArn that holds only when the key is present."""
    for operator, keys in (condition or {}).items():
        if not isinstance(keys, dict) or str(operator).endswith("IfExists") or str(operator) == "Null":
            continue  # ...IfExists and Null pass a request that carries no source key
        if any(str(key).lower() in SOURCE_KEYS for key in keys):
            return True
    return False


def check(props, config, args):
    exempt = {_service(s) for s in config["exemptServices"]}
    for index, statement in enumerate(statements(props.get("assumeRolePolicy"))):
        if statement.get("Effect") != "Allow" or sourced(statement.get("Condition")):
            continue
        services = sorted(s for s in principals(statement, "Service") if s != "*" and _service(s) not in exempt)
        if services:
            yield (
                f"{statement.get('Sid') or f'statement {index}'} lets {', '.join(services)} assume the role "
                "without an aws:SourceAccount or aws:SourceArn condition (confused deputy)"
            )


RULE = ResourceRule(
    description="IAM roles trusted by an AWS service should condition on aws:SourceAccount or aws:SourceArn.",
    severity="medium",
    level="advisory",
    references={
        "baseline": "AWS IAM User Guide: cross-service confused deputy prevention",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Add StringEquals on 'aws:SourceAccount' (the account id) and ArnLike on 'aws:SourceArn' (the resource "
    "the service acts for); list a service that does not send these keys in exemptServices.",
    url="https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html",
    config={"exemptServices": EXEMPT_CONFIG},
    types=("aws:iam/role:Role",),
    check=check,
)
