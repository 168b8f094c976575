"""OpenSearch domains sit in a VPC, reachable through security groups, not on a public endpoint.

Security Hub Opensearch.2, severity Critical: a domain with no vpcOptions subnets gets a public endpoint guarded
only by its access policy.
"""

from ....props import items
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if not items((props.get("vpcOptions") or {}).get("subnetIds")):
        yield "vpcOptions.subnetIds is empty: the domain has a public endpoint"


RULE = ResourceRule(
    description="OpenSearch domains must be in a VPC.",
    severity="critical",
    references={
        "baseline": "AWS Security Hub Opensearch.2",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set vpcOptions: {subnetIds: [private subnets], securityGroupIds: [a group open to the clients only]} "
    "(a new domain: an existing public domain cannot move into a VPC).",
    url=SECURITY_HUB.format("opensearch"),
    types=("aws:opensearch/domain:Domain",),
    check=check,
)
