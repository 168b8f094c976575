"""OpenSearch domains (vector stores, retrieval indexes) encrypt their indices, logs and snapshots at rest.

Security Hub Opensearch.1, severity Medium. The rule asks for encryptAtRest.enabled: true in the program rather
than relying on what the service defaults to for the engine version.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if (props.get("encryptAtRest") or {}).get("enabled") is not True:
        yield "encryptAtRest.enabled is not true: the domain's indices and snapshots are not encrypted with KMS"


RULE = ResourceRule(
    description="OpenSearch domains must have encryption at rest enabled.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub Opensearch.1",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set encryptAtRest: {enabled: true, kmsKeyId: <customer key>}.",
    url=SECURITY_HUB.format("opensearch"),
    types=("aws:opensearch/domain:Domain",),
    check=check,
)
