"""Serving sizing: per shape, the tensor-parallel degree, batch, latency, throughput, replicas and cost per hour.

Why this model (a roofline, stated so it can be checked against measurements, see tests/test_sizing_serving.py):
- Prefill is compute-bound: 2 x active params x prompt tokens over TP x dense peak x MFU (the same --mfu as
  training, default 0.40). Time to first token = one request's prefill (queueing under load is not modelled).
- A decode step is memory-bandwidth-bound at the batch sizes serving uses: every step reads all weights plus the
  KV cache of every sequence in the batch, over TP x HBM bandwidth x MBU (memory-bandwidth utilization, default
  0.60: NVIDIA NIM's Llama 3.3 70B FP8 TP2 on H100 measured 18.6 ms per token at concurrency 1, which is 0.57 of
  the bandwidth roofline). The step is never shorter than its compute (2 x active params x batch FLOPs).
- Tensor parallelism within one node only, in degrees that divide the attention heads and either divide or are a
  multiple of the KV heads (Megatron/vLLM split heads across GPUs); the smallest degree that fits and meets the
  latency targets is chosen (more GPUs per replica cost more per token). TP communication is not modelled, which
  makes multi-GPU replicas optimistic (see the test's stated ratio band).
- Batch: what the KV cache allows at the full context (prompt + output) in the GPU memory the weights leave
  (20% headroom, seed 001), limited by the time-per-output-token target.
- A replica finishes batch requests every (batch x prefill + output tokens x step) seconds (continuous batching
  interleaves prefills with decode steps). Replicas: for the rate (or users / batch), plus the spare replicas
  the availability target may lose. Cost per hour around the clock; per million output tokens at the load asked.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, replace
from typing import Any, Optional

from rich.console import Console
from rich.table import Table

from catalog import Catalog, Shape, load_catalog
from catalog.gpu_models import gpu_models
from catalog.prices import OPTION_LABELS, Overrides, quote

from ..errors import BlueprintError
from . import flops as fl
from .candidates import Advice, Candidate, OptionCost, _pairs, cheapest_of, fleet_nodes, sale_marks
from .fit import kv_per_token, largest_batch, weights_bytes
from .memory import BYTES, breakdown, transformer_shape
from .prices_file import your_quote
from .risks import serving_risks
from .workload import MAX_BATCH, SERVED_PRECISIONS, Workload

HOURS_PER_MONTH = 730  # 24 x 365 / 12
SERVING_OPTIONS = ("on-demand", "spot", "commit-1y", "commit-3y")  # capacity blocks end; a service does not
MBU_SOURCE = (
    "NVIDIA NIM LLM benchmarking, Llama-3.3-70B-Instruct v1.8.0 on 2 x H100 80G fp8 TP2, concurrency 1: "
    "ITL 18.58 ms (docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance, read 2026-11-24)"
)


@dataclass(frozen=True)
class ReplicaPlan:
    tp: int
    max_batch: int
    batch: int
    ttft_s: float
    tpot_s: float  # one decode step at ``batch``
    tpot_1_s: float  # one decode step alone (the best latency this replica gives)
    requests_per_s: float
    output_tokens_per_s: float


def tp_degrees(heads: int, kv_heads: int, gpus_per_node: int) -> list[int]:
    """Tensor-parallel degrees one node can run: divide the heads; divide or be a multiple of the KV heads."""
    return [
        tp
        for tp in range(1, gpus_per_node + 1)
        if gpus_per_node % tp == 0 and heads % tp == 0 and (kv_heads % tp == 0 or tp % kv_heads == 0)
    ]


def _replica(w: Workload, shape: Shape, tp: int) -> tuple[Optional[ReplicaPlan], str]:
    facts = gpu_models()[1].get(shape.gpu.model)
    peak = fl.peak_tflops(shape.gpu.model, w.precision)
    if facts is None or facts.memory_gbps is None:
        return None, f"no sourced memory bandwidth for {shape.gpu.model}"
    if peak is None:
        return None, fl.no_figure_reason(shape.gpu.model, w.precision, SERVED_PRECISIONS)
    weights = weights_bytes(w)
    context = w.context
    max_batch = largest_batch(w, shape.gpu.memory_gib, tp, context)  # fit.py: the plan's own fit
    if max_batch < 1:
        return None, f"weights and one {context}-token sequence do not fit on {tp} x {shape.gpu.model}"
    if w.max_batch is not None and max_batch < w.max_batch:  # asked for: the stack's maxBatch must fit
        return None, (
            f"weights and {w.max_batch} {context}-token sequences do not fit on {tp} x {shape.gpu.model} "
            f"({max_batch} do)"
        )
    max_batch = min(max_batch, w.max_batch or MAX_BATCH)
    bandwidth = tp * facts.memory_gbps * 1e9 * w.mbu
    compute = tp * peak * 1e12 * w.mfu
    kv_read = kv_per_token(w, tp) * (w.input_tokens + w.output_tokens / 2)  # mean context over the decode

    def step(batch: int) -> float:
        return max((weights + batch * kv_read) / bandwidth, 2 * w.compute_params * batch / compute)

    prefill = 2 * w.compute_params * w.input_tokens / compute
    if w.ttft_ms is not None and prefill * 1e3 > w.ttft_ms:
        return None, f"time to first token {prefill * 1e3:,.0f} ms > {w.ttft_ms:g} ms on {tp} x {shape.gpu.model}"
    if w.tpot_ms is not None and step(1) * 1e3 > w.tpot_ms:
        return None, f"time per output token {step(1) * 1e3:,.1f} ms > {w.tpot_ms:g} ms on {tp} x {shape.gpu.model}"
    batch = max_batch
    if w.tpot_ms is not None:
        low, high = 1, max_batch  # largest batch whose step meets the target (step grows with the batch)
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if step(mid) * 1e3 <= w.tpot_ms else (low, mid - 1)
        batch = low
    if w.concurrency is not None:
        batch = min(batch, w.concurrency)
    cycle = batch * prefill + w.output_tokens * step(batch)
    rps = batch / cycle
    return ReplicaPlan(tp, max_batch, batch, prefill, step(batch), step(1), rps, rps * w.output_tokens), ""


def replica_plan(w: Workload, shape: Shape) -> tuple[Optional[ReplicaPlan], str]:
    """The smallest TP degree on ``shape`` that fits and meets the targets, or None and why not."""
    _, _, heads = transformer_shape(w)
    degrees = tp_degrees(heads, w.kv_heads or heads, shape.gpu.count)
    if not degrees:
        return None, f"no TP degree up to {shape.gpu.count} divides {heads} heads"
    reasons = []
    for tp in degrees:
        plan, why = _replica(w, shape, tp)
        if plan is not None:
            return plan, ""
        reasons.append(why)
    return None, reasons[-1]


@dataclass(frozen=True)
class ServingAdvice(Advice):
    plans: tuple[tuple[str, str, ReplicaPlan, int], ...] = ()  # (instance type, region, plan, replicas)

    def plan_for(self, c: Candidate) -> tuple[ReplicaPlan, int]:
        return next((p, r) for t, g, p, r in self.plans if (t, g) == (c.shape.instance_type, c.region))


def _replicas(w: Workload, plan: ReplicaPlan) -> int:
    if w.request_rate is not None:
        need = math.ceil(w.request_rate / plan.requests_per_s - 1e-9)
    else:
        need = math.ceil(w.concurrency / plan.batch)  # type: ignore[operator]
    return max(1, need) + w.spare_replicas


def _options(
    shape: Shape, region: str, nodes: int, w: Workload, prices: Optional[Overrides] = None
) -> tuple[OptionCost, ...]:
    out = []
    for option in SERVING_OPTIONS:
        q = your_quote(prices, shape.instance_type, region, option) or quote(shape.instance_type, region, option)
        if q is not None and option != "on-demand" and not q.exact:
            q = None  # spot and commitments are sold per region: never borrow another's
        label = OPTION_LABELS[shape.cloud][option]
        if q is None:
            out.append(
                OptionCost(
                    option,
                    label,
                    None,
                    None,
                    None,
                    note=f"no sourced {option} price for {shape.instance_type} in {region}",
                )
            )
            continue
        note = q.note
        if option == "spot":
            note = "; ".join(filter(None, [note, "spot nodes can be reclaimed: keep --spare-replicas"]))
        out.append(
            OptionCost(
                option, label, q, round(nodes * HOURS_PER_MONTH * q.usd_per_hour, 2), HOURS_PER_MONTH, None, note
            )
        )
    return tuple(out)


def sustained_requests_per_s(w: Workload, plan: ReplicaPlan, replicas: int) -> float:
    """Requests per second the replicas serve at full batch, the spare ones left out (they may be lost)."""
    return max(0, replicas - w.spare_replicas) * plan.requests_per_s


def served_tokens_per_s(w: Workload, plan: ReplicaPlan, replicas: int) -> float:
    """Output tokens per second at the load asked: the rate's, every user's batch slot decoding, or (a fleet without
    a load) what the fleet sustains."""
    if w.request_rate is None and w.concurrency is None:
        return sustained_requests_per_s(w, plan, replicas) * w.output_tokens
    if w.request_rate is not None:
        return w.request_rate * w.output_tokens
    active = min(w.concurrency, (replicas - w.spare_replicas) * plan.batch)  # type: ignore[type-var]
    return active / plan.tpot_s


def _closest(why: str) -> tuple[int, str]:
    """Why-nots a user can act on first: a latency target missed, then memory, then a GPU without a figure."""
    order = ("time per output token", "time to first token", "do not fit", "divides")
    return next((i for i, text in enumerate(order) if text in why), len(order)), why


def _serving_candidate(
    w: Workload, shape: Shape, region: str, ask: bool, prices: Optional[Overrides]
) -> tuple[Candidate, Optional[tuple[str, str, ReplicaPlan, int]]]:
    """One shape in one region: a candidate with its plan and replicas, or an infeasible one saying why."""
    plan, why = replica_plan(w, shape)
    if plan is None:
        return Candidate(shape, region, None, 0, None, "-", why_not=why, on_request=ask), None
    have = fleet_nodes(w, shape)
    if have is not None:  # a fleet you have: every replica it holds
        nodes, replicas = have, have * (shape.gpu.count // plan.tp)
    else:
        replicas = _replicas(w, plan)
        nodes = math.ceil(replicas / (shape.gpu.count // plan.tp))
    if nodes > 1000:
        why = f"needs {nodes} nodes, more than a node group's 1000"
        return Candidate(shape, region, plan.tp, nodes, None, "-", why_not=why, on_request=ask), None
    options = _options(shape, region, nodes, w, prices)
    candidate = Candidate(shape, region, plan.tp, nodes, None, "-", options, on_request=ask)
    return candidate, (shape.instance_type, region, plan, replicas)


def _rank_key(c: Candidate) -> tuple:
    best = c.best()
    return (
        best.cost_to_finish_usd if best else math.inf,
        not (best and best.quote and best.quote.exact),
        c.shape.instance_type,
        c.region,
    )


def advise_serving(w: Workload, catalog: Optional[Catalog] = None, prices: Optional[Overrides] = None) -> ServingAdvice:
    """Every shape that can serve ``w``, ranked by cost per month; ``prices`` are the account's rates."""
    catalog = catalog or load_catalog()
    feasible, infeasible, plans = [], [], []
    for shape, region, ask in _pairs(catalog, w):
        candidate, sized = _serving_candidate(w, shape, region, ask, prices)
        (feasible if sized else infeasible).append(candidate)
        plans += [sized] if sized else []
    if not feasible:
        reasons = sorted({c.why_not for c in infeasible if c.why_not}, key=_closest)
        raise BlueprintError(
            "--model" if w.model else "--params",
            f"no shape can serve this ({reasons[0] if reasons else 'no shapes'}); allowed: "
            f"looser --ttft-ms/--tpot-ms, a lower precision (--precision fp8/int8/int4)",
        )
    ranked = sorted(feasible, key=_rank_key)
    cheapest = cheapest_of(ranked)
    by_shape = {(t, g): (p, r) for t, g, p, r in plans}

    def short(c: Candidate) -> tuple[str, ...]:
        """A fleet that cannot serve the rate asked of it says so."""
        if not w.fleet or w.request_rate is None:
            return ()
        plan, replicas = by_shape[(c.shape.instance_type, c.region)]
        return ("below --rps",) if sustained_requests_per_s(w, plan, replicas) < w.request_rate else ()

    marked = tuple(
        replace(c, marks=(("cheapest",) if c is cheapest else ()) + sale_marks(c) + short(c)) for c in ranked
    )
    return ServingAdvice(w, breakdown(w), 0.0, marked, tuple(infeasible), tuple(plans))


def _best_json(best, per_hour: float, tokens_per_hour: float) -> dict[str, Any]:
    """The cheapest way to pay for a candidate: per hour, per month, per million output tokens, its price's source."""
    return {
        "option": best.option,
        "usdPerHour": round(per_hour, 4),
        "usdPerMonth": best.cost_to_finish_usd,
        "usdPerMillionOutputTokens": round(per_hour / tokens_per_hour * 1e6, 4) if tokens_per_hour else None,
        "priceRegion": best.quote.region if best.quote else None,
        "source": best.quote.source if best.quote else None,
        "asOf": best.quote.as_of if best.quote else None,
    }


def _candidate_json(advice: ServingAdvice, c) -> dict[str, Any]:
    """One candidate shape: its serving plan (TP, batch, latencies, throughput), replicas and cheapest price."""
    w = advice.workload
    plan, replicas = advice.plan_for(c)
    best = c.best()
    per_hour = None if best is None else best.cost_to_finish_usd / HOURS_PER_MONTH  # type: ignore[operator]
    tokens_per_hour = served_tokens_per_s(w, plan, replicas) * 3600
    return {
        "instanceType": c.shape.instance_type,
        "cloud": c.shape.cloud,
        "region": c.region,
        "gpuModel": c.shape.gpu.model,
        "tensorParallel": plan.tp,
        "maxBatch": plan.max_batch,
        "batch": plan.batch,
        "ttftMs": round(plan.ttft_s * 1e3, 1),
        "tpotMs": round(plan.tpot_s * 1e3, 2),
        "tpotAloneMs": round(plan.tpot_1_s * 1e3, 2),
        "requestsPerSecondPerReplica": round(plan.requests_per_s, 3),
        "outputTokensPerSecondPerReplica": round(plan.output_tokens_per_s, 1),
        "replicas": replicas,
        "sustainedRequestsPerSecond": round(sustained_requests_per_s(w, plan, replicas), 3),
        "spareReplicas": w.spare_replicas,
        "nodes": c.nodes,
        "gpus": c.gpus,
        "marks": list(c.marks),
        "best": None if best is None else _best_json(best, per_hour, tokens_per_hour),
    }


def serving_json(advice: ServingAdvice) -> dict[str, Any]:
    w = advice.workload
    return {
        "formatVersion": 1,
        "kind": "serving",
        "workload": json.loads(w.model_dump_json()),
        "weightsGb": round(w.params * BYTES[w.precision] / 1e9, 3),
        "rules": {
            "prefill": "2 x active params x prompt tokens / (TP x dense peak x MFU)",
            "decode": "(weights + batch x KV cache read) / (TP x HBM bandwidth x MBU), at least its compute",
            "mfu": w.mfu,
            "mbu": w.mbu,
            "mbuSource": MBU_SOURCE,
            "costPerMonth": f"{HOURS_PER_MONTH} hours (24 x 7)",
        },
        "cheapest": None
        if advice.cheapest is None
        else {"instanceType": advice.cheapest.shape.instance_type, "region": advice.cheapest.region},
        "candidates": [_candidate_json(advice, c) for c in advice.candidates],
        "infeasible": [
            {"instanceType": c.shape.instance_type, "region": c.region, "whyNot": c.why_not, "onRequest": c.on_request}
            for c in advice.infeasible
        ],
        "notes": sale_notes(advice),
        "risks": [r.line() for r in pick_risks(advice)],
    }


def pick_risks(advice: ServingAdvice) -> list:
    """Risk notes (risks.py) of the cheapest candidate, the one --write-stack writes."""
    pick = advice.cheapest
    if pick is None:
        return []
    _, replicas = advice.plan_for(pick)
    return serving_risks(pick, replicas)


def sale_notes(advice: Advice) -> list[str]:
    """What the table could hide: shapes sold only on request or without a price (never "cheapest"), a region
    where nothing sold pay-as-you-go fits, and GPUs without a figure at the precision asked (with the nearest)."""
    notes = []
    where = ", ".join(advice.workload.regions) or "the regions asked"
    asked = [c for c in advice.candidates if c.on_request]
    if advice.candidates and advice.cheapest is None:
        notes.append(
            f"nothing sold pay-as-you-go with a price in {where} fits; "
            + (f"on request: {_shapes(asked)}" if asked else "every fitting shape is unpriced")
        )
    elif asked:
        notes.append(f"sold only on request (listed, never the cheapest; ask the provider's sales): {_shapes(asked)}")
    unpriced = [c for c in advice.candidates if c.best() is None]
    if unpriced:
        notes.append(f"no sourced price (listed, never the cheapest; --prices FILE gives yours): {_shapes(unpriced)}")
    by_reason: dict[str, list[str]] = {}
    for c in advice.infeasible:
        if c.why_not and "figure (" in c.why_not:
            by_reason.setdefault(c.why_not, []).append(c.shape.instance_type)
    notes += [f"{why} ({', '.join(sorted(set(types)))})" for why, types in by_reason.items()]
    return notes


def _shapes(cands: list[Candidate]) -> str:
    return ", ".join(
        f"{c.shape.instance_type} ({c.shape.gpu.count} x {c.shape.gpu.model}) in {c.region}" for c in cands
    )


def _lines(data: dict[str, Any]) -> list[str]:
    w, r = data["workload"], data["rules"]
    load = (
        f"{w['request_rate']:g} requests/s"
        if w["request_rate"] is not None
        else f"{w['concurrency']} concurrent users"
        if w["concurrency"] is not None
        else "what the fleet sustains"
    )
    targets = (
        ", ".join(
            filter(
                None, [w["ttft_ms"] and f"TTFT <= {w['ttft_ms']:g} ms", w["tpot_ms"] and f"TPOT <= {w['tpot_ms']:g} ms"]
            )
        )
        or "no latency targets"
    )
    return [
        f"serving {w['model'] or format(w['params'], '.3g') + ' params'}, {w['precision']} "
        f"(weights {data['weightsGb']:,.1f} GB): {load}, {w['input_tokens']} in / {w['output_tokens']} out "
        f"tokens per request, {targets}, {w['spare_replicas']} spare replica(s)",
        f"prefill = {r['prefill']} (MFU {r['mfu']:.0%}); decode step = {r['decode']} (MBU {r['mbu']:.0%}: "
        f"{r['mbuSource']})",
    ]


def render_serving_text(advice: ServingAdvice, width: int = 160) -> str:
    data = serving_json(advice)
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=True, highlight=False, soft_wrap=False)
    for line in _lines(data):
        console.print(line, markup=False)
    table = Table(title="serving candidates, ranked by cost per month (24 x 7)")
    rows = data["candidates"][:12]
    fleet = data["workload"]["fleet_gpus"] is not None or data["workload"]["fleet_nodes"] is not None
    marked = any(r["marks"] for r in rows)
    columns = ["#", "shape", "region", "TP", "batch", "TTFT ms", "TPOT ms", "tok/s/replica", "replicas"]
    columns += ["req/s"] * fleet + ["nodes", "$/hour", "$/month", "$/M out tok", "option"] + ["marks"] * marked
    for column in columns:
        table.add_column(column, overflow="fold")
    for i, r in enumerate(rows, 1):
        b = r["best"] or {}
        cells = [
            str(i),
            r["instanceType"],
            r["region"],
            str(r["tensorParallel"]),
            str(r["batch"]),
            f"{r['ttftMs']:,.0f}",
            f"{r['tpotMs']:.1f}",
            f"{r['outputTokensPerSecondPerReplica']:,.0f}",
            str(r["replicas"]),
        ]
        cells += [f"{r['sustainedRequestsPerSecond']:,.2f}"] * fleet
        cells += [
            str(r["nodes"]),
            _usd(b.get("usdPerHour")),
            _usd(b.get("usdPerMonth"), 0),
            _usd(b.get("usdPerMillionOutputTokens")),
            b.get("option", "-"),
        ]
        table.add_row(*cells, *([", ".join(r["marks"])] * marked))
    console.print(table)
    for note in data["notes"]:
        console.print(f"note: {note}", markup=False)
    for risk in data["risks"]:
        console.print(f"risk: {risk}", markup=False)
    console.print(
        f"{len(data['candidates'])} feasible candidates, {len(data['infeasible'])} cannot serve it", markup=False
    )
    return buffer.getvalue()


def _usd(v: Optional[float], digits: int = 2) -> str:
    return "-" if v is None else f"${v:,.{digits}f}"


def render_serving_markdown(advice: ServingAdvice) -> str:
    data = serving_json(advice)
    out = ["## Serving sizing", ""] + [f"    {line}" for line in _lines(data)] + [""]
    out += [
        "| # | shape | region | TP | batch | TTFT ms | TPOT ms | tok/s/replica | replicas | nodes | $/hour | "
        "$/M out tok |",
        "|" + "---|" * 12,
    ]
    for i, r in enumerate(data["candidates"][:12], 1):
        b = r["best"] or {}
        out.append(
            f"| {i} | {r['instanceType']} | {r['region']} | {r['tensorParallel']} | {r['batch']} | "
            f"{r['ttftMs']:,.0f} | {r['tpotMs']:.1f} | {r['outputTokensPerSecondPerReplica']:,.0f} | "
            f"{r['replicas']} | {r['nodes']} | {_usd(b.get('usdPerHour'))} | "
            f"{_usd(b.get('usdPerMillionOutputTokens'))} |"
        )
    lines = [f"- {note}" for note in data["notes"]] + [f"- risk: {risk}" for risk in data["risks"]]
    out += [""] + lines if lines else []
    return "\n".join(out) + "\n"


SERVING_RENDERERS = {
    "text": render_serving_text,
    "markdown": render_serving_markdown,
    "json": lambda advice: json.dumps(serving_json(advice), indent=2) + "\n",
}
