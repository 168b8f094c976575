"""An account-wide audit trail exists: CloudTrail on AWS, ActionTrail on Alibaba Cloud."""

from ..props import of_type
from ..refs import HIPAA, MLPS
from ..rule import StackRule
from .threat_detection import uses


def check(resources, config):
    if config.get("existing"):  # an organisation trail records the account's API calls
        return
    if uses(resources, "aws") and not of_type(resources, "aws:cloudtrail/trail:Trail"):
        yield "no CloudTrail trail in an AWS stack", None
    if uses(resources, "alicloud") and not of_type(resources, "alicloud:actiontrail/trail:Trail"):
        yield "no ActionTrail trail in an Alibaba Cloud stack", None


RULE = StackRule(
    description="Stacks must declare an audit trail of API activity.",
    severity="high",
    references={"hipaa": HIPAA.format("164.312(b)"), "mlps": MLPS.format("8.1.4.3 安全审计 a)")},
    remediation="Add a multi-region CloudTrail trail or an ActionTrail trail over all regions and events.",
    url="https://docs.aws.amazon.com/securityhub/latest/userguide/cloudtrail-controls.html",
    config={
        "existing": {
            "type": "boolean",
            "default": False,
            "description": "An audit trail outside this stack (an organisation trail) records the "
            "account's API calls; the stack need not declare one.",
        }
    },
    check=check,
)
