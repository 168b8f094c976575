"""Repositories encrypt images with a KMS key (the default is AES256 with an AWS-owned key)."""

from ....props import items
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    settings = items(props.get("encryptionConfigurations"))
    if not any(s.get("encryptionType") in ("KMS", "KMS_DSSE") for s in settings):
        yield "encryptionConfigurations does not use KMS: images are encrypted with an AWS-owned key"


RULE = ResourceRule(
    description="ECR repositories must be encrypted with a KMS key.",
    severity="medium",
    references={
        "baseline": "Checkov CKV_AWS_136",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set encryptionConfigurations: [{encryptionType: KMS, kmsKey: <the stack's key>}].",
    url="https://docs.aws.amazon.com/AmazonECR/latest/userguide/encryption-at-rest.html",
    types=("aws:ecr/repository:Repository",),
    check=check,
)
