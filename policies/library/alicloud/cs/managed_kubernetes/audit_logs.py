"""ACK control-plane and API audit logs go to SLS."""

from ....props import items
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if (props.get("auditLogConfig") or {}).get("enabled") is not True:
        yield "auditLogConfig.enabled is not true: API server audit logs are not collected"
    if "apiserver" not in items(props.get("controlPlaneLogComponents")):
        yield "controlPlaneLogComponents does not include apiserver"


RULE = ResourceRule(
    description="ACK clusters must ship API audit and control-plane logs to SLS.",
    severity="medium",
    references={
        "baseline": "Alibaba Cloud ACK: cluster auditing",
        "hipaa": HIPAA.format("164.312(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation="Set auditLogConfig.enabled: true and controlPlaneLogComponents to include apiserver.",
    url="https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/work-with-cluster-auditing",
    types=("alicloud:cs/managedKubernetes:ManagedKubernetes",),
    check=check,
)
