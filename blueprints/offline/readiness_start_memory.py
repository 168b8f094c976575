"""Memory at start (issue #35 class check e): a model server's memory limit must cover what its process is
documented to take while it starts, or the kernel OOM-kills it while loading, on every restart: blocking.

Per serving container (a Deployment's, a LeaderWorkerSet leader's), from catalog/serving_engine.yaml:
- the Run:ai Model Streamer's host buffer when it loads with `--load-format runai_streamer`: min(the limit it is
  given, the bytes it streams), the limit being `--model-loader-extra-config` memory_limit, else the container's
  RUNAI_STREAMER_MEMORY_LIMIT, else the streamer's default (40 GB); -1 streams every byte at once, 0 holds the largest
  tensor (the embedding, vocabulary x hidden size); the bytes streamed are the model's weights at its precision;
- what vLLM allocates in host memory for the flags it is given (--cpu-offload-gb per GPU, --kv-offloading-size);
- the engine process itself (an estimate, stated as one).
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping, Optional, Sequence

from catalog.model_shapes import model_shapes
from catalog.serving_engine import serving_engine

from ..serving_spec import ModelSpec, replica_weights_bytes
from ..sizing.memory import BYTES
from .engine import Registration
from .index import index
from .readiness import BLOCKING, Finding
from .readiness_serving import MODEL, PRECISION, _flag, _kind, _meta, _servers

STREAMER_ENV = "RUNAI_STREAMER_MEMORY_LIMIT"
# Kubernetes resource quantities (apimachinery resource.Quantity): binary and decimal suffixes.
UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "": 1}
QUANTITY = re.compile(r"^([0-9.]+)(Ki|Mi|Gi|Ti|k|M|G|T|)$")
GIB = 2**30


def quantity_bytes(value: Any) -> Optional[float]:
    """A memory quantity in bytes, or None when it is not one this check reads."""
    match = QUANTITY.match(str(value))
    return float(match[1]) * UNITS[match[2]] if match else None


def _streamer_limit(args: Sequence[str], env: Sequence[Mapping[str, Any]]) -> tuple[int, str]:
    """The streamer's memory limit and where it comes from: vLLM's flag first (it sets the variable), then the env."""
    extra = _flag(args, "--model-loader-extra-config")
    if extra:
        try:
            limit = json.loads(extra).get("memory_limit")
        except (ValueError, AttributeError):
            limit = None
        if isinstance(limit, int):
            return limit, "--model-loader-extra-config memory_limit"
    for e in env:
        if e.get("name") == STREAMER_ENV and re.fullmatch(r"-?[0-9]+", str(e.get("value", ""))):
            return int(e["value"]), STREAMER_ENV
    return serving_engine().streamer.default_buffer_bytes, "the streamer's default"


def _streamer_buffer(args: Sequence[str], env: Sequence[Mapping[str, Any]], notes: Mapping[str, str]) -> float:
    """Bytes the streamer buffers in host memory: min(limit, weights), the largest tensor at 0, all at -1."""
    shape = model_shapes()[1][notes[MODEL]]
    precision = notes.get(PRECISION, "fp16")
    spec = ModelSpec.model_construct(model=notes[MODEL], precision=precision, max_context=1, max_batch=1)
    weights = replica_weights_bytes(spec)
    largest = shape.vocab * shape.hidden_size * BYTES[precision]
    limit, _ = _streamer_limit(args, env)
    if limit < 0:
        return weights
    return max(largest, min(limit, weights))


def _parts(container: Mapping[str, Any], notes: Mapping[str, str]) -> list[tuple[str, float]]:
    """(what, bytes) the container's process takes at start."""
    args = [str(a) for a in container.get("args") or []]
    env = container.get("env") or []
    parts: list[tuple[str, float]] = []
    if _flag(args, "--load-format") == "runai_streamer" and notes[MODEL] in model_shapes()[1]:
        _, source = _streamer_limit(args, env)
        parts.append((f"Run:ai streamer buffer ({source})", _streamer_buffer(args, env, notes)))
    gpus = int(_flag(args, "--tensor-parallel-size") or 1)
    for allocation in serving_engine().engine_allocations:
        value = _flag(args, allocation.flag)
        if value is not None and float(value) > 0:
            parts.append((f"{allocation.flag} {value}", float(value) * GIB * (gpus if allocation.per_gpu else 1)))
    process = serving_engine().engine_process
    parts.append(("the engine process (an estimate)", process.gib * GIB))
    return parts


def check(regs: Sequence[Registration]) -> list[Finding]:
    findings = []
    for server, pod, notes in _servers(index(regs)):
        name = f"{_kind(server)} {_meta(server).get('namespace')}/{_meta(server).get('name')}"
        for container in pod.get("containers") or []:
            limit = quantity_bytes(((container.get("resources") or {}).get("limits") or {}).get("memory"))
            parts = _parts(container, notes)
            need = sum(b for _, b in parts)
            if limit is None or need <= limit:
                continue
            detail = ", ".join(f"{what} {b / GIB:,.1f} GiB" for what, b in parts)
            findings.append(
                Finding(
                    "serving-memory-at-start",
                    BLOCKING,
                    name,
                    f"{name}: container {container.get('name')} takes {need / GIB:,.1f} GiB of host memory while it "
                    f"starts ({detail}) but is limited to {limit / GIB:,.1f} GiB: the kernel OOM-kills it while "
                    "loading, on every restart",
                    "bound the streamer's buffer (--model-loader-extra-config '{\"memory_limit\": BYTES}', as "
                    "serving.models sets it from the memory limit), or run the model on a group with more memory "
                    "per GPU",
                )
            )
    return findings
