"""CloudFront distributions make viewers use HTTPS (Security Hub CloudFront.3, severity Medium).

The control fails when viewerProtocolPolicy is allow-all on the default cache behaviour or on any ordered cache
behaviour; https-only and redirect-to-https pass.
"""

from ....props import items
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def behaviours(props):
    yield "defaultCacheBehavior", props.get("defaultCacheBehavior") or {}
    for index, behaviour in enumerate(items(props.get("orderedCacheBehaviors"))):
        yield f"orderedCacheBehaviors[{index}] ({behaviour.get('pathPattern')})", behaviour


def check(props, config, args):
    for where, behaviour in behaviours(props):
        if behaviour.get("viewerProtocolPolicy") == "allow-all":
            yield f"{where} viewerProtocolPolicy is allow-all: viewers may use plain HTTP"


RULE = ResourceRule(
    description="CloudFront distributions must require HTTPS between viewers and CloudFront.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub CloudFront.3",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation="Set viewerProtocolPolicy to redirect-to-https (or https-only) on the default and every ordered "
    "cache behaviour.",
    url=SECURITY_HUB.format("cloudfront"),
    types=("aws:cloudfront/distribution:Distribution",),
    check=check,
)
