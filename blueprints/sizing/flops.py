"""Compute a run needs and how long it takes on N GPUs at an assumed model FLOPs utilization (MFU).

Why these rules:
- Dense transformer training costs about 6 x parameters x tokens FLOPs (2 for the forward pass, 4 for the
  backward), Kaplan et al. 2020, "Scaling Laws for Neural Language Models", section 2.1 (C = 6ND). Inference
  is the forward pass only: 2 x parameters x tokens.
- MFU default 0.40: Llama 3 pre-training on 16K H100s ran at 38-43% BF16 MFU (Dubey et al. 2024, "The Llama 3
  Herd of Models", Table 4). Users set their own with --mfu.
- Peak throughput per GPU is the datasheet's dense figure for the precision in catalog/gpu_models.yaml
  (int8 uses INT8 TOPS; int4 is weight-only and computes in fp16). A GPU without a figure gets no time or cost,
  and the output says why (peak_and_reason).
"""

from __future__ import annotations

from typing import Optional

from catalog.gpu_models import gpu_models

from .workload import Workload

SECONDS_PER_HOUR = 3600.0


VISION_TRAINING_FACTOR = 3.0  # forward + backward (activations and weights): 3 x the forward pass


def total_flops(w: Workload) -> float:
    if w.flops_per_sample is not None:
        factor = VISION_TRAINING_FACTOR if w.mode == "training" else 1.0
        return factor * w.flops_per_sample * w.samples * w.epochs  # type: ignore[operator]
    per_token = 6.0 if w.mode == "training" else 2.0
    return per_token * w.compute_params * w.total_tokens


def rule(w: Workload) -> str:
    if w.flops_per_sample is not None:
        return (
            f"{'3 x ' if w.mode == 'training' else ''}forward FLOPs per sample ({w.flops_per_sample:.3g}) x "
            f"samples ({w.samples:.6g}) x epochs ({w.epochs:g})"
        )
    which = "active params (mixture of experts)" if w.active_params else "params"
    return (
        f"6 x {which} x tokens (dense transformer training; Kaplan et al. 2020)"
        if w.mode == "training"
        else f"2 x {which} x tokens (forward pass only)"
    )


def peak_and_reason(gpu_model: str, precision: str) -> tuple[Optional[float], str]:
    """Dense peak TFLOPS of one GPU at ``precision``, or None and why the catalog has no figure."""
    facts = gpu_models()[1].get(gpu_model)
    if facts is None:
        return None, f"{gpu_model} is not in gpu_models.yaml"
    return facts.peak(precision)


def nearest_precisions(gpu_model: str, precision: str, allowed: tuple[str, ...], count: int = 2) -> list[str]:
    """The ``allowed`` precisions ``gpu_model`` has a figure for, nearest ``precision`` in bytes per value first
    (T4 has no bf16: fp16, then int8), what the output offers instead of a shape silently missing."""
    from .memory import BYTES

    have = [p for p in allowed if p != precision and peak_tflops(gpu_model, p) is not None]
    return sorted(have, key=lambda p: (abs(BYTES[p] - BYTES[precision]), -BYTES[p]))[:count]


def no_figure_reason(gpu_model: str, precision: str, allowed: tuple[str, ...]) -> str:
    """Why ``gpu_model`` cannot be timed at ``precision``, and the nearest precisions it can."""
    _, why = peak_and_reason(gpu_model, precision)
    nearest = nearest_precisions(gpu_model, precision, allowed)
    offer = f"; nearest: --precision {' or '.join(nearest)}" if nearest else ""
    return f"{gpu_model} has no {precision} figure ({why}){offer}"


def peak_tflops(gpu_model: str, precision: str) -> Optional[float]:
    """Dense peak TFLOPS of one GPU at ``precision`` (None: the datasheet gives no figure for it)."""
    return peak_and_reason(gpu_model, precision)[0]


def hours(flops: float, gpus: int, peak: float, mfu: float) -> float:
    return flops / (gpus * peak * 1e12 * mfu) / SECONDS_PER_HOUR
