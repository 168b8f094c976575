"""Log groups keep logs long enough for the regulator, and not forever."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    days = int(props.get("retentionInDays", 0) or 0)
    if days == 0:
        if config["requireExpiry"]:
            yield "retentionInDays is unset: logs are kept forever"
        return
    if days < config["minimumDays"]:
        yield f"retentionInDays is {days}; at least {config['minimumDays']}"


RULE = ResourceRule(
    description="CloudWatch log groups must keep logs for the minimum period and set an expiry.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub CloudWatch.16",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 5(1)(e)"),
        "mlps": MLPS.format("8.1.5.4 集中管控 d); Cybersecurity Law of the PRC Art. 21(3): at least six months"),
    },
    remediation="Set retentionInDays to a value CloudWatch accepts at or above the minimum (365 by default).",
    url=SECURITY_HUB.format("cloudwatch"),
    config={
        "minimumDays": {"type": "integer", "minimum": 1, "default": 365, "description": "Fewest days logs are kept."},
        "requireExpiry": {
            "type": "boolean",
            "default": True,
            "description": "Flag log groups that never expire (storage limitation).",
        },
    },
    types=("aws:cloudwatch/logGroup:LogGroup",),
    check=check,
)
