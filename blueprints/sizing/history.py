"""`size --usage-history FILE`: forecast 12 months of GPU-hours per shape and the commitment each supports.

Why statsmodels, and why lazily: Holt's damped-trend exponential smoothing (Holt-Winters with a yearly season
once two years of history exist) is a maintained, well-understood forecaster for short monthly series, but
statsmodels pulls numpy/scipy/pandas, which `make plan` must not need. It is pinned in requirements-advisor.txt
and imported only here.

The file: CSV with a header `month,instance_type,gpu_hours` (and optionally `region`), one row per shape and
month (YYYY-MM), consecutive months per shape, hours >= 0. Anything else is one line naming the file, row and
field, exit 2.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from catalog import load_catalog
from catalog.prices import quote

from ..errors import BlueprintError
from ..inputs import USAGE_HISTORY_BYTES, read_text
from .commitments import HOURS_PER_MONTH, CommitmentAdvice, best_commitment, break_even_utilization

REQUIRED = ("month", "instance_type", "gpu_hours")
# GPU-hours of one shape in one month: 10**9 is more than a million GPUs busy for the longest month (744 h). The
# forecaster's arithmetic on 1e308 overflowed to inf and nan and then ran for minutes (issue #36).
MAX_GPU_HOURS = 1e9
HORIZON = 12
MIN_MONTHS = 3
INSTALL = "pip install -r requirements-advisor.txt"


@dataclass(frozen=True)
class ShapeForecast:
    instance_type: str
    region: str
    history: tuple[tuple[str, float], ...]  # (month, GPU-hours)
    forecast: tuple[tuple[str, float], ...]
    method: str
    advice: Optional[CommitmentAdvice]
    why_none: Optional[str] = None
    commit_source: Optional[str] = None


def _month(text: str, where: str) -> dt.date:
    try:
        return dt.datetime.strptime(text.strip(), "%Y-%m").date()
    except ValueError:
        raise BlueprintError(where, f"month {text!r} is not YYYY-MM") from None


def _next(month: dt.date) -> dt.date:
    return dt.date(month.year + month.month // 12, month.month % 12 + 1, 1)


def _hours(text: Optional[str], where: str) -> float:
    """One month's GPU-hours: a finite number from 0 to MAX_GPU_HOURS."""
    try:
        hours = float(text)  # type: ignore[arg-type] - None (a short row) is refused below
    except (TypeError, ValueError):
        raise BlueprintError(where, f"{text!r} is not a number") from None
    if not math.isfinite(hours):  # nan was once reported as "negative"; inf and nan reach the forecaster
        raise BlueprintError(where, f"{text!r} is not a finite number of hours")
    if hours < 0:
        raise BlueprintError(where, f"{text} is negative; allowed: hours >= 0")
    if hours > MAX_GPU_HOURS:
        raise BlueprintError(
            where,
            f"{text} GPU-hours in a month is more than {MAX_GPU_HOURS:.0e} (a million GPUs busy all month); "
            "allowed: 0 to that",
        )
    return hours


def read_history(path: Path) -> dict[tuple[str, str], list[tuple[dt.date, float]]]:
    """{(instance type, region): [(month, GPU-hours)...]} in month order, or BlueprintError naming the problem."""
    name = str(path)
    if not os.path.lexists(path):
        raise BlueprintError("--usage-history", f"{name} does not exist")
    catalog = load_catalog()
    text = read_text(path, USAGE_HISTORY_BYTES, name, "CSV file of month,instance_type,gpu_hours")
    try:
        rows = list(csv.DictReader(text.splitlines()))
    except csv.Error as exc:
        raise BlueprintError(name, f"not a CSV file ({exc})") from None
    header = rows[0].keys() if rows else []
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise BlueprintError(name, f"missing column {missing[0]!r}; columns: month,instance_type,gpu_hours[,region]")
    series: dict[tuple[str, str], dict[dt.date, float]] = {}
    for number, row in enumerate(rows, start=2):
        where = f"{name}: row {number}"
        shape = catalog.get((row["instance_type"] or "").strip())
        if shape is None:
            raise BlueprintError(
                f"{where} instance_type",
                f"{row['instance_type']!r} is not in the catalog; shapes: see catalog/shapes.yaml",
            )
        month = _month(row["month"] or "", f"{where} month")
        hours = _hours(row["gpu_hours"], f"{where} gpu_hours")
        region = (row.get("region") or "").strip() or shape.home_region
        key = (shape.instance_type, region)
        if month in series.setdefault(key, {}):
            raise BlueprintError(f"{where} month", f"{shape.instance_type} {region} has {row['month']} twice")
        series[key][month] = hours
    if not series:
        raise BlueprintError(name, "no rows; one row per shape and month is needed")
    out = {}
    for key, by_month in series.items():
        months = sorted(by_month)
        month = months[0]
        for present in months[1:]:
            month = _next(month)
            if present != month:
                raise BlueprintError(
                    f"{name}: {key[0]} month",
                    f"{month:%Y-%m} is missing (a gap); allowed: consecutive months, 0 for a month without use",
                )
        if len(months) < MIN_MONTHS:
            raise BlueprintError(f"{name}: {key[0]}", f"{len(months)} months of history; at least {MIN_MONTHS} needed")
        out[key] = [(m, by_month[m]) for m in months]
    return out


def _forecast(values: list[float]) -> tuple[list[float], str]:
    try:
        import numpy as np
        from statsmodels.tsa.holtwinters import ExponentialSmoothing
    except ImportError:
        raise BlueprintError("--usage-history", f"needs statsmodels; install it with: {INSTALL}") from None
    import warnings

    y = np.asarray(values, dtype=float)
    if np.allclose(y, y[0]):
        return [float(y[0])] * HORIZON, "constant history"
    seasonal = len(y) >= 24
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter on short series; the fit is still usable
        model = ExponentialSmoothing(
            y,
            trend="add",
            damped_trend=True,
            seasonal="add" if seasonal else None,
            seasonal_periods=12 if seasonal else None,
            initialization_method="estimated",
        )
        fitted = model.fit()
        path = fitted.forecast(HORIZON)
    method = (
        "statsmodels Holt-Winters (damped additive trend, additive yearly season)"
        if seasonal
        else "statsmodels Holt (damped additive trend)"
    )
    return [max(0.0, float(v)) for v in path], method


def plan_commitments(path: Path) -> list[ShapeForecast]:
    catalog = load_catalog()
    out = []
    for (instance_type, region), history in sorted(read_history(path).items()):
        shape = catalog.get(instance_type)
        values = [h for _, h in history]
        forecast, method = _forecast(values)
        month = history[-1][0]
        months = []
        for _ in range(HORIZON):
            month = _next(month)
            months.append(f"{month:%Y-%m}")
        per_instance = [v / shape.gpu.count for v in forecast]
        od, commit = quote(instance_type, region), quote(instance_type, region, "commit-1y")
        advice, why, source = None, None, None
        if od is None or commit is None or not commit.exact:
            why = f"no sourced 1-year commitment price for {instance_type} in {region}"
        else:
            advice = best_commitment(per_instance, od.usd_per_hour, commit.usd_per_hour)
            source = f"{commit.cite()}; on-demand {od.cite()}"
        out.append(
            ShapeForecast(
                instance_type,
                region,
                tuple((f"{m:%Y-%m}", h) for m, h in history),
                tuple(zip(months, (round(v, 1) for v in forecast))),
                method,
                advice,
                why,
                source,
            )
        )
    return out


def history_json(results: list[ShapeForecast]) -> dict[str, Any]:
    return {
        "horizonMonths": HORIZON,
        "hoursPerMonth": HOURS_PER_MONTH,
        "shapes": [
            {
                "instanceType": r.instance_type,
                "region": r.region,
                "method": r.method,
                "forecastGpuHours": dict(r.forecast),
                "commitment": None
                if r.advice is None
                else {
                    "option": "commit-1y",
                    "instances": r.advice.instances,
                    "expectedSavingUsd": r.advice.saving_usd,
                    "commitUsdPerHour": r.advice.commit_usd_per_hour,
                    "onDemandUsdPerHour": r.advice.on_demand_usd_per_hour,
                    "breakEvenUtilization": round(
                        break_even_utilization(r.advice.commit_usd_per_hour, r.advice.on_demand_usd_per_hour), 3
                    ),
                    "source": r.commit_source,
                },
                **({"whyNone": r.why_none} if r.why_none else {}),
            }
            for r in results
        ],
    }


def render_history(path: Path, fmt: str) -> str:
    data = history_json(plan_commitments(path))
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n"
    lines = [f"Commitment plan from {path} ({HORIZON}-month forecast):"]
    bullet = "- " if fmt == "markdown" else "  "
    for s in data["shapes"]:
        total = sum(s["forecastGpuHours"].values())
        lines.append(f"{bullet}{s['instanceType']} ({s['region']}): {total:,.0f} GPU-hours forecast, {s['method']}")
        c = s["commitment"]
        if c is None:
            lines.append(f"{bullet}  no recommendation: {s['whyNone']}")
        else:
            lines.append(
                f"{bullet}  commit {c['instances']} instance(s) for 1 year: expected saving "
                f"${c['expectedSavingUsd']:,.2f} over {HORIZON} months (break-even utilization "
                f"{c['breakEvenUtilization']:.0%}; {c['source']})"
            )
    return "\n".join(lines) + "\n"
