"""No credentials in launch configuration user data."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ....secrets import user_data_secrets


def check(props, config, args):
    yield from user_data_secrets(props)


RULE = ResourceRule(
    description="Launch configuration user data must not hold secrets.",
    severity="high",
    references={
        "baseline": "Checkov CKV_AWS_46",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Keep secrets in Secrets Manager or SSM Parameter Store and read them at boot with the instance role.",
    url="https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/user-data.html",
    types=("aws:ec2/launchConfiguration:LaunchConfiguration",),
    check=check,
)
