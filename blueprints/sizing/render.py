"""`size` output: JSON (machines; every figure with its formula or price source), text (rich tables), Markdown.

Why one JSON document first: text and Markdown are views of it, so what a person reads and what a pipeline
parses cannot disagree.
"""

from __future__ import annotations

import io
import json
from typing import Any, Optional

from rich.console import Console
from rich.table import Table

from catalog.clouds import cloud_names

from . import flops as fl
from .candidates import DEFAULT_TARGET_DAYS, LONG_RUN_DAYS, Advice, Candidate
from .memory import HEADROOM, gpus_per_replica
from .risks import training_risks
from .workload import INFERENCE_ONLY, PRECISIONS

SIZE_FORMAT_VERSION = 1
TEXT_ROWS = 12  # text and Markdown show this many candidates (JSON has them all)
MFU_SOURCE = "Dubey et al. 2024, The Llama 3 Herd of Models, Table 4 (38-43% BF16 MFU on H100)"


def _candidate_json(c: Candidate) -> dict[str, Any]:
    best = c.best()
    return {
        "instanceType": c.shape.instance_type,
        "cloud": c.shape.cloud,
        "region": c.region,
        "gpuModel": c.shape.gpu.model,
        "gpusPerNode": c.shape.gpu.count,
        "gpusPerReplica": c.gpus_per_replica,
        "nodes": c.nodes,
        "gpus": c.gpus,
        "fabric": c.fabric,
        "hours": c.hours,
        "gpuHours": None if c.hours is None else round(c.hours * c.gpus, 4),
        "marks": list(c.marks),
        "best": None if best is None else {"option": best.option, "costToFinishUsd": best.cost_to_finish_usd},
        "options": [
            {
                "option": o.option,
                "label": o.label,
                "usdPerHour": o.quote.usd_per_hour if o.quote else None,
                "priceRegion": o.quote.region if o.quote else None,
                "source": o.quote.source if o.quote else None,
                "asOf": o.quote.as_of if o.quote else None,
                "billedHours": o.billed_hours,
                "costToFinishUsd": o.cost_to_finish_usd,
                "breakEvenUtilization": o.break_even_utilization,
                "note": o.note,
            }
            for o in c.options
        ],
        **({"whyNot": c.why_not} if c.why_not else {}),
    }


def advice_json(advice: Advice) -> dict[str, Any]:
    w, mem = advice.workload, advice.memory
    models = sorted({c.shape.gpu.model: c.shape.gpu.memory_gib for c in advice.candidates + advice.infeasible}.items())
    return {
        "formatVersion": SIZE_FORMAT_VERSION,
        "workload": json.loads(w.model_dump_json()),
        "memory": {
            "unit": "GB (10^9 bytes)",
            "parts": [
                {"name": p.name, "gb": round(p.gb, 3), "formula": p.formula, "sharded": p.sharded} for p in mem.parts
            ],
            "totalGb": round(mem.total_gb, 3),
            "sharding": mem.sharding,
            "headroom": f"{HEADROOM:.0%} of each GPU kept free (seed 001)",
            "sources": [
                "Rajbhandari et al. 2020 (ZeRO), section 3.1: 2+2+12 bytes/param mixed-precision Adam",
                "Korthikanti et al. 2022, section 4: activation memory per layer",
            ],
        },
        "gpusPerReplica": {m: gpus_per_replica(mem, gib) for m, gib in models},
        "compute": {
            "flops": advice.flops,
            "rule": fl.rule(w),
            "mfu": w.mfu,
            "mfuSource": _mfu_source(w),
            "gpuHoursAtMfu": {
                m: None if peak is None else round(advice.flops / (peak * 1e12 * w.mfu) / 3600, 2)
                for m, _ in models
                for peak in [fl.peak_tflops(m, w.precision)]
            },
            "peakSource": "catalog/gpu_models.yaml (datasheet dense TFLOPS)",
            "peakTflops": {m: fl.peak_tflops(m, w.precision) for m, _ in models},
            "noPeakFigure": {
                m: why for m, _ in models for peak, why in [fl.peak_and_reason(m, w.precision)] if peak is None
            },
            "nearestPrecisions": {
                m: fl.nearest_precisions(m, w.precision, _allowed(w.mode))
                for m, _ in models
                if fl.peak_tflops(m, w.precision) is None
            },
        },
        "cheapest": _pick(advice.cheapest),
        "fastest": _pick(advice.fastest),
        "candidates": [_candidate_json(c) for c in advice.candidates],
        "infeasible": [_candidate_json(c) for c in advice.infeasible],
        "risks": [r.line() for r in training_risks(advice.cheapest)] if advice.cheapest else [],
    }


def _allowed(mode: str) -> tuple[str, ...]:
    """Precisions a run of ``mode`` may use (workload.py): inference adds int8/int4, training keeps fp32."""
    return PRECISIONS if mode == "inference" else tuple(p for p in PRECISIONS if p not in INFERENCE_ONLY)


def _mfu_source(w) -> str:
    """The named workload's measured utilization, else the Llama 3 paper's MFU (or the user's own --mfu)."""
    if w.workload:
        from catalog.model_shapes import named_workloads

        sources, known = named_workloads()
        facts = known[w.workload]
        if w.mfu == facts.mfu:
            return " ".join(sources[facts.mfu_source].split())
    return MFU_SOURCE if w.mfu == 0.40 else "set with --mfu"


def _pick(c: Optional[Candidate]) -> Optional[dict[str, str]]:
    return None if c is None else {"instanceType": c.shape.instance_type, "region": c.region}


def render_json(advice: Advice) -> str:
    return json.dumps(advice_json(advice), indent=2) + "\n"


def _money(v: Optional[float]) -> str:
    """Whole dollars, but cents below $100 so a small job never reads "$0"."""
    if v is None:
        return "-"
    return f"${v:,.2f}" if v < 100 else f"${v:,.0f}"


def _duration(hours: Optional[float]) -> str:
    """Hours, or minutes below one hour so a small job never reads "0 hours"."""
    if hours is None:
        return "-"
    return f"{hours * 60:,.2g} min" if hours < 1 else f"{hours:,.0f}"


def _gpu_hours(value: Optional[float]) -> str:
    return "-" if value is None else (f"{value:,.0f}" if value >= 10 else f"{value:.2g}")


def _rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The top rows, plus the best of each cloud when the top rows hold none of it."""
    rows = data["candidates"][:TEXT_ROWS]
    for cloud in cloud_names():
        if not any(r["cloud"] == cloud for r in rows):
            rows += [r for r in data["candidates"] if r["cloud"] == cloud][:2]
    rows += [r for r in data["candidates"] if "fastest" in r["marks"] and r not in rows]  # a new GPU may be both
    return rows


OPTION_COLUMNS = ("on-demand", "spot", "commit-1y", "commit-3y", "capacity-block")


def _option_cell(row: dict[str, Any], option: str) -> str:
    o = next(x for x in row["options"] if x["option"] == option)
    if o["costToFinishUsd"] is None:
        return "n/a"
    even = f" (>{o['breakEvenUtilization']:.0%})" if o["breakEvenUtilization"] is not None else ""
    borrowed = "*" if o["priceRegion"] != row["region"] else ""  # another region's price, see the notes
    return f"{_money(o['costToFinishUsd'])}{borrowed}{even}"


def _summary_lines(data: dict[str, Any]) -> list[str]:
    w, mem, comp = data["workload"], data["memory"], data["compute"]
    shape = (
        f"{w['flops_per_sample']:.3g} forward FLOPs/sample x {w['samples']:.6g} samples x {w['epochs']:g} epochs"
        if w["flops_per_sample"] is not None
        else f"seq {w['seq_len']} x micro-batch {w['micro_batch']}"
    )
    name = w["workload"] or w["model"] or ""
    lines = [
        f"{w['mode']} {name + ' ' if name else ''}{w['params']:.3g} params, {w['precision']}, "
        f"{w['optimizer'] if w['mode'] == 'training' else ''} {mem['sharding']}, {shape}".replace("  ", " "),
        f"memory per replica ({mem['unit']}), headroom {mem['headroom']}:",
    ]
    lines += [
        f"  {p['name']:<17} {p['gb']:>10,.1f} GB  = {p['formula']}{'  [sharded]' if p['sharded'] else ''}"
        for p in mem["parts"]
    ]
    lines.append(f"  {'total':<17} {mem['totalGb']:>10,.1f} GB")
    per = ", ".join(f"{m} {n if n is not None else '>4096'}" for m, n in data["gpusPerReplica"].items())
    lines.append(f"min GPUs per replica: {per}")
    if w["fleet_gpus"] is not None or w["fleet_nodes"] is not None:
        have = (
            f"{w['fleet_gpus']} GPUs (shapes that make exactly that many in whole nodes)"
            if w["fleet_gpus"] is not None
            else f"{w['fleet_nodes']} x {w['fleet_shape']}"
        )
        lines.append(f"the fleet you have: {have}; time and cost on exactly it, per purchase option")
    elif w["target_hours"] is None:
        lines.append(
            f"no --target-days: nodes sized to finish within {DEFAULT_TARGET_DAYS} days (the default); "
            f"plans over {LONG_RUN_DAYS} days are marked"
        )
    lines.append(
        f"compute: {comp['flops']:.3g} FLOPs = {comp['rule']}; time at MFU {comp['mfu']:.0%} ({comp['mfuSource']})"
    )
    for model, why in comp["noPeakFigure"].items():
        nearest = comp["nearestPrecisions"].get(model)
        offer = f"; nearest: --precision {' or '.join(nearest)}" if nearest else ""
        lines.append(f"  {model} {w['precision']}: no figure ({why}), so no time or cost{offer}")
    return lines


def _prices_lines(data: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, str] = {}
    for r in rows:
        for o in r["options"]:
            if o["source"]:
                key = f"{r['instanceType']} {o['priceRegion']} {o['option']}"
                seen[key] = f"${o['usdPerHour']:,.4g}/h, {o['source']} as of {o['asOf']}" + (
                    f" - {o['note']}" if o["note"] else ""
                )
    return [f"  {k}: {v}" for k, v in seen.items()]


def render_text(advice: Advice, width: int = 160) -> str:
    data = advice_json(advice)
    rows = _rows(data)
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=True, highlight=False, soft_wrap=False)
    for line in _summary_lines(data):
        console.print(line, markup=False)
    table = Table(
        title="candidates, ranked by cost to finish (break-even utilization of commitments in brackets; "
        "* = nearest documented region's price)",
        show_lines=False,
    )
    for column in (
        ("#", "shape", "region", "GPUs/replica", "nodes", "fabric", "hours", "GPU-hours") + OPTION_COLUMNS + ("mark",)
    ):
        table.add_column(column, overflow="fold")
    for i, r in enumerate(rows, 1):
        table.add_row(
            str(i),
            r["instanceType"],
            r["region"],
            str(r["gpusPerReplica"]),
            str(r["nodes"]),
            r["fabric"],
            _duration(r["hours"]),
            _gpu_hours(r["gpuHours"]),
            *(_option_cell(r, o) for o in OPTION_COLUMNS),
            ", ".join(r["marks"]),
        )
    console.print(table)
    console.print(
        f"{len(data['candidates'])} feasible candidates ({len(rows)} shown), "
        f"{len(data['infeasible'])} shapes cannot run it; prices used:",
        markup=False,
    )
    for line in _prices_lines(data, rows):
        console.print(line, markup=False, overflow="ignore", crop=False)
    for risk in data["risks"]:
        console.print(f"risk: {risk}", markup=False)
    return buffer.getvalue()


def render_markdown(advice: Advice) -> str:
    data = advice_json(advice)
    rows = _rows(data)
    out = ["## GPU sizing", ""] + [f"    {line}" for line in _summary_lines(data)] + [""]
    out.append(
        "| # | shape | region | GPUs/replica | nodes | fabric | hours | GPU-hours | "
        + " | ".join(OPTION_COLUMNS)
        + " | mark |"
    )
    out.append("|" + "---|" * (9 + len(OPTION_COLUMNS)))
    for i, r in enumerate(rows, 1):
        out.append(
            f"| {i} | {r['instanceType']} | {r['region']} | {r['gpusPerReplica']} | {r['nodes']} | {r['fabric']} "
            f"| {_duration(r['hours'])} | {_gpu_hours(r['gpuHours'])} | "
            + " | ".join(_option_cell(r, o) for o in OPTION_COLUMNS)
            + f" | {', '.join(r['marks'])} |"
        )
    out += ["", "Prices used:", ""] + [f"-{line[1:]}" for line in _prices_lines(data, rows)]
    out += [f"- risk: {risk}" for risk in data["risks"]]
    return "\n".join(out) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "markdown": render_markdown}
