"""What a vLLM model server takes in host memory at start, and what a replica's cold start is made of
(serving_engine.yaml): typed rows, each with its source or marked an estimate with its assumptions."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from .yamlfile import load_yaml

SERVING_ENGINE_FILE = Path(__file__).with_name("serving_engine.yaml")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Streamer(_Frozen):
    default_buffer_bytes: int
    source: str


class EngineAllocation(_Frozen):
    flag: str
    per_gpu: bool
    source: str


class Figure(_Frozen):
    value: float
    estimate: bool
    assumptions: str
    source: str


class EngineProcess(_Frozen):
    gib: float
    estimate: bool
    assumptions: str
    source: str


class Refusal(_Frozen):
    status: int
    retry_after: bool
    source: str


class ColdStart(_Frozen):
    node_boot_seconds: Figure
    image_bytes: Figure
    image_unpack_bytes_per_second: Figure
    engine_start_seconds: Figure
    refusal: Refusal


class ServingEngine(_Frozen):
    sources: dict[str, str]
    streamer: Streamer
    engine_allocations: tuple[EngineAllocation, ...]
    engine_process: EngineProcess
    cold_start: ColdStart

    def cite(self, key: str) -> str:
        """A source key as the plan prints it."""
        return self.sources[key]


@lru_cache(maxsize=1)
def serving_engine(path: Path = SERVING_ENGINE_FILE) -> ServingEngine:
    return ServingEngine.model_validate(load_yaml(path))
