"""EFS file systems (shared datasets, checkpoints, notebooks' home directories) encrypt file data at rest with KMS.

Security Hub EFS.1, severity Medium. pulumi-aws 7.51.1 leaves encrypted false unless asked; encryption can only be
chosen when the file system is created.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("encrypted") is not True:
        yield "encrypted is not true: file data is stored unencrypted"
    elif config["requireCustomerKey"] and not props.get("kmsKeyId"):
        yield "no kmsKeyId: the file system is encrypted with the AWS managed key, not a customer key"


RULE = ResourceRule(
    description="EFS file systems must encrypt file data at rest with AWS KMS.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub EFS.1",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set encrypted: true and kmsKeyId to a customer-managed key (a new file system: copy the data over).",
    url=SECURITY_HUB.format("efs"),
    config={
        "requireCustomerKey": {
            "type": "boolean",
            "default": False,
            "description": "Also require a customer-managed KMS key (kmsKeyId); EFS.1 accepts the AWS managed key.",
        }
    },
    types=("aws:efs/fileSystem:FileSystem",),
    check=check,
)
