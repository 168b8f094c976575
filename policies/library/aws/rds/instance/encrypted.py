"""Databases (experiment tracking, feature stores, job metadata) are encrypted at rest.

Security Hub RDS.3 is severity Medium (awsdocs/aws-security-hub-user-guide bda5bf7 doc_source/rds-controls.md;
emnode.com/learn/control/rds-3 read 2026-11-27 agrees); this rule said high before.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("storageEncrypted") is not True:
        yield "storageEncrypted is not true (RDS storage is unencrypted unless asked)"


RULE = ResourceRule(
    description="RDS DB instances must be encrypted at rest.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub RDS.3",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set storageEncrypted: true and kmsKeyId (a new instance; encryption cannot be turned on in place).",
    url=SECURITY_HUB.format("rds"),
    types=("aws:rds/instance:Instance",),
    check=check,
)
