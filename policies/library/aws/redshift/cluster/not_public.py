"""Redshift clusters are not reachable from the internet (a warehouse holds the training data's source tables)."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("publiclyAccessible") is True:
        yield "publiclyAccessible is true: the cluster endpoint resolves to a public address"


RULE = ResourceRule(
    description="Redshift clusters must not be publicly accessible.",
    severity="critical",
    references={
        "baseline": "AWS Security Hub Redshift.1",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set publiclyAccessible: false (the provider's default) and keep the cluster in private subnets.",
    url=SECURITY_HUB.format("redshift"),
    types=("aws:redshift/cluster:Cluster",),
    check=check,
)
