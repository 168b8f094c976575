"""Every catalog shape that can run the workload, per region: nodes, fabric, time and cost per purchase option.

Why per (shape, region): prices differ by region and option (catalog/prices.yaml), and a price is
only shown with its source, region and as-of date. Ranking is by cost to finish under the cheapest priced
option; time assumes throughput scales with GPUs at the given MFU (no scaling loss is modelled).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Sequence

from catalog import Catalog, Shape, load_catalog
from catalog.clouds import profile
from catalog.prices import OPTION_LABELS, Overrides, Quote, quote

from ..errors import BlueprintError
from . import flops as fl
from .commitments import TERM_HOURS, break_even_utilization
from .memory import MemoryBreakdown, breakdown, gpus_per_replica
from .prices_file import your_quote
from .workload import Workload

DEFAULT_TARGET_DAYS = 30  # without --target-days, nodes are added to finish within a month (said in the output)
LONG_RUN_DAYS = 90  # plans longer than this are marked: hardware, prices and the model itself move on
MAX_NODES = 1000  # the most a stack's node group may declare (spec: maxNodes <= 1000)
CAPACITY_BLOCK_HOURS = 24  # Capacity Blocks are sold in whole days (AWS user guide, "How Capacity Blocks work")


@dataclass(frozen=True)
class OptionCost:
    option: str
    label: str
    quote: Optional[Quote]
    cost_to_finish_usd: Optional[float]
    billed_hours: Optional[float]
    break_even_utilization: Optional[float] = None
    note: Optional[str] = None


@dataclass(frozen=True)
class Candidate:
    shape: Shape
    region: str
    gpus_per_replica: Optional[int]
    nodes: int
    hours: Optional[float]
    fabric: str
    options: tuple[OptionCost, ...] = ()
    why_not: Optional[str] = None  # set when the shape cannot run the workload
    marks: tuple[str, ...] = field(default=())
    # Sold in the region only on request (shapes.yaml on_request_regions): listed and marked, never "cheapest".
    on_request: bool = False

    @property
    def feasible(self) -> bool:
        return self.why_not is None

    @property
    def gpus(self) -> int:
        return self.nodes * self.shape.gpu.count

    def best(self) -> Optional[OptionCost]:
        priced = [o for o in self.options if o.cost_to_finish_usd is not None]
        return min(priced, key=lambda o: o.cost_to_finish_usd) if priced else None  # type: ignore[arg-type,return-value]

    def option(self, name: str) -> Optional[OptionCost]:
        return next((o for o in self.options if o.option == name), None)


@dataclass(frozen=True)
class Advice:
    workload: Workload
    memory: MemoryBreakdown
    flops: float
    candidates: tuple[Candidate, ...]  # feasible, ranked cheapest first
    infeasible: tuple[Candidate, ...]

    @property
    def cheapest(self) -> Optional[Candidate]:
        return cheapest_of(self.candidates)

    @property
    def fastest(self) -> Optional[Candidate]:
        timed = [c for c in self.candidates if c.hours is not None]
        return min(timed, key=lambda c: (c.hours, _cost_key(c))) if timed else None


def cheapest_of(ranked: Sequence[Candidate]) -> Optional[Candidate]:
    """The first ranked candidate with a price that is sold pay-as-you-go: an unpriced shape or one sold only on
    request is listed and marked, never called the cheapest."""
    return next((c for c in ranked if c.best() is not None and not c.on_request), None)


def sale_marks(c: Candidate) -> tuple[str, ...]:
    """How a candidate is sold, for the output: on request (shapes.yaml), or with no sourced price at all."""
    return (("on request",) if c.on_request else ()) + (("unpriced",) if c.best() is None else ())


def _cost_key(c: Candidate) -> float:
    best = c.best()
    return best.cost_to_finish_usd if best and best.cost_to_finish_usd is not None else math.inf


def _exact(c: Candidate) -> bool:
    """Whether the candidate's best price is its own region's (a borrowed one ranks after an equal exact one)."""
    best = c.best()
    return bool(best and best.quote and best.quote.exact)


def _options(
    shape: Shape, region: str, nodes: int, hours: Optional[float], w: Workload, prices: Optional[Overrides] = None
) -> tuple[OptionCost, ...]:
    labels = OPTION_LABELS[shape.cloud]
    found = {
        o: your_quote(prices, shape.instance_type, region, o) or quote(shape.instance_type, region, o)
        for o in ("on-demand", "spot", "commit-1y", "commit-3y", "capacity-block")
    }
    on_demand = found["on-demand"]
    out = []
    for option, q in found.items():
        if q is not None and option != "on-demand" and not q.exact:
            q = None  # spot, commitments and capacity blocks are sold per region: never borrow another's
        if q is None:
            cloud = profile(shape.cloud)
            why = (
                f"not sold on {cloud.name}"
                if option == "capacity-block" and not cloud.capacity_blocks
                else f"no sourced {option} price for {shape.instance_type} in {region}"
            )
            out.append(OptionCost(option, labels[option], None, None, None, note=why))
            continue
        note = q.note
        if hours is None:
            out.append(OptionCost(option, labels[option], q, None, None, note="time unknown (no peak TFLOPS)"))
            continue
        if option == "on-demand":
            billed = hours
        elif option == "spot":
            billed = hours * (1 + w.spot_overhead)
            note = "; ".join(filter(None, [note, f"+{w.spot_overhead:.0%} run time for interruptions"]))
        elif option == "capacity-block":
            billed = math.ceil(hours / CAPACITY_BLOCK_HOURS) * CAPACITY_BLOCK_HOURS
        else:
            billed = max(hours, TERM_HOURS[option])
        even = (
            break_even_utilization(q.usd_per_hour, on_demand.usd_per_hour)
            if option.startswith("commit") and on_demand
            else None
        )
        out.append(
            OptionCost(
                option,
                labels[option],
                q,
                round(nodes * billed * q.usd_per_hour, 2),
                round(billed, 2),
                None if even is None else round(even, 3),
                note,
            )
        )
    return tuple(out)


def _candidate(
    shape: Shape,
    region: str,
    w: Workload,
    mem: MemoryBreakdown,
    total: float,
    ask: bool,
    prices: Optional[Overrides] = None,
) -> Candidate:
    gpn = shape.gpu.count
    per_replica = gpus_per_replica(mem, shape.gpu.memory_gib)
    fabric_kind = {"efa": "EFA", "erdma": "eRDMA"}.get(shape.rdma.kind)
    if per_replica is None:
        return Candidate(
            shape, region, None, 0, None, "-", why_not="needs more than 4096 GPUs per replica", on_request=ask
        )
    replica_nodes = math.ceil(per_replica / gpn)
    peak = fl.peak_tflops(shape.gpu.model, w.precision)
    nodes = replica_nodes
    target_hours = w.target_hours if w.target_hours is not None else DEFAULT_TARGET_DAYS * 24
    have = fleet_nodes(w, shape)
    if have is not None:  # a fleet you have: exactly its nodes, whatever the deadline
        nodes = have
        if have < replica_nodes:
            why = f"{have} x {shape.instance_type} hold {have * gpn} GPUs; one replica needs {per_replica}"
            return Candidate(shape, region, per_replica, have, None, "-", why_not=why, on_request=ask)
    elif peak is not None:
        gpus_needed = math.ceil(total / (target_hours * fl.SECONDS_PER_HOUR * peak * 1e12 * w.mfu))
        nodes = max(nodes, math.ceil(gpus_needed / gpn))
        nodes = math.ceil(nodes / replica_nodes) * replica_nodes
    fabric = (fabric_kind or "none") if nodes > 1 else "-"
    why = None
    if nodes > MAX_NODES:
        why = f"needs {nodes} nodes, more than a node group's {MAX_NODES}"
    elif nodes > 1 and fabric_kind is None and (replica_nodes > 1 or w.mode == "training"):
        why = f"needs {nodes} nodes but {shape.instance_type} has no RDMA fabric (EFA/eRDMA)"
    hours = None if peak is None else fl.hours(total, nodes * gpn, peak, w.mfu)
    if why:
        return Candidate(shape, region, per_replica, nodes, hours, fabric, why_not=why, on_request=ask)
    return Candidate(
        shape,
        region,
        per_replica,
        nodes,
        None if hours is None else round(hours, 6),
        fabric,
        _options(shape, region, nodes, hours, w, prices),
        on_request=ask,
    )


def _pairs(catalog: Catalog, w: Workload) -> list[tuple[Shape, str, bool]]:
    """(shape, region, sold only on request there) for every shape offered in the asked regions (default: all)."""
    shapes = [s for s in catalog.shapes if s.cloud in w.clouds]
    offered = [(s, r, False) for s in shapes for r in s.regions] + [
        (s, r, True) for s in shapes for r in s.on_request_regions if r not in s.regions
    ]
    offered = _fleet_pairs(catalog, w, offered)
    if not w.regions:
        return offered
    known = sorted({r for _, r, _ in offered})
    unknown = [r for r in w.regions if r not in known]
    if unknown:
        raise BlueprintError(
            "--region",
            f"no catalog shape on {', '.join(w.clouds)} is sold in {unknown[0]}; regions: {', '.join(known)}",
        )
    return [(s, r, ask) for s, r, ask in offered if r in w.regions]


def _fleet_pairs(
    catalog: Catalog, w: Workload, offered: list[tuple[Shape, str, bool]]
) -> list[tuple[Shape, str, bool]]:
    """With a fleet: only its shape (--shape), or the shapes that make exactly --gpus GPUs in whole nodes."""
    if w.fleet_shape is not None:
        shape = catalog.get(w.fleet_shape)
        if shape is None or not shape.gpu.count:
            raise BlueprintError(
                "--shape",
                f"{w.fleet_shape!r} is not a GPU shape in catalog/shapes.yaml; allowed: an instance type it lists, "
                "e.g. p5.48xlarge or ecs.gn8v-8x.48xlarge",
            )
        mine = [p for p in offered if p[0].instance_type == w.fleet_shape]
        if not mine:
            raise BlueprintError(
                "--shape", f"{w.fleet_shape} is not sold on {', '.join(w.clouds)}; allowed: --cloud {shape.cloud}"
            )
        return mine
    if w.fleet_gpus is not None:
        mine = [
            p
            for p in offered
            if p[0].gpu.count and w.fleet_gpus % p[0].gpu.count == 0 and w.fleet_gpus // p[0].gpu.count <= MAX_NODES
        ]
        if not mine:
            raise BlueprintError(
                "--gpus", f"no catalog shape makes exactly {w.fleet_gpus} GPUs in at most {MAX_NODES} whole nodes"
            )
        return mine
    return offered


def fleet_nodes(w: Workload, shape: Shape) -> Optional[int]:
    """The nodes of ``shape`` the user has (--nodes, or --gpus / GPUs per node), or None without a fleet."""
    if w.fleet_nodes is not None:
        return w.fleet_nodes
    return None if w.fleet_gpus is None else w.fleet_gpus // shape.gpu.count


def advise(w: Workload, catalog: Optional[Catalog] = None, prices: Optional[Overrides] = None) -> Advice:
    """Every shape that can run ``w``, ranked; ``prices`` (the stack's `prices:` form) are the account's rates."""
    catalog = catalog or load_catalog()
    mem = breakdown(w)
    total = fl.total_flops(w)
    built = [_candidate(s, r, w, mem, total, ask, prices) for s, r, ask in _pairs(catalog, w)]
    feasible = sorted(
        (c for c in built if c.feasible),
        key=lambda c: (
            _cost_key(c),
            not _exact(c),
            c.hours if c.hours is not None else math.inf,
            c.shape.instance_type,
            c.region,
        ),
    )
    if not feasible:
        where = "--region" if w.regions else "--params"
        reasons = sorted({c.why_not for c in built if c.why_not})
        raise BlueprintError(
            where,
            f"no shape in {', '.join(w.regions) or 'the catalog'} fits this workload "
            f"({'; '.join(_kinds(reasons)) or 'no shapes'}); allowed: a region with a fitting "
            f"shape, or more sharding (--sharding zero3)",
        )
    advice = Advice(w, mem, total, tuple(feasible), tuple(c for c in built if not c.feasible))
    return _marked(advice)


def _kinds(reasons: list[str]) -> list[str]:
    """One reason of each kind (a node group's limit, a missing fabric, ...), so one line says all that blocks."""
    out: dict[str, str] = {}
    for why in reasons:
        out.setdefault("fabric" if "no RDMA fabric" in why else "limit" if "node group" in why else why, why)
    return list(out.values())


def _marked(advice: Advice) -> Advice:
    cheapest, fastest = advice.cheapest, advice.fastest
    marked = []
    for c in advice.candidates:
        marks = tuple(m for m, pick in (("cheapest", cheapest), ("fastest", fastest)) if pick is c)
        if c.hours is not None and c.hours > LONG_RUN_DAYS * 24:
            marks += (f"over {LONG_RUN_DAYS} days",)
        marks += sale_marks(c)
        marked.append(
            Candidate(
                c.shape,
                c.region,
                c.gpus_per_replica,
                c.nodes,
                c.hours,
                c.fabric,
                c.options,
                c.why_not,
                marks,
                c.on_request,
            )
        )
    return Advice(advice.workload, advice.memory, advice.flops, tuple(marked), advice.infeasible)
