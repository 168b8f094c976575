"""AWS stacks declare a budget that alerts someone before the money is gone."""

from ..props import items, of_type
from ..rule import StackRule
from .threat_detection import uses


def alerts(budget):
    return any(
        n.get("subscriberEmailAddresses") or n.get("subscriberSnsTopicArns")
        for n in items(budget.props.get("notifications"))
    )


def check(resources, config):
    if not uses(resources, "aws"):
        return  # pulumi-alicloud has no budget resource; Alibaba budgets are set in the billing console
    budgets = of_type(resources, "aws:budgets/budget:Budget")
    if not budgets:
        yield "no aws.budgets.Budget in the stack", None
    elif not any(alerts(b) for b in budgets):
        yield "no budget has a notification with subscribers", None


RULE = StackRule(
    description="AWS stacks must declare a budget with alert notifications.",
    severity="medium",
    references={"cost": "AWS Well-Architected Cost Optimization COST02-BP05: implement cost controls"},
    remediation="Add an aws.budgets.Budget with notifications to e-mail addresses or an SNS topic.",
    url="https://docs.aws.amazon.com/cost-management/latest/userguide/budgets-managing-costs.html",
    check=check,
)
