"""When a commitment pays: break-even utilization, and the commitment level a usage forecast supports.

Why: a 1- or 3-year commitment (AWS Reserved Instance / Savings Plan, Alibaba Cloud subscription) is billed
for every hour of its term whether used or not. It beats on-demand once the instances are busy more than
commit rate / on-demand rate of the hours; below that it wastes money.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

HOURS_PER_MONTH = 730  # 8,760 hours a year / 12, as in catalog/service_prices.yaml
TERM_HOURS = {"commit-1y": 8760, "commit-3y": 3 * 8760}


def break_even_utilization(commit_usd_per_hour: float, on_demand_usd_per_hour: float) -> float:
    """Fraction of the term's hours the committed instances must be used for the commitment to pay."""
    return commit_usd_per_hour / on_demand_usd_per_hour


@dataclass(frozen=True)
class CommitmentAdvice:
    instances: int  # instances to commit to
    monthly_saving_usd: tuple[float, ...]  # expected saving each forecast month vs all on-demand
    commit_usd_per_hour: float
    on_demand_usd_per_hour: float

    @property
    def saving_usd(self) -> float:
        return round(sum(self.monthly_saving_usd), 2)


def saving(instances: int, monthly_instance_hours: Sequence[float], on_demand: float, commit: float) -> list[float]:
    """Per month: what committing ``instances`` saves against paying on-demand for the same usage."""
    covered = instances * HOURS_PER_MONTH
    return [on_demand * min(used, covered) - commit * covered for used in monthly_instance_hours]


def best_commitment(monthly_instance_hours: Sequence[float], on_demand: float, commit: float) -> CommitmentAdvice:
    """The whole number of instances whose commitment saves most over the forecast (0 when none pays)."""
    top = int(max(monthly_instance_hours, default=0) // HOURS_PER_MONTH) + 1
    best = max(range(top + 1), key=lambda n: (round(sum(saving(n, monthly_instance_hours, on_demand, commit)), 6), -n))
    months = tuple(round(x, 2) for x in saving(best, monthly_instance_hours, on_demand, commit))
    return CommitmentAdvice(best, months, commit, on_demand)
