"""No AdministratorAccess (or other full-admin managed policy) attached to a role, user or group.

A workload role with AdministratorAccess turns any compromise of the workload (a notebook, a
training image) into control of the account.
"""

from ....props import as_list
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule

TYPES = (
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
    "aws:iam/userPolicyAttachment:UserPolicyAttachment",
    "aws:iam/groupPolicyAttachment:GroupPolicyAttachment",
    "aws:iam/policyAttachment:PolicyAttachment",
    "aws:iam/role:Role",
)


def forbidden(arn, config) -> bool:
    """AWS-managed policy ARNs end in ':policy/<name>' (or ':policy/job-function/<name>') in every partition."""
    return isinstance(arn, str) and arn.rsplit("/", 1)[-1] in config["forbiddenPolicies"] and ":iam::aws:policy/" in arn


def check(props, config, args):
    arns = as_list(props.get("policyArn")) + as_list(props.get("managedPolicyArns"))
    for arn in arns:
        if forbidden(arn, config):
            yield f"attaches {arn.rsplit('/', 1)[-1]}: full administrative access for whoever holds this identity"


RULE = ResourceRule(
    description="Roles, users and groups must not have administrator managed policies attached.",
    severity="critical",
    references={
        "baseline": "CIS AWS Foundations Benchmark v1.4.0 1.16",
        "hipaa": HIPAA.format("164.308(a)(4)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.2 访问控制 d)"),
    },
    remediation="Attach a policy listing the actions the workload needs on its own resources.",
    url="https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html#grant-least-privilege",
    config={
        "forbiddenPolicies": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["AdministratorAccess", "IAMFullAccess"],
            "description": "Names of AWS-managed policies never attached.",
        }
    },
    types=TYPES,
    check=check,
)
