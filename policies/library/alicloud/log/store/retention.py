"""SLS logstores keep logs for the regulator's minimum, and not forever."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule

FOREVER = 3650  # SLS treats 3650 days as permanent storage


def check(props, config, args):
    days = int(props.get("retentionPeriod", 30) or 30)
    if days < config["minimumDays"]:
        yield f"retentionPeriod is {days}; at least {config['minimumDays']}"
    if config["requireExpiry"] and days >= FOREVER:
        yield f"retentionPeriod {days} keeps logs forever"


RULE = ResourceRule(
    description="SLS logstores must keep logs at least the minimum period, and not forever.",
    severity="medium",
    references={
        "mlps": MLPS.format("8.1.5.4 集中管控 d); Cybersecurity Law of the PRC Art. 21(3): at least six months"),
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 5(1)(e)"),
        "baseline": "Alibaba Cloud SLS: logstore data retention",
    },
    remediation="Set retentionPeriod to at least the minimum (180 days for MLPS level 3; 365 by default).",
    url="https://www.alibabacloud.com/help/en/sls/user-guide/manage-a-logstore",
    config={
        "minimumDays": {"type": "integer", "minimum": 1, "default": 365, "description": "Fewest days logs are kept."},
        "requireExpiry": {
            "type": "boolean",
            "default": True,
            "description": "Flag logstores that keep data permanently.",
        },
    },
    types=("alicloud:log/store:Store",),
    check=check,
)
