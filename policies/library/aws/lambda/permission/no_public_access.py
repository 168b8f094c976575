"""Lambda function policies let no one outside the account invoke the function (Security Hub Lambda.1, Critical).

A function's resource policy is the set of its aws.lambda.Permission resources. The control fails a statement whose
principal is everyone ("*") without a condition that narrows it (pulumi-aws 7.51.1: sourceArn, sourceAccount,
principalOrgId), and one that lets Amazon S3 invoke the function without sourceAccount (a bucket name can be
taken by another account).
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    principal = str(props.get("principal") or "")
    narrowed = any(props.get(k) for k in ("sourceArn", "sourceAccount", "principalOrgId"))
    if principal == "*" and not narrowed:
        yield "principal is '*' with no sourceArn, sourceAccount or principalOrgId: anyone can invoke the function"
    elif principal == "s3.amazonaws.com" and not props.get("sourceAccount"):
        yield "principal is s3.amazonaws.com with no sourceAccount: a bucket in another account can invoke it"


RULE = ResourceRule(
    description="Lambda function policies must prohibit public access.",
    severity="critical",
    references={
        "baseline": "AWS Security Hub Lambda.1",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Name the calling service and its resource (sourceArn) or account (sourceAccount), or an "
    "organization (principalOrgId); for S3 always set sourceAccount.",
    url=SECURITY_HUB.format("lambda"),
    types=("aws:lambda/permission:Permission",),
    check=check,
)
