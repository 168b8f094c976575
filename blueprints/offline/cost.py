"""Cost estimate from what the program registered: priced resources plus the spec's stated usage.

Two figures per hour: the expected one (node groups at their desired size) and the worst case (node groups at
maxNodes, which the autoscaler may reach). The budget is judged against both; node groups are priced at the
rate of how they are bought (on-demand, spot, capacity block) in the stack's region, as the resolver found it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional

from catalog import load_catalog
from catalog.clouds import ServicePriceKeys, profile, role_of, types_of
from catalog.prices import hourly_price
from catalog.service_prices import service_prices
from components.kubernetes.karpenter import NODE_CLASS_TYPE as KARPENTER_NODE_CLASS
from components.kubernetes.karpenter import NODE_POOL_TYPE as KARPENTER_NODE_POOL
from components.kubernetes.nodes import NODE_GROUP_LABEL

from ..spec import ClusterSpec
from .engine import Registration

COMPONENTS = ("gpu-nodes", "system-nodes", "storage", "networking", "logging", "control-plane")


@dataclass(frozen=True)
class LineItem:
    component: str
    resource: str
    description: str
    usd_per_hour: Optional[float]
    worst_usd_per_hour: Optional[float] = None  # node groups at maxNodes (None: same as usd_per_hour)
    priced: bool = True  # False: no price known; usd_per_hour is None unless no node runs (then 0)

    @property
    def worst(self) -> float:
        return (self.usd_per_hour or 0.0) if self.worst_usd_per_hour is None else self.worst_usd_per_hour


@dataclass(frozen=True)
class CostEstimate:
    items: tuple[LineItem, ...]
    hours_per_month: int
    monthly_budget_usd: float
    unpriced: tuple[str, ...]
    # How each node group is billed: {nodeGroup, instanceType, capacity, option, usdPerHour, source}
    rates: tuple[dict[str, Any], ...] = ()

    @property
    def complete(self) -> bool:
        """Whether every node the estimate counts at desired size has a price (else the total is a lower bound)."""
        return all(i.usd_per_hour is not None for i in self.items)

    @property
    def worst_complete(self) -> bool:
        return all(i.priced for i in self.items)

    @property
    def hourly_usd(self) -> float:
        return round(sum(i.usd_per_hour or 0.0 for i in self.items), 4)

    @property
    def monthly_usd(self) -> float:
        return round(self.hourly_usd * self.hours_per_month, 2)

    @property
    def worst_hourly_usd(self) -> float:
        return round(sum(i.worst for i in self.items), 4)

    @property
    def worst_monthly_usd(self) -> float:
        return round(self.worst_hourly_usd * self.hours_per_month, 2)

    def by_component(self) -> dict[str, float]:
        totals = {c: 0.0 for c in COMPONENTS}
        for item in self.items:
            totals[item.component] = totals.get(item.component, 0.0) + (item.usd_per_hour or 0.0)
        return {c: round(v, 4) for c, v in totals.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "hourlyUsd": self.hourly_usd,
            "monthlyUsd": self.monthly_usd,
            "hoursPerMonth": self.hours_per_month,
            "byComponent": {
                c: {
                    "hourlyUsd": h,
                    "monthlyUsd": round(h * self.hours_per_month, 2),
                    "complete": all(i.usd_per_hour is not None for i in self.items if i.component == c),
                }
                for c, h in self.by_component().items()
            },
            "worstCase": {
                "hourlyUsd": self.worst_hourly_usd,
                "monthlyUsd": self.worst_monthly_usd,
                "basis": "node groups at maxNodes",
            },
            # With a node group unpriced the totals are what is priced, a lower bound: "complete" says so, and a
            # verdict the unknown part could change is null (unknown), never "within" on the strength of $0.
            "complete": self.complete,
            "budget": {
                "monthlyLimitUsd": self.monthly_budget_usd,
                "usedPct": round(100 * self.monthly_usd / self.monthly_budget_usd, 1),
                "withinBudget": _verdict(self.monthly_usd, self.monthly_budget_usd, self.complete),
                "worstCaseUsedPct": round(100 * self.worst_monthly_usd / self.monthly_budget_usd, 1),
                "worstCaseWithinBudget": _verdict(self.worst_monthly_usd, self.monthly_budget_usd, self.worst_complete),
            },
            "rates": [dict(r) for r in self.rates],
            "unpriced": list(self.unpriced),
            "items": [{_ITEM_KEYS.get(k, k): v for k, v in asdict(i).items()} for i in self.items],
        }


def _verdict(usd: float, budget: float, complete: bool) -> Optional[bool]:
    """Within budget: True or False when known; None when unpriced nodes could still push a total over it."""
    if usd > budget:
        return False  # over already with only what is priced
    return True if complete else None


_ITEM_KEYS = {"usd_per_hour": "usdPerHour", "worst_usd_per_hour": "worstUsdPerHour"}


def _instance_price(instance_type: str, spec: ClusterSpec, resolved: Mapping[str, Optional[float]]) -> Optional[float]:
    """As the resolver priced it (region, purchase option), else the one catalog lookup for the stack's region."""
    if instance_type in resolved:
        return resolved[instance_type]
    return hourly_price(instance_type, spec.region, overrides=spec.prices)[0]


def _block(spec: ClusterSpec, props: Mapping[str, Any]) -> Optional[tuple[int, float, str]]:
    """A capacity-block group's size, length in hours and window, when the stack gives both its start and end
    (else None: priced like any group, for a whole month, an upper bound)."""
    group = spec.node_groups.get((props.get("labels") or {}).get(NODE_GROUP_LABEL, ""))
    if group is None or not (group.capacity_block_starts_at and group.capacity_block_ends_at):
        return None
    starts, ends = (
        dt.datetime.strptime(v, "%Y-%m-%dT%H:%M:%SZ")
        for v in (group.capacity_block_starts_at, group.capacity_block_ends_at)
    )
    return (
        group.desired_nodes,
        (ends - starts).total_seconds() / 3600,
        f"{group.capacity_block_starts_at}..{group.capacity_block_ends_at}",
    )


@dataclass
class _Pricing:
    """What pricing one registration needs: the stack, the cloud's service rates and where line items go."""

    spec: ClusterSpec
    rates: Mapping[str, Any]  # service_prices.yaml under the stack's cloud
    keys: ServicePriceKeys  # which of those rates is which (catalog/clouds.yaml)
    per_month: float
    templates: Mapping[str, Mapping[str, Any]]
    instance_prices: Mapping[str, Optional[float]]
    kubernetes_support: str
    items: list[LineItem] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)

    def add(
        self,
        component: str,
        reg: Registration,
        description: str,
        usd: Optional[float],
        worst: Optional[float] = None,
        priced: bool = True,
    ) -> None:
        self.items.append(
            LineItem(
                component,
                reg.name,
                description,
                None if usd is None else round(usd, 4),
                None if worst is None else round(worst, 4),
                priced,
            )
        )

    def usd(self, key: str) -> float:
        return self.rates[key]["usd"]


def estimate(
    spec: ClusterSpec,
    registrations: Iterable[Registration],
    kubernetes_support: str = "standard",
    instance_prices: Optional[Mapping[str, Optional[float]]] = None,
    rates: Iterable[Mapping[str, Any]] = (),
) -> CostEstimate:
    """``kubernetes_support`` is the resolver's verdict on the version (EKS extended support costs more);
    ``instance_prices`` the resolver's USD/hour by instance type (it knows the region, the purchase option and
    the overrides); ``rates`` how each node group is billed, shown as is."""
    table = service_prices()
    hours = table["hours_per_month"]
    regs = list(registrations)
    templates = {r.id: r.inputs for r in regs if r.type in types_of("launch_template")}
    pricing = _Pricing(
        spec,
        table[spec.cloud],
        profile(spec.cloud).service_prices,
        1.0 / hours,
        templates,
        instance_prices or {},
        kubernetes_support,
    )
    node_classes = {
        (r.inputs.get("metadata") or {}).get("name"): r.inputs for r in regs if r.type == KARPENTER_NODE_CLASS
    }
    for reg in regs:
        price = _PRICERS.get(role_of(reg.type) or "")
        if price is not None:
            price(pricing, reg)
        elif reg.type == KARPENTER_NODE_POOL:
            _node_pool(pricing, reg, node_classes)
    log_gb = table["assumptions"]["log_gb_per_month"]
    if any(r.type in types_of("log_sink") for r in regs):
        pricing.items.append(
            LineItem(
                "logging",
                "audit-and-flow-logs",
                f"{log_gb} GB/month ingested (assumed)",
                round(log_gb * pricing.usd(pricing.keys.log_ingest) * pricing.per_month, 4),
            )
        )
    return CostEstimate(
        tuple(pricing.items),
        hours,
        spec.budget.monthly_limit_usd,
        tuple(pricing.unpriced),
        tuple(dict(r) for r in rates),
    )


def _node_group(p: _Pricing, reg: Registration) -> None:
    props = reg.inputs
    template = p.templates.get((props.get("launchTemplate") or {}).get("id"), {})
    instance_type = (props.get("instanceTypes") or [template.get("instanceType") or "?"])[0]
    scaling = props.get("scalingConfig") or {}
    nodes = scaling.get("desiredSize", props.get("desiredSize", 0)) or 0
    most = max(scaling.get("maxSize", nodes) or nodes, nodes)
    price = _instance_price(instance_type, p.spec, p.instance_prices)
    if price is None:
        p.unpriced.append(f"{reg.name}: {instance_type} has no list price; set prices.{instance_type}")
    component = "gpu-nodes" if load_catalog().get(instance_type) else "system-nodes"
    block = _block(p.spec, props) if props.get("capacityType") == "CAPACITY_BLOCK" else None
    if block is not None:
        # A capacity block is paid up front for its length (EC2 "Capacity Blocks pricing and billing"): its
        # whole price falls in the month it is bought, and no more, however short or long the block.
        size, block_hours, window = block
        nodes = most = size
        total = None if price is None else price * size * block_hours
        p.add(
            component,
            reg,
            f"{size} x {instance_type} capacity block {window}, {block_hours:g} h paid up front"
            + ("" if total is None else f" (${total:,.2f})"),
            None if total is None else total * p.per_month,
            None if total is None else total * p.per_month,
            priced=price is not None,
        )
    else:  # no price is unknown, not $0; zero nodes cost nothing whatever the price
        p.add(
            component,
            reg,
            f"{nodes} x {instance_type} (max {most})",
            (0.0 if nodes == 0 else None) if price is None else price * nodes,
            None if price is None else price * most,
            priced=price is not None,
        )
    gib, label = _NODE_DISKS[p.spec.cloud](reg.inputs, template)
    rate = gib * p.usd(p.keys.node_disk) * p.per_month
    p.add("storage", reg, f"{nodes} x {gib} GiB {label}", nodes * rate, most * rate)


def _node_pool(p: _Pricing, reg: Registration, node_classes: Mapping[str, Mapping[str, Any]]) -> None:
    """A Karpenter NodePool: the nodes it launches are the GPU group's, so it is priced at the group's desired and
    maximum sizes, as the managed node group it replaces is (the same node-hours whichever autoscaler runs them)."""
    spec = reg.inputs.get("spec") or {}
    template = spec.get("template") or {}
    group = p.spec.node_groups.get(((template.get("metadata") or {}).get("labels") or {}).get(NODE_GROUP_LABEL, ""))
    if group is None:
        return
    instance_type = next(
        (
            (r.get("values") or ["?"])[0]
            for r in (template.get("spec") or {}).get("requirements") or []
            if r.get("key") == "node.kubernetes.io/instance-type"
        ),
        "?",
    )
    nodes, most = group.desired_nodes, max(group.max_nodes, group.desired_nodes)
    price = _instance_price(instance_type, p.spec, p.instance_prices)
    if price is None:
        p.unpriced.append(f"{reg.name}: {instance_type} has no list price; set prices.{instance_type}")
    p.add(
        "gpu-nodes",
        reg,
        f"{nodes} x {instance_type} (max {most}, launched by Karpenter)",
        (0.0 if nodes == 0 else None) if price is None else price * nodes,
        None if price is None else price * most,
        priced=price is not None,
    )
    node_class = node_classes.get(((template.get("spec") or {}).get("nodeClassRef") or {}).get("name"), {})
    gib = sum(
        int(str(b.get("ebs", {}).get("volumeSize", "0")).removesuffix("Gi"))
        for b in (node_class.get("spec") or {}).get("blockDeviceMappings") or []
    )
    rate = gib * p.usd(p.keys.node_disk) * p.per_month
    p.add("storage", reg, f"{nodes} x {gib} GiB gp3 root", nodes * rate, most * rate)


def _eks_disks(props: Mapping[str, Any], template: Mapping[str, Any]) -> tuple[int, str]:
    return sum(b.get("ebs", {}).get("volumeSize", 0) for b in template.get("blockDeviceMappings", [])), "gp3 root"


def _ack_disks(props: Mapping[str, Any], template: Mapping[str, Any]) -> tuple[int, str]:
    return props.get("systemDiskSize", 0) + sum(d.get("size", 0) for d in props.get("dataDisks", [])), "ESSD"


# A node's disks as each cloud's node group declares them: EKS in the launch template's block devices, ACK on the
# node pool (system and data disks). How, not which fact: a function per cloud.
_NODE_DISKS = {"aws": _eks_disks, "alicloud": _ack_disks}
GIB_IN_GB = 1.073741824  # the services bill per GB-month


def _lustre(p: _Pricing, reg: Registration) -> None:
    props = reg.inputs
    table_fsx = p.rates["fsx_lustre"]
    deployment = props.get("deploymentType", "PERSISTENT_2")
    rate = (
        table_fsx["SCRATCH_2"]
        if deployment.startswith("SCRATCH")
        else table_fsx["PERSISTENT_2"][int(props.get("perUnitStorageThroughput", 125))]
    )
    gb = props.get("storageCapacity", 0) * GIB_IN_GB
    p.add("storage", reg, f"FSx for Lustre {props.get('storageCapacity')} GiB {deployment}", gb * rate * p.per_month)


def _nas(p: _Pricing, reg: Registration) -> None:
    props = reg.inputs
    kind = "cpfs" if props.get("fileSystemType") == "cpfs" else "nas_extreme"
    gb = props.get("capacity", 0) * GIB_IN_GB
    p.add("storage", reg, f"{kind.upper()} {props.get('capacity')} GiB", gb * p.usd(kind) * p.per_month)


# Each cloud's file system bills by its own dimensions (FSx: deployment and throughput; NAS/CPFS: kind).
_FILE_SYSTEMS = {"aws": _lustre, "alicloud": _nas}


def _bucket(p: _Pricing, reg: Registration) -> None:
    if "-audit" in reg.name:
        return
    tb = p.spec.storage.object_storage.expected_size_tb
    p.add(
        "storage",
        reg,
        f"{tb:g} TB expected data (spec storage.objectStorage.expectedSizeTb)",
        tb * 1000 * p.usd(p.keys.object_storage) * p.per_month,
    )


def _cluster(p: _Pricing, reg: Registration) -> None:
    edition = profile(p.spec.cloud).control_plane_edition
    if p.kubernetes_support == "extended" and p.keys.control_plane_extended:
        p.add("control-plane", reg, f"{edition} control plane, extended support", p.usd(p.keys.control_plane_extended))
    else:
        p.add("control-plane", reg, f"{edition} control plane", p.usd(p.keys.control_plane))


def _interface_endpoint(p: _Pricing, reg: Registration) -> None:
    if reg.inputs.get("vpcEndpointType") != "Interface" or not p.keys.interface_endpoint:
        return
    azs = len(reg.inputs.get("subnetIds", []))
    p.add("networking", reg, f"interface endpoint in {azs} AZs", azs * p.usd(p.keys.interface_endpoint))


# How each resource role (catalog/clouds.yaml resource_types) is priced; roles not here cost nothing of their own.
_PRICERS: dict[str, Callable[[_Pricing, Registration], None]] = {
    "node_group": _node_group,
    "file_system": lambda p, reg: _FILE_SYSTEMS[p.spec.cloud](p, reg),
    "bucket": _bucket,
    "cluster": _cluster,
    "nat_gateway": lambda p, reg: p.add("networking", reg, "NAT gateway", p.usd(p.keys.nat_gateway)),
    "interface_endpoint": _interface_endpoint,
    "key": lambda p, reg: p.add("storage", reg, "customer-managed key", p.usd(p.keys.kms_key) * p.per_month),
}
