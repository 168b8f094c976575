"""Function Compute functions reach the internet only where a person decided they should.

pulumi-alicloud 4.0.0: ``internetAccess`` on ``fc.Service`` ("Whether to allow the Service to access Internet.
Default to true") and on ``fc.V3Function`` ("Allow function to access public network"). A function that reads the
stack's data (OSS, NAS, a VPC database) and may call any address can carry that data out of the boundary; with
``internetAccess: false`` and a ``vpcConfig`` it leaves only through the VPC's NAT and its rules. Advisory: many
functions call external APIs on purpose.
"""

from ....props import truthy
from ....refs import MLPS
from ....rule import ResourceRule


def check(props, config, args):
    value = props.get("internetAccess")
    if value is None or truthy(value):
        yield "internetAccess is not false (the provider's default is true): the function may send data anywhere"


RULE = ResourceRule(
    description="Function Compute services and functions should not have direct internet access.",
    severity="medium",
    level="advisory",
    references={
        "baseline": "Alibaba Cloud Function Compute: internetAccess",
        "mlps": MLPS.format("8.1.3.1 边界防护 c)"),
    },
    remediation="Set internetAccess: false and vpcConfig (egress through the VPC's NAT gateway and its rules).",
    url="https://www.alibabacloud.com/help/en/functioncompute/service-related-commands",
    types=("alicloud:fc/service:Service", "alicloud:fc/v3Function:V3Function"),
    check=check,
)
