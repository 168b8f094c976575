"""DynamoDB tables (job queues, feature lookups, run metadata) can be restored to any second of the last 35 days.

Security Hub DynamoDB.2, severity Medium. pulumi-aws 7.51.1 leaves pointInTimeRecovery off unless asked.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if (props.get("pointInTimeRecovery") or {}).get("enabled") is not True:
        yield "pointInTimeRecovery.enabled is not true: a bad write or delete cannot be rolled back"


RULE = ResourceRule(
    description="DynamoDB tables must have point-in-time recovery enabled.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub DynamoDB.2",
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(A)"),
        "gdpr": GDPR.format("Art. 32(1)(c)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation="Set pointInTimeRecovery: {enabled: true}.",
    url=SECURITY_HUB.format("dynamodb"),
    types=("aws:dynamodb/table:Table",),
    check=check,
)
