"""A model at minReplicas 0 (issue #35 item 11): how long its first request waits, and what the client sees meanwhile.

The plan states it per model from what it registers (the ScaledObject's polling interval, the endpoint picker's
scrape interval) and catalog facts (catalog/serving_engine.yaml: image size, engine start, node boot, the picker's
refusal; catalog/shapes.yaml: the node's network baseline), each step with its source or marked an estimate with its
assumptions. Weights load at the node's sustained network bandwidth (the Run:ai streamer from S3, the OSS volume on
ACK): the model's weights at its precision (blueprints/sizing/memory.py) divided by that baseline.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

from catalog import load_catalog
from catalog.serving_engine import Figure, serving_engine
from components.kubernetes.inference_gateway import epp_name

from ..resolver import ResolvedNodeGroup, ResolvedPlan
from ..serving_spec import ModelSpec, replica_weights_bytes
from .engine import Registration

SCALED_OBJECT = "kubernetes:keda.sh/v1alpha1:ScaledObject"
POD_MONITOR = "kubernetes:monitoring.coreos.com/v1:PodMonitor"


def _seconds(text: Any) -> Optional[float]:
    match = re.fullmatch(r"([0-9]+)s", str(text))
    return float(match[1]) if match else None


def _named(regs: Sequence[Registration], type_: str, namespace: str, name: str) -> Optional[dict]:
    for r in regs:
        meta = r.inputs.get("metadata") or {}
        if r.type == type_ and meta.get("namespace") == namespace and meta.get("name") == name:
            return r.inputs
    return None


def _step(step: str, seconds: float, basis: str, source: str, estimate: bool) -> dict[str, Any]:
    return {"step": step, "seconds": round(seconds), "basis": basis, "source": source, "estimate": estimate}


def _figure(step: str, figure: Figure, seconds: float, basis: str) -> dict[str, Any]:
    engine = serving_engine()
    source = "estimate" if figure.estimate else engine.cite(figure.source)
    return _step(step, seconds, f"{basis}; {figure.assumptions}" if figure.estimate else basis, source, figure.estimate)


def _wake(scaled: dict, monitor: dict) -> dict[str, Any]:
    """From the first refusal to KEDA's scale-up: the picker's scrape interval, then KEDA's polling interval."""
    endpoints = (monitor.get("spec") or {}).get("podMetricsEndpoints") or []
    scrape = max([_seconds(e.get("interval")) or 0 for e in endpoints] or [0])
    polling = float((scaled.get("spec") or {}).get("pollingInterval", 30))  # KEDA's default: 30 s
    return _step(
        "wake",
        scrape + polling,
        f"the endpoint picker's refusal counter is scraped every {scrape:g} s and KEDA polls every {polling:g} s "
        "(the plan's PodMonitor and ScaledObject)",
        "this plan",
        False,
    )


def _node(m: ModelSpec, group: ResolvedNodeGroup) -> list[dict[str, Any]]:
    """A node for the replica (when its group keeps none) and vLLM's image on it."""
    engine = serving_engine()
    facts, at_zero = engine.cold_start, group.spec.min_nodes == 0
    return [
        _figure(
            "node boot",
            facts.node_boot_seconds,
            facts.node_boot_seconds.value if at_zero else 0,
            f"nodeGroups.{m.node_group} keeps {group.spec.min_nodes} nodes"
            + (", so a node is added" if at_zero else ""),
        ),
        _figure(
            "image pull",
            facts.image_unpack_bytes_per_second,
            facts.image_bytes.value / facts.image_unpack_bytes_per_second.value,
            f"vLLM's image, {facts.image_bytes.value / 1e9:.1f} GB unpacked ({engine.cite(facts.image_bytes.source)}),"
            f" at {facts.image_unpack_bytes_per_second.value / 1e6:g} MB/s",
        ),
    ]


def _weights(m: ModelSpec, group: ResolvedNodeGroup) -> list[dict[str, Any]]:
    """The weights over the node's sustained network, then the engine's own start."""
    facts, shape = serving_engine().cold_start, group.shape
    weights, source = replica_weights_bytes(m), load_catalog().sources[shape.sources.specs]
    return [
        _step(
            "weight load",
            weights * 8 / (shape.network_baseline_gbps * 1e9),
            f"{weights / 1e9:.1f} GB of {m.model} weights at {m.precision} over {shape.instance_type}'s "
            f"{shape.network_baseline_gbps:g} Gbps sustained network ({source})",
            source,
            False,
        ),
        _figure(
            "engine start",
            facts.engine_start_seconds,
            facts.engine_start_seconds.value,
            "vLLM compiles and captures CUDA graphs",
        ),
    ]


def _clients() -> str:
    engine = serving_engine()
    refusal = engine.cold_start.refusal
    return (
        f"until a replica is ready the endpoint picker answers each inference request {refusal.status} with no "
        f"Retry-After header ({engine.cite(refusal.source)}), an ext_proc immediate response the Gateway's Envoy "
        "sends to the client as its own reply; the route declares no retry, so clients retry with backoff for the "
        "cold start; a request without a body (GET /v1/models) is answered 500 and wakes nothing"
    )


def cold_starts(resolved: ResolvedPlan, regs: Sequence[Registration]) -> list[dict[str, Any]]:
    """Per model whose ScaledObject lets it scale to zero: the steps from a first request to a ready replica."""
    serving, groups = resolved.spec.serving, {g.name: g for g in resolved.node_groups}
    out = []
    for name, m in serving.models.items():
        scaled = _named(regs, SCALED_OBJECT, serving.namespace, name)
        if scaled is None or (scaled.get("spec") or {}).get("minReplicaCount") != 0:
            continue
        monitor = _named(regs, POD_MONITOR, serving.namespace, epp_name(name)) or {}
        group = groups[m.node_group]
        steps = [_wake(scaled, monitor), *_node(m, group), *_weights(m, group)]
        out.append(
            {
                "model": name,
                "nodeGroup": m.node_group,
                "steps": steps,
                "totalSeconds": sum(s["seconds"] for s in steps),
                "clients": _clients(),
            }
        )
    return out
