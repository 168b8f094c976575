"""GPU nodes answer instance-metadata requests only with IMDSv2 session tokens."""

from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    options = props.get("metadataOptions") or {}
    if options.get("httpEndpoint") == "disabled":
        return
    if options.get("httpTokens") != "required":
        yield "metadataOptions.httpTokens is not 'required' (IMDSv1 lets any SSRF read node credentials)"
    hops = options.get("httpPutResponseHopLimit")
    if hops is not None and int(hops) > config["maxHopLimit"]:
        yield f"httpPutResponseHopLimit {int(hops)} lets pods reach node credentials; at most {config['maxHopLimit']}"


RULE = ResourceRule(
    description="Launch templates must require IMDSv2 and keep the metadata hop limit low.",
    severity="high",
    references={
        "baseline": "AWS Security Hub EC2.170",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set metadataOptions.httpTokens: required and httpPutResponseHopLimit: 1.",
    url=SECURITY_HUB.format("ec2"),
    config={
        "maxHopLimit": {
            "type": "integer",
            "minimum": 1,
            "default": 1,
            "description": "Highest allowed httpPutResponseHopLimit.",
        }
    },
    types=("aws:ec2/launchTemplate:LaunchTemplate",),
    check=check,
)
