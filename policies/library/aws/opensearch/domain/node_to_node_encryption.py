"""OpenSearch nodes talk to each other over TLS.

Security Hub Opensearch.3, severity Medium.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if (props.get("nodeToNodeEncryption") or {}).get("enabled") is not True:
        yield "nodeToNodeEncryption.enabled is not true: traffic between the domain's nodes is in clear text"


RULE = ResourceRule(
    description="OpenSearch domains must encrypt data sent between nodes.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub Opensearch.3",
        "hipaa": HIPAA.format("164.312(e)(2)(ii)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation="Set nodeToNodeEncryption: {enabled: true}.",
    url=SECURITY_HUB.format("opensearch"),
    types=("aws:opensearch/domain:Domain",),
    check=check,
)
