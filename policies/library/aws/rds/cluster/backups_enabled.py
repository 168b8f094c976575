"""DB clusters keep automated backups for a week or more."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    days = props.get("backupRetentionPeriod")
    days = 1 if days is None else int(days)  # the RDS API default for clusters is 1 day
    if days < config["minimumDays"]:
        yield f"backupRetentionPeriod is {days} day(s); at least {config['minimumDays']}"


RULE = ResourceRule(
    description="RDS DB clusters must keep automated backups for at least the configured days.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub RDS.11 (applied to clusters)",
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(A)"),
        "gdpr": GDPR.format("Art. 32(1)(c)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation="Set backupRetentionPeriod to 7 or more.",
    url="https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/Aurora.Managing.Backups.html",
    config={
        "minimumDays": {
            "type": "integer",
            "minimum": 1,
            "default": 7,
            "description": "Fewest days of automated backups.",
        }
    },
    types=("aws:rds/cluster:Cluster",),
    check=check,
)
