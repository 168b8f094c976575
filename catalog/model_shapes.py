"""Published model architectures (model_shapes.yaml) for `size --model`: real shapes instead of derived ones."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field

from .yamlfile import load_yaml

MODEL_SHAPES_FILE = Path(__file__).with_name("model_shapes.yaml")


class ModelShape(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    params: float = Field(gt=0)
    active_params: Optional[float] = Field(None, gt=0)  # mixture-of-experts: parameters used per token
    layers: int = Field(gt=0)
    hidden_size: int = Field(gt=0)
    heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    vocab: int = Field(gt=0)
    context: int = Field(gt=0)
    source: str


@lru_cache(maxsize=1)
def model_shapes() -> tuple[dict[str, str], dict[str, ModelShape]]:
    raw = load_yaml(MODEL_SHAPES_FILE)
    return raw["sources"], {name: ModelShape(**facts) for name, facts in raw["models"].items()}


class NamedWorkload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    forward_flops: float = Field(gt=0)
    params: float = Field(gt=0)
    samples: float = Field(gt=0)
    epochs: float = Field(gt=0)
    mfu: float = Field(gt=0, le=1)
    source: str
    mfu_source: str


@lru_cache(maxsize=1)
def named_workloads() -> tuple[dict[str, str], dict[str, NamedWorkload]]:
    raw = load_yaml(MODEL_SHAPES_FILE)
    return raw["workload_sources"], {name: NamedWorkload(**facts) for name, facts in raw["workloads"].items()}
