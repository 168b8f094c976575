"""Breach and intrusion detection is on: GuardDuty on AWS, Security Center on Alibaba Cloud."""

from ..props import of_type
from ..refs import GDPR, HIPAA, MLPS
from ..rule import StackRule


def uses(resources, cloud):
    return any(r.resource_type.startswith(cloud + ":") for r in resources)


def check(resources, config):
    if config.get("existing"):  # the account's detector lives elsewhere (one per account and region)
        return
    if uses(resources, "aws") and not any(
        d.props.get("enable", True) is True for d in of_type(resources, "aws:guardduty/detector:Detector")
    ):
        yield "no enabled GuardDuty detector in an AWS stack", None
    if uses(resources, "alicloud") and not of_type(resources, "alicloud:threatdetection/instance:Instance"):
        yield "no Security Center (threatdetection) instance in an Alibaba Cloud stack", None


RULE = StackRule(
    description="Stacks must turn on managed threat detection.",
    severity="high",
    references={
        "gdpr": GDPR.format("Art. 33(1), Art. 32(1)(d)"),
        "mlps": MLPS.format("8.1.4.4 入侵防范, 8.1.3.3 入侵防范"),
        "hipaa": HIPAA.format("164.308(a)(1)(ii)(D), 164.308(a)(6)(ii)"),
        "baseline": "AWS Security Hub GuardDuty.1",
    },
    remediation="Add an aws.guardduty.Detector (enable: true) or an alicloud.threatdetection.Instance.",
    url="https://docs.aws.amazon.com/securityhub/latest/userguide/guardduty-controls.html",
    config={
        "existing": {
            "type": "boolean",
            "default": False,
            "description": "The account already runs threat detection outside this stack (GuardDuty "
            "allows one detector per account and region); the stack need not declare it.",
        }
    },
    check=check,
)
