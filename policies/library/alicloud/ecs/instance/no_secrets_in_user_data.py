"""No credentials in ECS instance user data."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ....secrets import decoded, in_text


def check(props, config, args):
    text = decoded(props.get("userData"))
    text += "\n" + decoded(text, base64_encoded=True)  # user data may be given base64-encoded
    for kind in sorted(set(in_text(text))):
        yield f"user data holds {kind}; read it at boot from KMS Secrets Manager with the instance RAM role"


RULE = ResourceRule(
    description="ECS instance user data must not hold secrets.",
    severity="high",
    references={
        "baseline": "Checkov CKV_AWS_46 (the same check for Alibaba Cloud user data)",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Keep secrets in KMS Secrets Manager; read them at boot with the instance's RAM role.",
    url="https://www.alibabacloud.com/help/en/ecs/user-guide/customize-the-initialization-configuration-for-an-instance",
    types=("alicloud:ecs/instance:Instance",),
    check=check,
)
