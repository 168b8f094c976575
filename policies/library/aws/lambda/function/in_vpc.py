"""Lambda functions run in a VPC, behind security groups and flow logs the platform team controls.

Security Hub Lambda.3 (severity Low) is not part of the FSBP standard (its control list holds Lambda.1, .2 and .5;
Lambda.3 applies to NIST SP 800-53 and PCI DSS), so the rule is advisory: a function that only calls public AWS
APIs may rightly stay outside.
"""

from ....props import items
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if not items((props.get("vpcConfig") or {}).get("subnetIds")):
        yield "vpcConfig.subnetIds is empty: the function's network traffic is outside the VPC's controls"


RULE = ResourceRule(
    description="Lambda functions should be in a VPC.",
    severity="low",
    level="advisory",
    references={
        "baseline": "AWS Security Hub Lambda.3 (NIST SP 800-53 and PCI DSS standards, not FSBP)",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set vpcConfig: {subnetIds: [private subnets], securityGroupIds: [...]} and give the role "
    "AWSLambdaVPCAccessExecutionRole; reach AWS APIs through VPC endpoints or a NAT gateway.",
    url=SECURITY_HUB.format("lambda"),
    types=("aws:lambda/function:Function",),
    check=check,
)
