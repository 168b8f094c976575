"""Does one serving replica fit its GPUs? The one answer the advisor, the spec check and the plan's readiness share.

Why one function (issue #37): the advisor once sized the KV cache at the request's prompt + output tokens and the
plan at maxContext x maxBatch, so a stack the advisor proposed was refused by the plan. Every caller now passes
the context and batch it means, and gets the same bytes back.

A replica holds the weights at its precision (memory.BYTES) and the KV cache of ``batch`` sequences of ``context``
tokens: 2 (K and V) x layers x kv_heads x head_dim x bytes per value per token (memory.py's formula). Tensor
parallelism above the KV heads replicates each KV head (vLLM gives every GPU at least one whole KV head), so the
cache is counted ``tp // kv_heads`` times then. The replica's tp x pp GPUs keep 20% headroom each (memory.HEADROOM).
"""

from __future__ import annotations

from dataclasses import dataclass

from .memory import BYTES, GIB, kv_bytes_per_value, kv_width, transformer_shape, usable_bytes
from .workload import Workload


@dataclass(frozen=True)
class ReplicaFit:
    weights_bytes: float
    kv_bytes: float  # the cache of the whole batch at the full context
    usable_bytes: float  # over all the replica's GPUs, after headroom
    kv_per_sequence: float

    @property
    def fits(self) -> bool:
        return self.weights_bytes + self.kv_bytes <= self.usable_bytes

    @property
    def weights_gib(self) -> float:
        return self.weights_bytes / GIB

    @property
    def kv_gib(self) -> float:
        return self.kv_bytes / GIB

    @property
    def usable_gib(self) -> float:
        return self.usable_bytes / GIB


def weights_bytes(w: Workload) -> float:
    """The weights one replica holds, at the workload's precision."""
    return w.params * BYTES[w.precision]


def kv_copies(w: Workload, tp: int) -> int:
    """How many times each KV head is held: tensor parallelism above the KV heads replicates them."""
    _, _, heads = transformer_shape(w)
    return max(1, tp // (w.kv_heads or heads))


def kv_per_token(w: Workload, tp: int = 1) -> float:
    """KV-cache bytes one token of one sequence takes on the whole replica."""
    _, layers, _ = transformer_shape(w)
    return 2 * layers * kv_width(w) * kv_bytes_per_value(w.precision) * kv_copies(w, tp)


def replica_fit(w: Workload, memory_gib: float, tp: int, context: int, batch: int, pp: int = 1) -> ReplicaFit:
    """Weights + KV cache of ``batch`` sequences of ``context`` tokens against tp x pp GPUs of ``memory_gib``."""
    per_sequence = kv_per_token(w, tp) * context
    return ReplicaFit(
        weights_bytes=weights_bytes(w),
        kv_bytes=per_sequence * batch,
        usable_bytes=tp * pp * usable_bytes(memory_gib),
        kv_per_sequence=per_sequence,
    )


def largest_batch(w: Workload, memory_gib: float, tp: int, context: int, pp: int = 1) -> int:
    """The most sequences of ``context`` tokens whose cache fits beside the weights (0: not even one)."""
    empty = replica_fit(w, memory_gib, tp, context, 0, pp)
    free = empty.usable_bytes - empty.weights_bytes
    batch = max(0, int(free // empty.kv_per_sequence)) if free > 0 else 0
    while batch and not replica_fit(w, memory_gib, tp, context, batch, pp).fits:  # float rounding at the edge
        batch -= 1
    return batch
