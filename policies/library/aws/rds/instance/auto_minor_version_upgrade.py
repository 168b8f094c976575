"""DB instances take the engine's minor versions (security fixes) in their maintenance window.

pulumi-aws 7.51.1 defaults autoMinorVersionUpgrade to true; only an explicit false fails. Security Hub RDS.13,
severity High. Aurora's instances (aws:rds/clusterInstance) carry the same input.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("autoMinorVersionUpgrade") is False:
        yield "autoMinorVersionUpgrade is false: the engine's security fixes are not applied"


RULE = ResourceRule(
    description="RDS DB instances must have automatic minor version upgrades enabled.",
    severity="high",
    references={
        "baseline": "AWS Security Hub RDS.13",
        "hipaa": HIPAA.format("164.308(a)(1)(ii)(B)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.4 入侵防范"),
    },
    remediation="Leave autoMinorVersionUpgrade at its default (true) and set a maintenanceWindow.",
    url=SECURITY_HUB.format("rds"),
    types=("aws:rds/instance:Instance", "aws:rds/clusterInstance:ClusterInstance"),
    check=check,
)
