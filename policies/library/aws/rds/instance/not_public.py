"""Databases are not reachable from the internet."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("publiclyAccessible") is True:
        yield "publiclyAccessible is true: the endpoint resolves to a public address"


RULE = ResourceRule(
    description="RDS DB instances must not be publicly accessible.",
    severity="critical",
    references={
        "baseline": "AWS Security Hub RDS.2",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set publiclyAccessible: false and keep the instance in private subnets.",
    url=SECURITY_HUB.format("rds"),
    types=("aws:rds/instance:Instance", "aws:rds/clusterInstance:ClusterInstance"),
    check=check,
)
