"""No credentials in launch template user data (base64 in the template, plain text to anyone who reads it)."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ....secrets import decoded, in_text


def check(props, config, args):
    for kind in in_text(decoded(props.get("userData"), base64_encoded=True)):
        yield f"user data holds {kind}; fetch it at boot from Secrets Manager or SSM Parameter Store"


RULE = ResourceRule(
    description="Launch template user data must not hold secrets.",
    severity="high",
    references={
        "baseline": "Checkov CKV_AWS_46",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Keep secrets in Secrets Manager or SSM Parameter Store and read them at boot with the node role.",
    url="https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/user-data.html",
    types=("aws:ec2/launchTemplate:LaunchTemplate",),
    check=check,
)
