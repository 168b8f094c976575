"""DB instances run with a standby in a second Availability Zone (RDS fails over to it).

pulumi-aws 7.51.1 leaves multiAz unset, which the RDS API takes as false. Security Hub RDS.5, severity Medium.
A read replica has no standby of its own unless asked, so it is judged like any instance.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("multiAz") is not True:
        yield "multiAz is not true: one Availability Zone's outage takes the database down"


RULE = ResourceRule(
    description="RDS DB instances should be configured with multiple Availability Zones.",
    severity="medium",
    level="advisory",
    references={
        "baseline": "AWS Security Hub RDS.5",
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(B)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation="Set multiAz: true.",
    url=SECURITY_HUB.format("rds"),
    types=("aws:rds/instance:Instance",),
    check=check,
)
