"""DynamoDB tables refuse DeleteTable until deletion protection is turned off.

Security Hub DynamoDB.6. Its severity, Medium, is as emnode.com/learn/control/dynamodb-6 transcribes it (read
2026-11-27; AWS's dynamodb-controls page in the stored corpus predates the control). pulumi-aws 7.51.1 leaves
deletionProtectionEnabled false unless asked. Advisory, like RDS.7/RDS.8: it guards availability, not access.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("deletionProtectionEnabled") is not True:
        yield "deletionProtectionEnabled is not true: one DeleteTable call (or a replacement) drops the table"


RULE = ResourceRule(
    description="DynamoDB tables should have deletion protection enabled.",
    severity="medium",
    level="advisory",
    references={
        "baseline": "AWS Security Hub DynamoDB.6",
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(A)"),
        "gdpr": GDPR.format("Art. 32(1)(c)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation="Set deletionProtectionEnabled: true.",
    url=SECURITY_HUB.format("dynamodb"),
    types=("aws:dynamodb/table:Table",),
    check=check,
)
