"""No credentials in EC2 instance user data (readable by anyone who may describe the instance)."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ....secrets import user_data_secrets

CHECKOV = "Checkov CKV_AWS_46"


def check(props, config, args):
    yield from user_data_secrets(props)


RULE = ResourceRule(
    description="EC2 instance user data must not hold secrets.",
    severity="high",
    references={"baseline": CHECKOV, "hipaa": HIPAA.format("164.312(a)(1)"), "mlps": MLPS.format("8.1.4.8 数据保密性")},
    remediation="Keep secrets in Secrets Manager or SSM Parameter Store and read them at boot with the instance role.",
    url="https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/user-data.html",
    types=("aws:ec2/instance:Instance",),
    check=check,
)
