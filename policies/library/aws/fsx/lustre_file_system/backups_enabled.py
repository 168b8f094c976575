"""Persistent FSx for Lustre keeps automatic daily backups (SCRATCH has none to keep)."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    deployment = str(props.get("deploymentType", "SCRATCH_1"))
    if deployment.startswith("SCRATCH"):
        return
    days = int(props.get("automaticBackupRetentionDays", 0) or 0)
    if days < config["minimumDays"]:
        yield f"automaticBackupRetentionDays is {days}; at least {config['minimumDays']}"


RULE = ResourceRule(
    description="Persistent FSx for Lustre file systems must keep automatic backups.",
    severity="medium",
    references={
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(A)"),
        "gdpr": GDPR.format("Art. 32(1)(c)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation="Set automaticBackupRetentionDays (1-90) on PERSISTENT file systems.",
    url="https://docs.aws.amazon.com/fsx/latest/LustreGuide/using-backups-fsx.html",
    config={
        "minimumDays": {
            "type": "integer",
            "minimum": 1,
            "maximum": 90,
            "default": 1,
            "description": "Fewest days of automatic backups.",
        }
    },
    types=("aws:fsx/lustreFileSystem:LustreFileSystem",),
    check=check,
)
