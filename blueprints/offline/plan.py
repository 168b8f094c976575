"""The offline plan: spec -> resolve -> program under mocks -> resources, cost, findings."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from components.kubernetes.nodes import MIG_RESOURCE_PREFIX
from components.zones import ZoneError

from ..compose import group_resources, resolve_config
from ..errors import EXIT_FINDINGS, EXIT_OK, BlueprintError
from ..mig import layout, slices
from ..resolver import ResolvedNodeGroup, ResolvedPlan
from ..stackconfig import PROJECT, STACKS_DIR, cluster_config, read_stack_config, stack_source
from .cold_start import cold_starts
from .conformance import assess as assess_conformance
from .cost import CostEstimate, estimate
from .engine import Registration, run_program
from .fixes import fix_for
from .pack_config import pack_configs, stack_policy_config
from .policy import evaluate
from .readiness import BLOCKING
from .readiness import Finding as ReadinessFinding
from .readiness import check as readiness_check
from .readiness_quotas import team_quotas

PLAN_FORMAT_VERSION = 1


@dataclass(frozen=True)
class Plan:
    stack: str
    resolved: ResolvedPlan
    registrations: tuple[Registration, ...]
    cost: CostEstimate
    packs: tuple[str, ...] = ()
    readiness: tuple[ReadinessFinding, ...] = ()
    outputs: Optional[dict[str, Any]] = None  # the stack's exports, secrets as {"secret": true}
    judge: Callable[[], tuple[dict[str, Any], ...]] = field(default=tuple, repr=False, compare=False)

    @cached_property
    def findings(self) -> tuple[dict[str, Any], ...]:
        """The packs' findings, judged when first read: a caller that reads only resources, cost or readiness
        (most of the test suite's variant plans) does not pay for the packs; every output the CLI writes reads
        them (the exit code among them)."""
        return self.judge()

    def readiness_blocking(self) -> list[ReadinessFinding]:
        return [f for f in self.readiness if f.level == BLOCKING]

    @property
    def exit_code(self) -> int:
        mandatory = any(f.get("enforcementLevel") == "mandatory" for f in self.findings)
        return EXIT_FINDINGS if mandatory or self.readiness_blocking() else EXIT_OK

    def counts(self) -> dict[str, Any]:
        by_type = Counter(r.type for r in self.registrations)
        return {
            "total": len(self.registrations),
            "custom": sum(1 for r in self.registrations if r.custom),
            "components": sum(1 for r in self.registrations if not r.custom),
            "byType": dict(sorted(by_type.items())),
        }

    def to_json(self) -> dict[str, Any]:
        """The plan as `--format json` writes it and `blueprints diff` reads it (keys in this order)."""
        spec = self.resolved.spec
        return {
            "formatVersion": PLAN_FORMAT_VERSION,
            "project": PROJECT,
            "stack": self.stack,
            "cloud": spec.cloud,
            "region": spec.region,
            "preset": spec.preset,
            "resolved": _resolved_json(self.resolved),
            "counts": self.counts(),
            "resources": [_resource_json(r) for r in self.registrations],
            "outputs": dict(sorted((self.outputs or {}).items())),
            "cost": self.cost.to_json(),
            "policyPacks": list(self.packs),
            "findings": list(self.findings),
            "readiness": [f.to_json() for f in self.readiness],
            "aiConformance": assess_conformance(self.registrations, spec.kubernetes_version, self.readiness).to_json(),
            "coldStart": cold_starts(self.resolved, self.registrations),
            "exitCode": self.exit_code,
        }


def _resolved_json(resolved: ResolvedPlan) -> dict[str, Any]:
    """What the resolver decided from the spec and the catalog: node groups, system nodes, notes, Kubernetes."""
    spec, kubernetes, system = resolved.spec, resolved.kubernetes, resolved.system
    return {
        "nodeGroups": [_node_group_json(g) for g in resolved.node_groups],
        "systemNodes": (
            {
                "instanceType": system.instance_type,
                "nodes": {
                    "min": system.spec.min_nodes,
                    "desired": system.spec.desired_nodes,
                    "max": system.spec.max_nodes,
                },
                "usdPerHour": system.usd_per_hour,
                "priceSource": system.price_source,
            }
            if system
            else None
        ),
        "notes": list(resolved.notes),
        "kubernetes": {
            "version": spec.kubernetes_version,
            "support": kubernetes.support if kubernetes else None,
            "supportEnds": kubernetes.ends.isoformat() if kubernetes and kubernetes.ends else None,
            "source": kubernetes.source if kubernetes else None,
        },
    }


def _node_group_json(g: ResolvedNodeGroup) -> dict[str, Any]:
    """One GPU node group as resolved: its shape, sizes, capacity, fabric and the rate it is billed at."""
    return {
        "name": g.name,
        "instanceType": g.shape.instance_type,
        "gpuModel": g.shape.gpu.model,
        "gpusPerNode": g.shape.gpu.count,
        "gpuMemoryGib": g.shape.gpu.memory_gib,
        "interconnect": g.shape.gpu.interconnect,
        "nodes": {"min": g.spec.min_nodes, "desired": g.spec.desired_nodes, "max": g.spec.max_nodes},
        "capacity": g.spec.capacity,
        "rdma": {"kind": g.shape.rdma.kind if g.rdma_interfaces else "none", "interfaces": g.rdma_interfaces},
        "placementGroup": g.placement_group,
        "usdPerHour": g.usd_per_hour,
        "priceSource": g.price_source,
    }


def _resource_json(r: Registration) -> dict[str, Any]:
    """One registration as the engine would receive it: URN, inputs and the options `pulumi up` honours."""
    return {
        "urn": r.urn,
        "type": r.type,
        "name": r.name,
        "parent": r.parent or None,
        "provider": r.provider or None,
        "custom": r.custom,
        "protect": r.protect,
        "inputs": r.inputs,
        "options": {
            "ignoreChanges": r.ignore_changes,
            "replaceOnChanges": r.replace_on_changes,
            "deleteBeforeReplace": r.delete_before_replace,
        },
        **({"aliases": r.aliases} if r.aliases else {}),
    }


def node_group_rates(resolved: ResolvedPlan) -> list[dict[str, Any]]:
    """How each GPU node group is billed: the rate, the purchase option it is for, and where it comes from."""
    return [
        {
            "nodeGroup": g.name,
            "instanceType": g.shape.instance_type,
            "capacity": g.spec.capacity,
            "option": "override" if g.price_source.startswith("stack override") else g.price_option,
            "usdPerHour": g.usd_per_hour,
            "source": g.price_source,
            "asOf": g.price_as_of,
            **({"sharing": _shared_slice(resolved, g)} if g.spec.sharing or layout(g.spec, g.shape) else {}),
        }
        for g in resolved.node_groups
    ]


def _shared_slice(resolved: ResolvedPlan, g: ResolvedNodeGroup) -> dict[str, Any]:
    """What one slice of a shared or MIG-partitioned group costs: the node's hourly rate over the GPU units it
    advertises (shared nvidia.com/gpu, MIG instances, under the names the cluster's MIG strategy gives them)."""
    resources = group_resources(resolved, g)
    per_node = slices(resources)
    replicas = g.spec.sharing.replicas if g.spec.sharing else 1
    profiles = layout(g.spec, g.shape)
    # A MIG instance's share of its GPU: its compute slices over the layout's (a 3g.40gb is three of seven).
    units = sum(int(p.split("g.")[0]) * n for p, n in profiles.items())
    share = {f"{MIG_RESOURCE_PREFIX}{p}": int(p.split("g.")[0]) / units for p in profiles} if profiles else {}
    price = g.usd_per_hour
    return {
        "strategy": g.spec.sharing.strategy if g.spec.sharing else "mig",
        "replicasPerGpu": replicas,
        **({"migProfile": g.spec.mig_profile} if profiles else {}),
        "resources": resources,
        "slicesPerNode": per_node,
        # the node's rate over its slices: one figure only when every slice is alike
        "usdPerSliceHour": None if price is None or len(resources) > 1 else round(price / per_node, 4),
        "usdPerResourceHour": {
            r: None
            if price is None
            else round(price / g.shape.gpu.count * share[r] / replicas if r in share else price / per_node, 4)
            for r in resources
        },
    }


def _zone_error(error: Optional[BaseException]) -> Optional[ZoneError]:
    """The ZoneError behind an exception the Pulumi SDK raised while registering a resource, if any."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, ZoneError):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def _check_image_catalog() -> None:
    """The digest catalog every plan reads (compose pins images through it): one line when it is unusable."""
    from catalog.image_digests import DigestCatalogError, digests

    try:
        digests()
    except DigestCatalogError as error:
        raise BlueprintError("", str(error)) from None


def _judged(stack, source, registrations, packs, settings, user) -> tuple[dict[str, Any], ...]:
    """The packs' findings, each with what to edit (in the stack file where it can)."""
    found = evaluate(stack, registrations, packs, settings, user_configs=user) if packs else []
    return tuple(dict(f, fix=fix_for(f, stack, source)) for f in found)


def make_plan(
    stack: str,
    stacks_dir: Path = STACKS_DIR,
    packs: Optional[Sequence[str]] = None,
    pack_config_paths: Sequence[Path] = (),
) -> Plan:
    """Validate, resolve and run one stack offline; its packs judge it when ``findings`` is first read.
    BlueprintError on bad input.

    ``packs`` replaces the packs the spec declares (``compliance.frameworks``); an empty list runs none.
    ``pack_config_paths``: `--policy-pack-config` files, applied over the stack's own rule settings.
    """
    config = read_stack_config(stack, stacks_dir)
    source = stack_source(stack, stacks_dir)
    _check_image_catalog()
    try:
        resolved = resolve_config(cluster_config(config, source), source)
    except BlueprintError as error:  # the resolver names the field; say which stack file holds it
        raise error.prefixed(source) from None
    spec = resolved.spec
    # Read before the program runs: a bad --policy-pack-config is refused without the program's time and memory.
    user = pack_configs(pack_config_paths, packs, spec.compliance.frameworks)
    try:
        registered, outputs = run_program(stack, config, spec.region)
    except Exception as error:  # noqa: BLE001 - a zone error arrives wrapped by the SDK's resource registration
        zone = _zone_error(error)
        if zone is None:
            raise
        # A pinned zone the data sources say is absent, or does not sell the group's shape: bad input, one line.
        group = spec.node_groups.get(zone.group or "")
        field = f"cluster.nodeGroups.{zone.group}.zone" if group and group.zone else "cluster.networking.zone"
        raise BlueprintError(f"{source}: {field}", str(zone)) from None
    # The engine's order depends on when outputs resolve; sorting by URN makes cost lines, findings and readiness
    # come out the same on every run (and the plan JSON byte-identical).
    registrations = tuple(sorted(registered, key=lambda r: r.urn))
    cost = estimate(
        spec,
        registrations,
        resolved.kubernetes.support if resolved.kubernetes else "standard",
        resolved.instance_prices(),
        node_group_rates(resolved),
    )
    chosen = tuple(spec.compliance.frameworks if packs is None else packs)
    judge = partial(_judged, stack, source, registrations, chosen, stack_policy_config(spec, resolved, cost), user)
    return Plan(
        stack=stack,
        resolved=resolved,
        registrations=registrations,
        cost=cost,
        packs=chosen,
        readiness=tuple(readiness_check(registrations) + team_quotas(resolved)),
        outputs=outputs,
        judge=judge,
    )
