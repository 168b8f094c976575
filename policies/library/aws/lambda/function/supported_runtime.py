"""Lambda functions run on a runtime AWS still patches (Security Hub Lambda.2, severity Medium).

The deprecation dates are catalog facts (catalog/lambda_runtimes.yaml, with sources). A runtime is judged against
the plan's today: BLUEPRINTS_TODAY when set (the variable blueprints.clock reads; a policy imports nothing of
blueprints), else the current UTC date, so a reviewed plan gives the same verdict on every run. Container-image
functions name no runtime and are not judged.
"""

import datetime as dt
import os

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule

try:  # the wheel ships the catalog as blueprints.catalog, next to this library (setup.py)
    from .....catalog import lambda_runtimes
except ImportError:  # the repository: the top-level package at the bottom of the layers
    from catalog import lambda_runtimes


def today() -> dt.date:
    try:
        return dt.date.fromisoformat(os.environ.get("BLUEPRINTS_TODAY", "").strip())
    except ValueError:
        return dt.datetime.now(dt.timezone.utc).date()


def check(props, config, args):
    runtime = props.get("runtime")
    deprecated = lambda_runtimes.deprecation(str(runtime)) if runtime else None
    if deprecated is not None and deprecated <= today():
        yield f"runtime {runtime} was deprecated on {deprecated.isoformat()}: it gets no security patches"


RULE = ResourceRule(
    description="Lambda functions must use a runtime that AWS has not deprecated.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub Lambda.2",
        "hipaa": HIPAA.format("164.308(a)(1)(ii)(B)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.4 入侵防范"),
    },
    remediation="Move the function to a supported runtime of its language (python3.13, nodejs22.x, java21...) "
    "and test it there; AWS Lambda's runtimes page lists each deprecation date.",
    url=SECURITY_HUB.format("lambda"),
    types=("aws:lambda/function:Function",),
    check=check,
)
