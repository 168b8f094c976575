"""Function Compute services and functions write their logs to Simple Log Service.

pulumi-alicloud 4.0.0: ``logConfig`` with ``project`` and ``logstore`` on ``fc.Service`` (FC 2.0, shared by the
service's functions) and on ``fc.V3Function`` (FC 3.0). The provider's note on ``fc.Service``: "If both project and
logstore are empty, log_config is considered to be empty or unset". Alibaba Cloud Config's managed rule
``fc-service-log-enable`` (https://alibabacloud.com/help/en/cloud-config/latest/function-compute-enables-logging,
read 2026-11-27) wants the logging feature on.
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    logs = props.get("logConfig") or {}
    if not (logs.get("project") and logs.get("logstore")):
        yield "logConfig has no project and logstore: invocations and their errors are not recorded"


RULE = ResourceRule(
    description="Function Compute services and functions must log to an SLS logstore.",
    severity="medium",
    references={
        "baseline": "Alibaba Cloud Config fc-service-log-enable",
        "hipaa": HIPAA.format("164.312(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计 a)"),
    },
    remediation="Set logConfig: {project: <SLS project>, logstore: <logstore kept 180 days or more>}.",
    url="https://alibabacloud.com/help/en/cloud-config/latest/function-compute-enables-logging",
    types=("alicloud:fc/service:Service", "alicloud:fc/v3Function:V3Function"),
    check=check,
)
