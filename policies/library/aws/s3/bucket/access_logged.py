"""Object-level access to every data bucket is recorded: S3 data events in a trail, or server access logs.

Who read which object is what a breach notification must tell (GDPR Art. 33(3)(a): the records
concerned) and what HIPAA's audit controls record (164.312(b)). Either of AWS's two records counts
(Security Hub S3.9 server access logging; S3.22/S3.23 and AWS Config CLOUDTRAIL_S3_DATAEVENTS_ENABLED
for data events). Buckets that receive logs are exempt: logging access to them records the delivery of
the logs themselves, the recursion CloudTrail's "recursive logging" page describes.
"""

from ....props import as_list, items, of_type
from ....refs import GDPR, HIPAA, SECURITY_HUB
from ....rule import StackRule
from .companions import BUCKET, buckets_with

TRAIL = "aws:cloudtrail/trail:Trail"
LOGGING = "aws:s3/bucketLogging:BucketLogging"
S3_OBJECT = "AWS::S3::Object"
ALL_BUCKETS = (
    "arn:aws:s3",
    "arn:aws:s3:::",
    "arn:aws-cn:s3",
    "arn:aws-cn:s3:::",
    "arn:aws-us-gov:s3",
    "arn:aws-us-gov:s3:::",
)


def depends(resource, prop) -> set[str]:
    return {d.urn for d in resource.property_dependencies.get(prop, [])}


def basic_coverage(trail, all_urns):
    """Buckets the trail's basic event selectors log object reads and writes for."""
    covered: set[str] = set()
    for selector in items(trail.props.get("eventSelectors")):
        if selector.get("readWriteType", "All") != "All":
            continue
        for resource in items(selector.get("dataResources")):
            if resource.get("type") != S3_OBJECT:
                continue
            values = [str(v) for v in as_list(resource.get("values"))]
            covered |= all_urns if any(v in ALL_BUCKETS for v in values) else depends(trail, "eventSelectors")
    return covered


def advanced_coverage(trail, all_urns):
    """Buckets the trail's advanced event selectors log S3 object data events for (reads and writes)."""
    covered: set[str] = set()
    for selector in items(trail.props.get("advancedEventSelectors")):
        fields = {f.get("field"): f for f in items(selector.get("fieldSelectors"))}
        if (
            as_list((fields.get("eventCategory") or {}).get("equals")) != ["Data"]
            or S3_OBJECT not in as_list((fields.get("resources.type") or {}).get("equals"))
            or "readOnly" in fields
        ):
            continue
        arn = fields.get("resources.ARN") or {}
        mentioned = depends(trail, "advancedEventSelectors")
        if arn.get("equals") or arn.get("startsWiths"):
            covered |= mentioned
        else:  # every bucket, less those a notStartsWith/notEquals names
            covered |= all_urns - (mentioned if (arn.get("notStartsWiths") or arn.get("notEquals")) else set())
    return covered


def check(resources, config):
    buckets = of_type(resources, BUCKET)
    all_urns = {b.urn for b in buckets}
    trails = [t for t in of_type(resources, TRAIL) if t.props.get("enableLogging", True) is not False]
    covered = set().union(*(basic_coverage(t, all_urns) | advanced_coverage(t, all_urns) for t in trails))
    log_targets = set().union(
        *(depends(t, "s3BucketName") for t in trails),
        *(depends(log, "targetBucket") - depends(log, "bucket") for log in of_type(resources, LOGGING)),
    )
    for bucket, loggings in buckets_with(resources, LOGGING):
        if bucket.urn in covered or bucket.urn in log_targets:
            continue
        if any(bucket.urn not in depends(log, "targetBucket") for log in loggings):
            continue
        if (bucket.props.get("logging") or {}).get("targetBucket"):
            continue
        yield (
            (
                f"bucket {bucket.name}: object access is not logged (no S3 data events in a trail, no server "
                "access logs to another bucket)"
            ),
            bucket.urn,
        )


RULE = StackRule(
    description="S3 buckets must have object-level access logged (trail data events or server access logs).",
    severity="high",
    references={"hipaa": HIPAA.format("164.312(b)"), "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)")},
    remediation="Log S3 data events in a trail (advanced event selector eventCategory=Data, "
    "resources.type=AWS::S3::Object), or add a BucketLogging to a separate log bucket.",
    url=SECURITY_HUB.format("s3"),
    types=(BUCKET, TRAIL, LOGGING),
    check=check,
)
