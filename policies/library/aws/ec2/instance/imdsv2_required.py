"""EC2 instances answer instance-metadata requests only with IMDSv2 session tokens."""

from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    options = props.get("metadataOptions") or {}
    if options.get("httpEndpoint") == "disabled":
        return
    if options.get("httpTokens") != "required":
        yield (
            "metadataOptions.httpTokens is not 'required': IMDSv1 answers any request, so an SSRF in the "
            "instance's software reads its role credentials"
        )


RULE = ResourceRule(
    description="EC2 instances must require IMDSv2.",
    severity="high",
    references={
        "baseline": "AWS Security Hub EC2.8",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set metadataOptions.httpTokens: required "
    "(and httpPutResponseHopLimit: 1 unless containers need more).",
    url=SECURITY_HUB.format("ec2"),
    types=("aws:ec2/instance:Instance",),
    check=check,
)
