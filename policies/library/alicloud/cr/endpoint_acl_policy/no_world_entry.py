"""The internet endpoint of an ACR Enterprise Edition instance never admits the whole internet.

pulumi-alicloud 4.0.0 declares the endpoint's whitelist two ways: one ``cr.EndpointAclPolicy`` per ``entry`` (an
address range allowed on the ``internet`` endpoint), or ``cr.InternetEndpoint.entries[].entry``. An entry of
0.0.0.0/0 lets anyone reach the registry's login and pull API from the internet, leaving only credentials between
the world and the images (Container Registry's AccessControlEntry: "The IP address or CIDR block that is allowed to
access the public endpoint of the instance",
https://www.alibabacloud.com/help/en/acr/developer-reference/api-cr-2018-12-01-accesscontrolentry, read 2026-11-27).
"""

from collections.abc import Mapping

from ....props import WORLD, items
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def entries(props, resource_type):
    if resource_type == "alicloud:cr/internetEndpoint:InternetEndpoint":
        return [e.get("entry") for e in items(props.get("entries")) if isinstance(e, Mapping)]
    return [props.get("entry")]


def check(props, config, args):
    for entry in entries(props, args.resource_type):
        if str(entry or "").strip() in WORLD:
            yield f"the registry's internet endpoint admits {entry}: anyone may reach its login and pull API"


RULE = ResourceRule(
    description="ACR Enterprise Edition internet endpoints must not admit 0.0.0.0/0.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud Container Registry: internet endpoint access control",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.3.2 访问控制"),
    },
    remediation="List only your offices' and CI's egress ranges as entries, or pull over the VPC endpoint "
    "(cr.VpcEndpointLinkedVpc) and leave the internet endpoint closed.",
    url="https://www.alibabacloud.com/help/en/acr/developer-reference/api-cr-2018-12-01-accesscontrolentry",
    types=(
        "alicloud:cr/endpointAclPolicy:EndpointAclPolicy",
        "alicloud:cr/internetEndpoint:InternetEndpoint",
    ),
    check=check,
)
