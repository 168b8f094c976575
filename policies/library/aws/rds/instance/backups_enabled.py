"""Databases keep automated backups for a week or more (point-in-time recovery after a bad write)."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("replicateSourceDb"):
        return  # read replicas take no automated backups of their own
    days = props.get("backupRetentionPeriod")
    days = 1 if days is None else int(days)  # the RDS API default for instances is 1 day
    if days < config["minimumDays"]:
        yield f"backupRetentionPeriod is {days} day(s); at least {config['minimumDays']}"


RULE = ResourceRule(
    description="RDS DB instances must keep automated backups for at least the configured days.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub RDS.11",
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(A)"),
        "gdpr": GDPR.format("Art. 32(1)(c)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation="Set backupRetentionPeriod to 7 or more.",
    url=SECURITY_HUB.format("rds"),
    config={
        "minimumDays": {
            "type": "integer",
            "minimum": 1,
            "default": 7,
            "description": "Fewest days of automated backups (Security Hub RDS.11 uses 7).",
        }
    },
    types=("aws:rds/instance:Instance",),
    check=check,
)
