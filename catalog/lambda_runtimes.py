"""When AWS Lambda deprecates each managed runtime (lambda_runtimes.yaml), so a policy can say a function's runtime
no longer gets security patches (Security Hub Lambda.2)."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from pathlib import Path
from typing import Optional

from .yamlfile import load_yaml

RUNTIMES_FILE = Path(__file__).with_name("lambda_runtimes.yaml")


@lru_cache(maxsize=1)
def table() -> dict:
    return load_yaml(RUNTIMES_FILE)


def deprecation(runtime: str) -> Optional[dt.date]:
    """The day AWS deprecates ``runtime`` (an identifier such as python3.9); None where the table has none."""
    return table()["deprecated"].get(runtime)


def source() -> str:
    data = table()
    return data["sources"][data["source"]]
