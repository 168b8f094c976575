"""OpenSearch domains keep an audit log (authentication, index changes, queries).

Security Hub Opensearch.5, severity Medium. Audit logs need fine-grained access control
(advancedSecurityOptions.enabled); the API's log type is AUDIT_LOGS.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule
from .logs import publishes


def check(props, config, args):
    if not publishes(props, "AUDIT_LOGS"):
        yield "logPublishingOptions has no enabled AUDIT_LOGS entry: who read or changed the indices is not recorded"


RULE = ResourceRule(
    description="OpenSearch domains must have audit logging enabled.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub Opensearch.5",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation='Enable advancedSecurityOptions and add logPublishingOptions: [{logType: "AUDIT_LOGS", '
    "cloudwatchLogGroupArn: <group>}].",
    url=SECURITY_HUB.format("opensearch"),
    types=("aws:opensearch/domain:Domain",),
    check=check,
)
