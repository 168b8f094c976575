"""REST API stages sit behind an AWS WAF web ACL (Security Hub APIGateway.4, severity Medium).

The association is its own resource, aws:wafv2/webAclAssociation, naming the stage's ARN in resourceArn. A stack rule
pairs each REST stage with an association whose resourceArn was computed from the stage.
"""

from ....props import attached, of_type
from ....refs import GDPR, MLPS, SECURITY_HUB
from ....rule import StackRule

STAGE = "aws:apigateway/stage:Stage"
ASSOCIATION = "aws:wafv2/webAclAssociation:WebAclAssociation"


def check(resources, config):
    associations = of_type(resources, ASSOCIATION)
    for stage in of_type(resources, STAGE):
        if not attached(stage, associations, "resourceArn"):
            name = stage.props.get("stageName") or stage.name
            yield (f"REST API stage {name} has no aws.wafv2.WebAclAssociation: no WAF web ACL filters it", stage.urn)


RULE = StackRule(
    description="API Gateway REST API stages must be associated with a WAF web ACL.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub APIGateway.4",
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.3 入侵防范"),
    },
    remediation="Add aws.wafv2.WebAclAssociation(resource_arn=stage.arn, web_acl_arn=<a REGIONAL web ACL>.arn).",
    url=SECURITY_HUB.format("apigateway"),
    types=(STAGE, ASSOCIATION),
    check=check,
)
