"""Aurora and Multi-AZ DB clusters are encrypted at rest."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("storageEncrypted") is not True and props.get("engineMode") != "serverless":
        yield "storageEncrypted is not true"


RULE = ResourceRule(
    description="RDS DB clusters must be encrypted at rest.",
    severity="high",
    references={
        "baseline": "AWS Security Hub RDS.27",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set storageEncrypted: true and kmsKeyId.",
    url=SECURITY_HUB.format("rds"),
    types=("aws:rds/cluster:Cluster",),
    check=check,
)
