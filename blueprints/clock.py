"""The plan's "today": BLUEPRINTS_TODAY (YYYY-MM-DD) when set, else the current UTC date.

Dated judgements (a capacity block already over, a chart or add-on past its end of support) must come out the same
on every run of a plan that is reviewed, and be testable with fixed dates, so the date is an input.
"""

from __future__ import annotations

import datetime as dt
import os

from .errors import BlueprintError

ENV = "BLUEPRINTS_TODAY"


def today() -> dt.date:
    value = os.environ.get(ENV, "").strip()
    if not value:
        return dt.datetime.now(dt.timezone.utc).date()
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise BlueprintError(ENV, f"{value!r} is not a date (YYYY-MM-DD)") from None
