"""OSS buckets have lifecycle rules, so data and old versions do not live forever."""

from ....props import items
from ....refs import GDPR
from ....rule import ResourceRule


def check(props, config, args):
    if not any(r.get("enabled") is True for r in items(props.get("lifecycleRules"))):
        yield "no enabled lifecycleRules"


RULE = ResourceRule(
    description="OSS buckets must have an enabled lifecycle rule (storage limitation).",
    severity="medium",
    references={"gdpr": GDPR.format("Art. 5(1)(e)")},
    remediation="Add lifecycleRules that expire noncurrent versions and data past its purpose.",
    url="https://www.alibabacloud.com/help/en/oss/user-guide/lifecycle-rules-based-on-the-last-modified-time",
    types=("alicloud:oss/bucket:Bucket",),
    check=check,
)
