"""Per-GPU performance figures (gpu_models.yaml) and the acceptance check's expectation for a shape."""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional

from pydantic import BaseModel, ConfigDict

from . import Shape
from .yamlfile import load_yaml

GPU_MODELS_FILE = Path(__file__).with_name("gpu_models.yaml")


class SustainedMatmul(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    fraction: float  # of the datasheet's dense fp16/bf16 figure, the weakest a healthy GPU sustains
    source: str


class GpuModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    bf16_tflops: Optional[float]
    fp16_tflops: Optional[float]
    fp8_tflops: Optional[float] = None
    int8_tops: Optional[float] = None
    fp32_tflops: Optional[float] = None
    memory_gbps: Optional[float]
    host_link_gbps: Optional[float]
    gpu_link_gbps: Optional[float]
    source: str
    no_figure: dict[str, str] = {}  # precision -> why the datasheet gives no figure for it
    sustained_matmul: Optional[SustainedMatmul] = None

    def peak(self, precision: str) -> tuple[Optional[float], str]:
        """Dense peak at ``precision`` and, when there is none, the reason (int4 weight-only computes in fp16)."""
        field = {
            "bf16": "bf16_tflops",
            "fp16": "fp16_tflops",
            "fp8": "fp8_tflops",
            "int8": "int8_tops",
            "int4": "fp16_tflops",
            "fp32": "fp32_tflops",
        }[precision]
        value = getattr(self, field)
        if value is not None:
            return value, ""
        key = "fp16" if precision == "int4" else precision
        return None, self.no_figure.get(key, f"no sourced {key} figure")


@lru_cache(maxsize=1)
def gpu_models() -> tuple[dict[str, str], dict[str, GpuModel]]:
    raw = load_yaml(GPU_MODELS_FILE)
    return raw["sources"], {name: GpuModel(**facts) for name, facts in raw["models"].items()}


MARGIN = 0.10  # a node must sustain within 10% of the weakest healthy measurement


def matmul_threshold(model: GpuModel) -> float:
    """The fraction of the datasheet matmul figure a node of ``model`` must sustain.

    Why per model: a power cap decides what a GPU sustains (a 70 W T4 sustains about 37% of its datasheet figure, a
    700 W H100 about 65%), so one fraction fails every healthy T4 or passes a slow H100. A model with no sourced
    sustained figure is judged at the lowest threshold of the measured ones: loose, but it never gates healthy nodes.
    """
    measured = [m.sustained_matmul.fraction for m in gpu_models()[1].values() if m.sustained_matmul]
    fraction = model.sustained_matmul.fraction if model.sustained_matmul else min(measured)
    return math.floor(fraction * (1 - MARGIN) * 100) / 100


def acceptance_expectation(shape: Shape, thresholds: Optional[Mapping[str, float]] = None) -> dict[str, Any]:
    """What acceptance/gpu_check.py must see on a node of ``shape`` (its --expect JSON)."""
    model = gpu_models()[1][shape.gpu.model]
    multi_gpu_link = model.gpu_link_gbps if shape.gpu.interconnect in ("nvlink", "nvswitch") else model.host_link_gbps
    return {
        "gpu_model": shape.gpu.model,
        "gpu_count": shape.gpu.count,
        "bf16_tflops": model.bf16_tflops,
        "fp16_tflops": model.fp16_tflops,
        "memory_gbps": model.memory_gbps,
        "host_link_gbps": model.host_link_gbps,
        "gpu_link_gbps": multi_gpu_link if shape.gpu.count > 1 else None,
        "thresholds": {"matmul": matmul_threshold(model), **(thresholds or {})},
    }


def mig_layouts(model: str) -> dict[str, dict[str, int]]:
    """The GPU Operator's MIG layouts a GPU model takes (`all-1g.10gb` -> {"1g.10gb": 7}: GPU instances per GPU);
    empty for a model without MIG. `all-disabled` (whole GPUs) is valid everywhere and not listed. Source:
    gpu_models.yaml `mig_source`."""
    return dict(_mig()[1].get(model, {}))


def mig_models() -> list[str]:
    """The GPU models with MIG layouts."""
    return list(_mig()[1])


def mig_source() -> str:
    return _mig()[0]


@lru_cache(maxsize=1)
def _mig() -> tuple[str, dict[str, dict[str, dict[str, int]]]]:
    raw = load_yaml(GPU_MODELS_FILE)
    return raw["mig_source"], {m: {k: dict(v) for k, v in layouts.items()} for m, layouts in raw["mig"].items()}
