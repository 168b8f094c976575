"""DB instances publish their engine's logs to CloudWatch Logs (who connected, what failed).

Security Hub RDS.9 (severity Medium) names the logs per engine; this rule asks for those of the instance's engine in
enabledCloudwatchLogsExports (pulumi-aws 7.51.1 exports none unless asked). The log type names are those the RDS
API takes (CreateDBInstance EnableCloudwatchLogsExports). Engines the control does not list are not judged.
"""

from ....props import items
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule

# Security Hub RDS.9: Oracle (alert, audit, trace, listener), PostgreSQL (postgresql, upgrade), MySQL and MariaDB
# (audit, error, general, slowquery), SQL Server (error, agent).
LOGS = {
    "postgres": ("postgresql", "upgrade"),
    "mysql": ("audit", "error", "general", "slowquery"),
    "mariadb": ("audit", "error", "general", "slowquery"),
    "oracle": ("alert", "audit", "trace", "listener"),
    "sqlserver": ("error", "agent"),
}


def check(props, config, args):
    engine = str(props.get("engine") or "")
    wanted = next((logs for prefix, logs in LOGS.items() if engine.startswith(prefix)), None)
    if wanted is None or props.get("replicateSourceDb"):
        return
    missing = sorted(set(wanted) - {str(x) for x in items(props.get("enabledCloudwatchLogsExports"))})
    if missing:
        yield f"enabledCloudwatchLogsExports lacks {', '.join(missing)}: the {engine} logs stay on the instance"


RULE = ResourceRule(
    description="RDS DB instances must publish their engine's logs to CloudWatch Logs.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub RDS.9",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation='Set enabledCloudwatchLogsExports to the engine\'s logs (postgres: ["postgresql", "upgrade"]; '
    'mysql/mariadb: ["audit", "error", "general", "slowquery"]) and a log group retention.',
    url=SECURITY_HUB.format("rds"),
    types=("aws:rds/instance:Instance",),
    check=check,
)
