"""DB clusters refuse deletion until deletion protection is turned off.

pulumi-aws 7.51.1 defaults deletionProtection to false. Security Hub RDS.7, severity Low.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("deletionProtection") is not True:
        yield "deletionProtection is not true: the cluster can be deleted by any change that replaces it"


RULE = ResourceRule(
    description="RDS DB clusters should have deletion protection enabled.",
    severity="low",
    level="advisory",
    references={
        "baseline": "AWS Security Hub RDS.7",
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(A)"),
        "gdpr": GDPR.format("Art. 32(1)(c)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation="Set deletionProtection: true (turn it off in a separate change before a deliberate deletion).",
    url=SECURITY_HUB.format("rds"),
    types=("aws:rds/cluster:Cluster",),
    check=check,
)
