"""FSx for Lustre: PERSISTENT file systems use the stack's KMS key; SCRATCH only where the pack allows it.

SCRATCH file systems cannot take a customer key (FSx encrypts them with an FSx-managed key),
so flagging them for a missing kmsKeyId would be a false positive: whether SCRATCH is acceptable
at all is the pack's ``allowScratch`` decision.
"""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    deployment = str(props.get("deploymentType", "SCRATCH_1"))
    if deployment.startswith("SCRATCH"):
        if not config["allowScratch"]:
            yield f"{deployment} cannot use a customer-managed key and this pack does not allow SCRATCH"
    elif not props.get("kmsKeyId"):
        yield f"{deployment} file system without kmsKeyId is encrypted with the AWS-managed key"


RULE = ResourceRule(
    description="FSx for Lustre PERSISTENT file systems must be encrypted with a customer-managed KMS key.",
    severity="high",
    references={
        "baseline": "AWS FSx for Lustre User Guide: encryption at rest",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Use a PERSISTENT_2 deployment with kmsKeyId, or allow SCRATCH in the pack config for transient data.",
    url="https://docs.aws.amazon.com/fsx/latest/LustreGuide/encryption-at-rest.html",
    config={
        "allowScratch": {
            "type": "boolean",
            "default": True,
            "description": "Accept SCRATCH file systems (FSx-managed key only).",
        }
    },
    types=("aws:fsx/lustreFileSystem:LustreFileSystem",),
    check=check,
)
