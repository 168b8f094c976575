"""OSS buckets keep object versions."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if (props.get("versioning") or {}).get("status") != "Enabled":
        yield "versioning.status is not Enabled"


RULE = ResourceRule(
    description="OSS buckets must have versioning enabled.",
    severity="medium",
    references={
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(A), 164.312(c)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(c)"),
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation="Set versioning: {status: Enabled}.",
    url="https://www.alibabacloud.com/help/en/oss/user-guide/versioning-overview",
    types=("alicloud:oss/bucket:Bucket",),
    check=check,
)
