"""RAM policy documents from typed statements; RAM uses the IAM-style grammar with `acs:` ARNs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import pulumi


@dataclass(frozen=True)
class RamStatement:
    actions: Sequence[str]
    resources: Sequence[pulumi.Input[str]] = ()
    effect: str = "Allow"
    principals: Optional[Mapping[str, Any]] = None
    conditions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"Effect": self.effect, "Action": sorted(self.actions)}
        if self.principals is not None:
            body["Principal"] = dict(self.principals)
        if self.resources:
            body["Resource"] = list(self.resources)
        if self.conditions:
            body["Condition"] = {op: dict(values) for op, values in self.conditions.items()}
        return body


def ram_policy_json(statements: Sequence[RamStatement]) -> pulumi.Output[str]:
    return pulumi.Output.json_dumps({"Version": "1", "Statement": [s.to_json() for s in statements]})
