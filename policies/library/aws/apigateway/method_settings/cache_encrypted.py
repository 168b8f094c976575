"""API Gateway responses cached for a REST stage are encrypted at rest (Security Hub APIGateway.5, Medium).

The cache is set per method on aws:apigateway/methodSettings: settings.cachingEnabled turns it on and
settings.cacheDataEncrypted (pulumi-aws 7.51.1 default false) encrypts it.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    settings = props.get("settings") or {}
    if settings.get("cachingEnabled") is True and settings.get("cacheDataEncrypted") is not True:
        yield "settings.cachingEnabled is true without cacheDataEncrypted: cached responses are stored unencrypted"


RULE = ResourceRule(
    description="API Gateway REST API cache data must be encrypted at rest.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub APIGateway.5",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set settings.cacheDataEncrypted: true wherever settings.cachingEnabled is true.",
    url=SECURITY_HUB.format("apigateway"),
    types=("aws:apigateway/methodSettings:MethodSettings",),
    check=check,
)
