"""CPU shapes for system node groups (system_shapes.yaml): specs and per-region prices with sources."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict

from .yamlfile import load_yaml

SYSTEM_SHAPES_FILE = Path(__file__).with_name("system_shapes.yaml")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RegionPrice(_Frozen):
    region: str
    usd_per_hour: float
    as_of: str
    source: Optional[str] = None  # a key of `sources` where this row's source is not the shape's `sources.price`


class SystemShapeSources(_Frozen):
    specs: str
    price: str


class SystemShape(_Frozen):
    cloud: Literal["aws", "alicloud"]
    instance_type: str
    vcpus: int
    memory_gib: int
    sources: SystemShapeSources
    prices: tuple[RegionPrice, ...]

    def price_in(self, region: str) -> Optional[RegionPrice]:
        return next((p for p in self.prices if p.region == region), None)


class SystemShapes(_Frozen):
    sources: dict[str, str]
    defaults: dict[str, str]
    shapes: tuple[SystemShape, ...]

    def get(self, instance_type: str) -> Optional[SystemShape]:
        return next((s for s in self.shapes if s.instance_type == instance_type), None)

    def default(self, cloud: str) -> SystemShape:
        shape = self.get(self.defaults[cloud])
        assert shape is not None, f"system_shapes.yaml: default {self.defaults[cloud]} is not listed"
        return shape


@lru_cache(maxsize=1)
def load_system_shapes(path: Path = SYSTEM_SHAPES_FILE) -> SystemShapes:
    raw = load_yaml(path)
    return SystemShapes(sources=raw["sources"], defaults=raw["defaults"], shapes=tuple(raw["shapes"]))
