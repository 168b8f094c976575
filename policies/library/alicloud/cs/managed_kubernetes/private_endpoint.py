"""The ACK API server has no internet-facing load balancer."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("slbInternetEnabled") is not False:
        yield "slbInternetEnabled is not false: the API server is reachable from the internet"


RULE = ResourceRule(
    description="ACK API servers must not be exposed through an internet SLB.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud ACK: control public access to the API server",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.2 访问控制"),
    },
    remediation="Set slbInternetEnabled: false and reach the API through the VPC.",
    url="https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/control-public-access-to-the-api-server-of-a-cluster",
    types=("alicloud:cs/managedKubernetes:ManagedKubernetes",),
    check=check,
)
