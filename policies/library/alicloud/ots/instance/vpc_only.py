"""Tablestore instances are reached from a VPC (and the console) only, never from the internet.

pulumi-alicloud 4.0.0 ``ots.Instance``: ``networkTypeAcls``, the network types allowed (CLASSIC, VPC, INTERNET;
"Default to [VPC, CLASSIC, INTERNET]"), ``networkSourceAcls`` (TRUST_PROXY, the console), and the deprecated
``accessedBy`` (Any, Vpc or ConsoleOrVpc; "Default to Any"). Alibaba Cloud Config's managed rule
``ots-instance-network-not-normal`` wants VPC-only or console access
(https://help.aliyun.com/en/document_detail/436429.html, read 2026-11-27).
"""

from ....props import as_list
from ....refs import GDPR, MLPS
from ....rule import ResourceRule

DEFAULT_NETWORKS = ["VPC", "CLASSIC", "INTERNET"]


def check(props, config, args):
    networks = props.get("networkTypeAcls")
    if networks is None and props.get("accessedBy") in ("Vpc", "ConsoleOrVpc"):
        return  # the deprecated input, set to a VPC-only mode
    allowed = [str(n).upper() for n in as_list(networks)] if networks is not None else DEFAULT_NETWORKS
    others = [n for n in allowed if n != "VPC"]
    if others:
        yield f"networkTypeAcls admits {', '.join(others)}: the instance is reachable from outside its VPC"


RULE = ResourceRule(
    description="Tablestore instances must admit VPC (and console) access only.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud Config ots-instance-network-not-normal",
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set networkTypeAcls: [VPC] (networkSourceAcls: [TRUST_PROXY] keeps the console) and bind the "
    "instance to the VPC (ots.InstanceAttachment).",
    url="https://help.aliyun.com/en/document_detail/436429.html",
    types=("alicloud:ots/instance:Instance",),
    check=check,
)
