"""The pinned upstream charts (charts.yaml) as typed records."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

CHARTS_FILE = Path(__file__).with_name("charts.yaml")


class Chart(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    repo: str
    chart: str
    version: str
    source: str


@lru_cache(maxsize=1)
def charts() -> dict[str, Chart]:
    return {name: Chart(**entry) for name, entry in yaml.safe_load(CHARTS_FILE.read_text()).items()}
