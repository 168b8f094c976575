"""EFS file systems are in an AWS Backup plan (Security Hub EFS.2, severity Medium).

Two resources put a file system in a plan: aws:efs/backupPolicy with backupPolicy.status ENABLED (EFS's automatic
backups, which AWS Backup runs in its default plan) or an aws:backup/selection whose resources name the file system.
A stack rule pairs each file system with one of them, computed from it (fileSystemId, resources). A selection that
picks resources by tag cannot be judged from the program and is not counted.
"""

from ....props import attached, of_type
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule

FILE_SYSTEM = "aws:efs/fileSystem:FileSystem"
POLICY = "aws:efs/backupPolicy:BackupPolicy"
SELECTION = "aws:backup/selection:Selection"


def check(resources, config):
    enabled = [p for p in of_type(resources, POLICY) if (p.props.get("backupPolicy") or {}).get("status") == "ENABLED"]
    selections = of_type(resources, SELECTION)
    for fs in of_type(resources, FILE_SYSTEM):
        if not attached(fs, enabled, "fileSystemId") and not attached(fs, selections, "resources"):
            yield (
                f"EFS file system {fs.name} has no enabled aws.efs.BackupPolicy and no aws.backup.Selection naming it",
                fs.urn,
            )


RULE = StackRule(
    description="EFS file systems must be in an AWS Backup plan.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub EFS.2",
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(A)"),
        "gdpr": GDPR.format("Art. 32(1)(c)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation='Add aws.efs.BackupPolicy(file_system_id=fs.id, backup_policy={"status": "ENABLED"}), or name '
    "fs.arn in an aws.backup.Selection of your plan.",
    url=SECURITY_HUB.format("efs"),
    types=(FILE_SYSTEM, POLICY, SELECTION),
    check=check,
)
