"""OpenSearch domains send their error logs to CloudWatch Logs.

Security Hub Opensearch.4, severity Medium: the Config rule's parameter is logtype = 'error', the API's
ES_APPLICATION_LOGS.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule
from .logs import publishes


def check(props, config, args):
    if not publishes(props, "ES_APPLICATION_LOGS"):
        yield "logPublishingOptions has no enabled ES_APPLICATION_LOGS entry: the domain's error logs are not kept"


RULE = ResourceRule(
    description="OpenSearch domains must send error logs to CloudWatch Logs.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub Opensearch.4",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation='Add logPublishingOptions: [{logType: "ES_APPLICATION_LOGS", cloudwatchLogGroupArn: <group>}] and a '
    "log group resource policy that lets es.amazonaws.com write.",
    url=SECURITY_HUB.format("opensearch"),
    types=("aws:opensearch/domain:Domain",),
    check=check,
)
