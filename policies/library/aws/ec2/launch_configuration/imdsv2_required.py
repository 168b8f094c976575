"""Auto Scaling launch configurations require IMDSv2."""

from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    options = props.get("metadataOptions") or {}
    if options.get("httpEndpoint") != "disabled" and options.get("httpTokens") != "required":
        yield "metadataOptions.httpTokens is not 'required' (IMDSv1 lets any SSRF read node credentials)"


RULE = ResourceRule(
    description="Launch configurations must require IMDSv2.",
    severity="high",
    references={
        "baseline": "AWS Security Hub AutoScaling.3",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set metadataOptions.httpTokens: required, or move to a launch template.",
    url=SECURITY_HUB.format("autoscaling"),
    types=("aws:ec2/launchConfiguration:LaunchConfiguration",),
    check=check,
)
