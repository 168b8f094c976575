"""ApsaraDB RDS instances record SQL (SQL Explorer and Audit) and keep it at least `minimumDays`.

pulumi-alicloud 4.0.0 ``rds.Instance``: ``sqlCollectorStatus`` "Enabled" or "Disabled" (the default), and
``sqlCollectorConfigValue`` the days kept, one of 30, 180, 365, 1095, 1825 (default 30). Alibaba Cloud Config's
managed rule ``rds-instance-sql-collector-retention`` (input ``days``, default 180;
https://www.alibabacloud.com/help/en/cloud-config/latest/rds-instance-sql-collector-retention, read 2026-11-27) and
Checkov's CKV_ALI_25 (more than 180) judge the same two inputs. 180 days is the six months of network logs the
Cybersecurity Law of the PRC Art. 21(3) asks for.
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule

DEFAULT_DAYS = 30  # sqlCollectorConfigValue when left out


def check(props, config, args):
    if props.get("sqlCollectorStatus") != "Enabled":
        yield "sqlCollectorStatus is not Enabled: statements run against the database are not audited"
        return
    days = int(props.get("sqlCollectorConfigValue") or DEFAULT_DAYS)
    least = int(config["minimumDays"])  # configured values arrive as JSON numbers (365.0)
    if days < least:
        yield f"sqlCollectorConfigValue is {days} days; at least {least}"


RULE = ResourceRule(
    description="ApsaraDB RDS instances must audit SQL and keep the audit log at least minimumDays.",
    severity="medium",
    references={
        "baseline": "Alibaba Cloud Config rds-instance-sql-collector-retention; Checkov CKV_ALI_25",
        "hipaa": HIPAA.format("164.312(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计 a) c); Cybersecurity Law of the PRC Art. 21(3): at least six months"),
    },
    remediation="Set sqlCollectorStatus: Enabled and sqlCollectorConfigValue: 180 (or 365, 1095, 1825).",
    url="https://www.alibabacloud.com/help/en/cloud-config/latest/rds-instance-sql-collector-retention",
    config={
        "minimumDays": {
            "type": "integer",
            "minimum": 30,
            "default": 180,
            "description": "Fewest days of SQL audit log (the Config rule's default, and MLPS's six months).",
        }
    },
    types=("alicloud:rds/instance:Instance",),
    check=check,
)
