"""AWS Budgets: a monthly cost budget that e-mails the stack's contacts at each threshold."""

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args


@dataclass(frozen=True)
class CostBudgetArgs(Args):
    """A monthly cost budget."""

    monthly_limit_usd: float
    """The monthly limit, USD."""
    cost_tag_key: str
    """The cost-allocation tag the budget filters on (the stack's resources carry it)."""
    cost_tag_value: str
    """Its value: this cluster."""
    thresholds_pct: Optional[Sequence[int]] = (50, 80, 100)
    """Alert at these percentages of the limit, actual and forecast."""
    contacts: Optional[Sequence[str]] = ()
    """E-mail addresses alerted; none by default (then the budget only records)."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the budget; none by default."""
    activate_cost_tag: Optional[bool] = False
    """Activate `cost_tag_key` as a cost allocation tag, without which the budget's tag filter matches nothing. Off by
    default: AWS can activate a key only after resources carry it (listed up to 24 hours later). The activation is
    kept when the stack goes (retainOnDelete), since it is account-wide and other budgets may use it.
    https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/activating-tags.html"""


class CostBudget(Component):
    """A monthly AWS cost budget for the cluster's tagged resources, alerting its contacts at each threshold."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:CostBudget"
    budget_name: pulumi.Output[str]
    """The budget's name."""

    def __init__(self, name: str, args: CostBudgetArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(CostBudgetArgs, args)
        monthly_limit_usd, thresholds_pct, contacts = args.monthly_limit_usd, args.thresholds_pct, args.contacts
        cost_tag, tags = (args.cost_tag_key, args.cost_tag_value), dict(args.tags)
        notifications = (
            [
                {
                    "comparison_operator": "GREATER_THAN",
                    "threshold": float(pct),
                    "threshold_type": "PERCENTAGE",
                    "notification_type": kind,
                    "subscriber_email_addresses": list(contacts),
                }
                for pct in thresholds_pct
                for kind in ("ACTUAL", "FORECASTED")
            ]
            if contacts
            else []
        )
        self.budget = aws.budgets.Budget(
            name,
            name=name,
            budget_type="COST",
            time_unit="MONTHLY",
            limit_amount=f"{monthly_limit_usd:.2f}",
            limit_unit="USD",
            cost_filters=[{"name": "TagKeyValue", "values": [f"user:{cost_tag[0]}${cost_tag[1]}"]}],
            notifications=notifications,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self),
        )
        if args.activate_cost_tag:
            aws.costexplorer.CostAllocationTag(
                name,
                tag_key=cost_tag[0],
                status="Active",
                opts=pulumi.ResourceOptions(parent=self, retain_on_delete=True),
            )
        self.budget_name = self.budget.name
        self.register_outputs({"budget_name": self.budget_name})
