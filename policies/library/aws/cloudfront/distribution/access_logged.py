"""CloudFront distributions write standard access logs (Security Hub CloudFront.5, severity Medium).

The control evaluates standard logging (legacy) only: the distribution's loggingConfig with a bucket. Logs
delivered through CloudWatch vended log deliveries (standard logging v2) are other resources and do not pass it.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if not (props.get("loggingConfig") or {}).get("bucket"):
        yield "loggingConfig.bucket is unset: requests to the distribution are not logged"


RULE = ResourceRule(
    description="CloudFront distributions must have standard access logging enabled.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub CloudFront.5",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation="Set loggingConfig: {bucket: '<log bucket>.s3.amazonaws.com', prefix: '<distribution>/'}.",
    url=SECURITY_HUB.format("cloudfront"),
    types=("aws:cloudfront/distribution:Distribution",),
    check=check,
)
