"""AWS Budgets: a monthly cost budget that e-mails the stack's contacts at each threshold."""

from __future__ import annotations

from typing import Sequence

import pulumi
import pulumi_aws as aws


class CostBudget(pulumi.ComponentResource):
    def __init__(self, name: str, *, monthly_limit_usd: float, thresholds_pct: Sequence[int],
                 contacts: Sequence[str], cost_tag: tuple[str, str], tags: dict[str, str], opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:aws:CostBudget", name, None, opts)
        notifications = [
            {"comparison_operator": "GREATER_THAN", "threshold": float(pct), "threshold_type": "PERCENTAGE",
             "notification_type": kind, "subscriber_email_addresses": list(contacts)}
            for pct in thresholds_pct
            for kind in ("ACTUAL", "FORECASTED")
        ] if contacts else []
        self.budget = aws.budgets.Budget(
            name, name=name, budget_type="COST", time_unit="MONTHLY",
            limit_amount=f"{monthly_limit_usd:.2f}", limit_unit="USD",
            cost_filters=[{"name": "TagKeyValue", "values": [f"user:{cost_tag[0]}${cost_tag[1]}"]}],
            notifications=notifications, tags=tags, opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"name": self.budget.name})
