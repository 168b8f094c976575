"""OSS buckets log every access (OSS access logging to a log bucket).

MLPS level 3 audits important user behaviour (GB/T 22239-2019 8.1.4.3 a)); HIPAA audit controls and GDPR
breach notification need to know which objects were read. Buckets that receive access logs are exempt:
logging them records the log delivery itself.
"""

from ....props import of_type
from ....refs import GDPR, HIPAA, MLPS
from ....rule import StackRule

BUCKET = "alicloud:oss/bucket:Bucket"
LOGGING = "alicloud:oss/bucketLogging:BucketLogging"


def urns(resource, prop) -> set[str]:
    return {d.urn for d in resource.property_dependencies.get(prop, [])}


def check(resources, config):
    loggings = of_type(resources, LOGGING)
    buckets = of_type(resources, BUCKET)
    targets = set().union(
        *(urns(log, "targetBucket") - urns(log, "bucket") for log in loggings),
        *(urns(b, "logging") for b in buckets if (b.props.get("logging") or {}).get("targetBucket")),
    )
    for bucket in buckets:
        if bucket.urn in targets or (bucket.props.get("logging") or {}).get("targetBucket"):
            continue
        if any(bucket.urn in urns(log, "bucket") for log in loggings):
            continue
        yield f"bucket {bucket.name} has no access logging", bucket.urn


RULE = StackRule(
    description="OSS buckets must log access to a log bucket.",
    severity="high",
    references={
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计 a)"),
    },
    remediation="Add an oss.BucketLogging (or the bucket's logging block) with targetBucket set to a log bucket.",
    url="https://www.alibabacloud.com/help/en/oss/user-guide/logging",
    types=(BUCKET, LOGGING),
    check=check,
)
