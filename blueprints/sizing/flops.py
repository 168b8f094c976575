"""Compute a run needs and how long it takes on N GPUs at an assumed model FLOPs utilization (MFU).

Why these rules:
- Dense transformer training costs about 6 x parameters x tokens FLOPs (2 for the forward pass, 4 for the
  backward), Kaplan et al. 2020, "Scaling Laws for Neural Language Models", section 2.1 (C = 6ND). Inference
  is the forward pass only: 2 x parameters x tokens.
- MFU default 0.40: Llama 3 pre-training on 16K H100s ran at 38-43% BF16 MFU (Dubey et al. 2024, "The Llama 3
  Herd of Models", Table 4). Users set their own with --mfu.
- Peak throughput per GPU is the datasheet's dense figure in blueprints/catalog/gpu_models.yaml. FP8 uses the
  BF16 figure (the catalog lists no FP8 peak), which overstates time on GPUs with FP8 tensor cores.
"""

from __future__ import annotations

from typing import Optional

from ..catalog.gpu_models import gpu_models
from .workload import Workload

SECONDS_PER_HOUR = 3600.0


def total_flops(w: Workload) -> float:
    per_token = 6.0 if w.mode == "training" else 2.0
    return per_token * w.params * w.total_tokens


def rule(w: Workload) -> str:
    return ("6 x params x tokens (dense transformer training; Kaplan et al. 2020)" if w.mode == "training"
            else "2 x params x tokens (forward pass only)")


def peak_tflops(gpu_model: str, precision: str) -> Optional[float]:
    """Dense peak TFLOPS of one GPU at ``precision`` (None: the datasheet gives no figure for it)."""
    facts = gpu_models()[1].get(gpu_model)
    if facts is None:
        return None
    if precision in ("bf16", "fp8"):
        return facts.bf16_tflops
    if precision in ("fp16", "int8", "int4"):
        return facts.fp16_tflops if facts.fp16_tflops is not None else facts.bf16_tflops
    return None  # fp32: the catalog lists no FP32 peak


def hours(flops: float, gpus: int, peak: float, mfu: float) -> float:
    return flops / (gpus * peak * 1e12 * mfu) / SECONDS_PER_HOUR
