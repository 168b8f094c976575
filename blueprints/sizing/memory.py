"""GPU memory a model needs, broken down with the formula for each part, and GPUs per replica per GPU model.

Why these formulas (and where they come from):
- Model states, mixed precision with Adam: 2 bytes of fp16/bf16 weights + 2 of gradients + K = 12 of optimizer
  state (fp32 master weights, momentum and variance, 4 each) = 16 bytes per parameter. Rajbhandari et al. 2020,
  "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", section 3.1 (K = 12). ZeRO stage 1
  divides the optimizer states by the data-parallel degree Nd, stage 2 also the gradients, stage 3 (and PyTorch
  FSDP's full sharding) also the weights: (2 + 2 + K) x params / Nd (the paper's Figure 1).
- Weights alone: params x bytes per value (fp32 4, fp16/bf16 2, fp8/int8 1, int4 0.5); the seeds' worked example
  is GPT-3's 175B parameters in FP16 = 350 GB.
- Activations per transformer layer (16-bit), Korthikanti et al. 2022, "Reducing Activation Recomputation in
  Large Transformer Models", section 4: s*b*h*(34 + 5*a*s/h) bytes without recomputation, 34*s*b*h with selective
  recomputation, 2*s*b*h (the layer input) with full recomputation.
- KV cache for inference: 2 (K and V) x layers x kv_heads x head_dim x seq len x batch x bytes per value
  (kv_heads = heads without grouped-query attention, so kv_heads x head_dim = hidden). Stored in 16 bits (vLLM's
  default kv_cache_dtype "auto" keeps the activation dtype), 1 byte when the model runs in fp8.
- Headroom: the seeds reserve 20% of GPU memory as buffer (seed 001, "训练时需预留20%缓冲空间"); CUDA context,
  fragmentation and communication buffers live there.
Units: GB = 10^9 bytes (how model sizes are quoted); GPU memory in the catalog is GiB (2^30 bytes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from .workload import Workload

GB = 1e9
GIB = 2**30
HEADROOM = 0.20  # seed 001: keep 20% of GPU memory free

BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}
# Training keeps weights and gradients in the compute precision; fp8 training (Transformer Engine) still keeps
# bf16 weights and gradients, so its model states are counted as bf16's.
TRAIN_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 2.0}
# Optimizer state bytes per parameter: mixed precision keeps an fp32 master copy (4) besides the moments.
OPTIMIZER_BYTES = {
    ("adam", True): 12.0,
    ("adamw", True): 12.0,
    ("sgd", True): 8.0,
    ("adam", False): 8.0,
    ("adamw", False): 8.0,
    ("sgd", False): 4.0,
}
# Transformer shape when the user gives none: hidden/layers = 128 (GPT-3 175B: 12288/96; LLaMA 7B: 4096/32)
# and params = 12 x layers x hidden^2 (Kaplan et al. 2020, section 2.1, non-embedding parameters).
ASPECT = 128


@dataclass(frozen=True)
class Part:
    name: str
    bytes: float
    formula: str
    sharded: bool  # divided by the data-parallel degree under the chosen sharding

    @property
    def gb(self) -> float:
        return self.bytes / GB


@dataclass(frozen=True)
class MemoryBreakdown:
    parts: tuple[Part, ...]
    shape: tuple[int, int, int]  # hidden, layers, heads used for activations / KV cache
    sharding: str

    @property
    def total_bytes(self) -> float:
        return sum(p.bytes for p in self.parts)

    @property
    def total_gb(self) -> float:
        return self.total_bytes / GB

    def per_gpu_bytes(self, gpus: int) -> float:
        """Bytes on each of ``gpus`` GPUs: sharded parts split evenly; the rest is held by every GPU under
        plain data parallel and ZeRO-1/2, and split by tensor/pipeline parallelism otherwise (see gpus_per_replica)."""
        sharded = sum(p.bytes for p in self.parts if p.sharded)
        whole = sum(p.bytes for p in self.parts if not p.sharded)
        return whole + sharded / gpus

    def part(self, name: str) -> Part:
        return next(p for p in self.parts if p.name == name)


def kv_width(w: Workload) -> int:
    """kv_heads x head_dim: the K (or V) values each layer caches per token."""
    hidden, _, heads = transformer_shape(w)
    return (w.kv_heads or heads) * (hidden // heads)


def kv_bytes_per_value(precision: str) -> float:
    return 1.0 if precision == "fp8" else 2.0


def transformer_shape(w: Workload) -> tuple[int, int, int]:
    """(hidden, layers, heads): the user's or --model's, else derived from the parameter count."""
    hidden = w.hidden_size or int(round((w.params * ASPECT / 12) ** (1 / 3) / 64) * 64) or 64
    layers = w.layers or max(1, round(w.params / (12 * hidden * hidden)))
    heads = w.heads or max(1, hidden // 128)
    return hidden, layers, heads


def breakdown(w: Workload) -> MemoryBreakdown:
    hidden, layers, heads = transformer_shape(w)
    p, s, b = w.params, w.seq_len, w.micro_batch
    if w.mode == "inference":
        wb = BYTES[w.precision]
        kv_bytes, width = kv_bytes_per_value(w.precision), kv_width(w)
        parts = (
            Part("weights", p * wb, f"params x {wb:g} B ({w.precision})", False),
            Part(
                "kv_cache",
                2 * layers * width * s * b * kv_bytes,
                f"2 x layers({layers}) x kv_heads x head_dim({width}) x seq({s}) x batch({b}) x {kv_bytes:g} B",
                False,
            ),
        )
        return MemoryBreakdown(parts, (hidden, layers, heads), "none")
    tb = TRAIN_BYTES[w.precision]
    mixed = w.precision != "fp32"
    k = OPTIMIZER_BYTES[(w.optimizer, mixed)]
    stage = {"dp": 0, "zero1": 1, "zero2": 2, "zero3": 3, "fsdp": 3}[w.sharding]
    if w.recompute == "none":
        per_layer, text = s * b * hidden * (34 + 5 * heads * s / hidden), "s*b*h*(34 + 5*a*s/h)"
    elif w.recompute == "selective":
        per_layer, text = 34 * s * b * hidden, "34*s*b*h"
    else:
        per_layer, text = 2 * s * b * hidden, "2*s*b*h"
    activations = Part(
        "activations",
        per_layer * layers,
        f"layers({layers}) x {text} (s={s}, b={b}, h={hidden}, a={heads}; {w.recompute} recomputation)",
        False,
    )
    if w.flops_per_sample is not None:  # no transformer shape to size a vision model's activations by
        activations = Part(
            "activations", 0.0, "not modelled for non-transformer work (sized by FLOPs per sample)", False
        )
    parts = (
        Part("weights", p * tb, f"params x {tb:g} B", stage >= 3),
        Part("gradients", p * tb, f"params x {tb:g} B", stage >= 2),
        Part(
            "optimizer_states",
            p * k,
            f"params x {k:g} B ({w.optimizer}{', fp32 master copy' if mixed else ''})",
            stage >= 1,
        ),
        activations,
    )
    return MemoryBreakdown(parts, (hidden, layers, heads), w.sharding)


def usable_bytes(memory_gib: float) -> float:
    return memory_gib * GIB * (1 - HEADROOM)


def gpus_per_replica(mem: MemoryBreakdown, memory_gib: float, limit: int = 4096) -> Optional[int]:
    """Fewest GPUs of ``memory_gib`` that hold one replica (None: more than ``limit``).

    Sharded parts (ZeRO/FSDP) are divided over the GPUs; what is not sharded must fit on each GPU, unless the
    sharding is plain data parallel, where tensor/pipeline parallelism splits everything (the seeds' rule:
    total memory / memory per GPU)."""
    usable = usable_bytes(memory_gib)
    if mem.sharding in ("dp", "none"):
        need = math.ceil(mem.total_bytes / usable)
        return need if need <= limit else None
    whole = mem.total_bytes - sum(p.bytes for p in mem.parts if p.sharded)
    # Tensor/pipeline parallelism over everything always works: total / usable. ZeRO alone works when what each
    # GPU holds whole fits beside its share of the sharded parts. The fewer of the two, so that more memory per
    # GPU can never need more GPUs (the H100 18 / H200 36 inversion the issue found for 70B).
    need = math.ceil(mem.total_bytes / usable)
    if whole < usable:
        need = min(need, max(1, math.ceil((mem.total_bytes - whole) / (usable - whole))))
    return need if need <= limit else None
