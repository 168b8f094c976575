"""No credentials in launch configuration user data."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ....secrets import decoded, in_text


def check(props, config, args):
    text = decoded(props.get("userData")) + "\n" + decoded(props.get("userDataBase64"), base64_encoded=True)
    for kind in in_text(text):
        yield f"user data holds {kind}; fetch it at boot from Secrets Manager or SSM Parameter Store"


RULE = ResourceRule(
    description="Launch configuration user data must not hold secrets.",
    severity="high",
    references={"baseline": "Checkov CKV_AWS_46", "hipaa": HIPAA.format("164.312(a)(1)"),
                "mlps": MLPS.format("8.1.4.8 数据保密性")},
    remediation="Keep secrets in Secrets Manager or SSM Parameter Store and read them at boot with the instance role.",
    url="https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/user-data.html",
    types=("aws:ec2/launchConfiguration:LaunchConfiguration",),
    check=check,
)
