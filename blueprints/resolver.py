"""resolve(spec) -> ResolvedPlan: real shapes, prices and a note for every way they differ from the ask."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Optional

from catalog import Catalog, Shape, dra, load_catalog
from catalog.addons import AddonVersions, addon_versions
from catalog.clouds import profile
from catalog.fabric import default_image, published_busbw_gbps
from catalog.file_systems import cpfs_scale_out_step_gib, cpfs_source, customer_key_types, encryption_source
from catalog.gpu_models import acceptance_expectation, mig_layouts, mig_models
from catalog.kubernetes_versions import VersionSupport, support, supported_versions
from catalog.prices import Quote, hourly_price, overridden_price, quote
from catalog.system_shapes import load_system_shapes
from catalog.topology import NetworkTopology, intended_topology, network_topology, unlabelled_reason

from . import clock
from .conflicts import MAX_NODE_GROUPS, spec_conflicts
from .errors import BlueprintError, did_you_mean
from .spec import ClusterSpec, NodeGroupSpec, SystemNodesSpec

# A preset's hourly guidance is only a guide; a difference beyond this fraction earns a note.
GUIDANCE_TOLERANCE = 0.25


@dataclass(frozen=True)
class ResolvedNodeGroup:
    name: str
    spec: NodeGroupSpec
    shape: Shape
    usd_per_hour: Optional[float]
    price_source: str
    rdma_interfaces: int
    placement_group: bool
    notes: tuple[str, ...]
    # the zone the group's nodes go in (RDMA groups, reservations, capacity blocks); None: the cluster's zones
    zone: Optional[str] = None
    # acceptance/gpu_check.py's expectation for this shape (None when the check is off)
    acceptance: Optional[dict] = None
    # bus bandwidth the fabric validation must reach: threshold x the published two-node figure (None: not judged)
    fabric_min_busbw_gbps: Optional[float] = None
    price_as_of: Optional[str] = None  # date of the price used (None: a stack override or no price)
    price_option: str = "on-demand"  # purchase option the price is for (spot, capacity-block...)
    # the Kueue Topology the group's flavor names (queueing.topology); None: quota-only admission
    topology: Optional[NetworkTopology] = None
    # Kueue asks the autoscaler for a gang's nodes (a ProvisioningRequest) before placing it by the topology
    provisioned: bool = False
    # a DRA group's fabric devices (EFA) are claimed through the fabric's DRA driver as well (catalog/dra.yaml)
    rdma_dra: bool = False

    @property
    def gpus_per_node(self) -> int:
        return self.shape.gpu.count


@dataclass(frozen=True)
class ResolvedSystemGroup:
    """The untainted CPU group for cluster services."""

    spec: SystemNodesSpec
    instance_type: str
    usd_per_hour: Optional[float]
    price_source: str


@dataclass(frozen=True)
class ResolvedPlan:
    spec: ClusterSpec
    node_groups: tuple[ResolvedNodeGroup, ...]
    notes: tuple[str, ...] = field(default=())
    kubernetes: Optional[VersionSupport] = None
    system: Optional[ResolvedSystemGroup] = None
    addons: Optional[AddonVersions] = None
    fabric_image: Optional[str] = None  # the stack's fabric validation image, else the cloud's default (catalog)
    zone: Optional[str] = None  # the file system's zone and RDMA groups' default (from the spec, never a data source)

    @property
    def rdma(self) -> bool:
        return any(g.rdma_interfaces for g in self.node_groups)

    def instance_prices(self) -> dict[str, Optional[float]]:
        """USD/hour by instance type, as resolved (stack overrides, then the catalog for the region)."""
        prices = {g.shape.instance_type: g.usd_per_hour for g in self.node_groups}
        if self.system:
            prices[self.system.instance_type] = self.system.usd_per_hour
        return prices

    def gpu_hourly_usd(self) -> Optional[float]:
        """Hourly cost of the desired GPU nodes, or None when a shape has no known price."""
        total = 0.0
        for group in self.node_groups:
            if group.usd_per_hour is None:
                return None
            total += group.usd_per_hour * group.spec.desired_nodes
        return total


def _shape_meets(shape: Shape, group: NodeGroupSpec, rdma: bool, region: str) -> bool:
    return (
        shape.gpu.model == group.gpu_model
        and shape.gpu.count >= group.gpus_per_node
        and shape.gpu.memory_gib >= (group.min_gpu_memory_gib or 0)
        and shape.vcpus >= (group.min_vcpus or 0)
        and shape.memory_gib >= (group.min_memory_gib or 0)
        and (not rdma or shape.rdma.kind != "none")
        and shape.offered_in(region)
    )


# How a node group's capacity is billed: an ODCR ("reservation") bills at the on-demand rate.
CAPACITY_OPTION = {
    "on-demand": "on-demand",
    "reservation": "on-demand",
    "spot": "spot",
    "capacity-block": "capacity-block",
}


def _quote(shape: Shape, spec: ClusterSpec, option: str = "on-demand") -> Optional[Quote]:
    """The catalog's price for the shape in the stack's region (prices.yaml), else the nearest documented one."""
    return quote(shape.instance_type, spec.region, option)


def _price(shape: Shape, spec: ClusterSpec, option: str = "on-demand") -> tuple[Optional[float], str]:
    return hourly_price(shape.instance_type, spec.region, option, spec.prices)


def _why_none(catalog: Catalog, spec: ClusterSpec, name: str, group: NodeGroupSpec) -> str:
    """Name the requirement no shape meets, and what the catalog does offer."""
    where = f"cluster.nodeGroups.{name}"
    shapes = catalog.for_cloud(spec.cloud)
    models = sorted({s.gpu.model for s in shapes})
    if group.gpu_model not in models:
        return (
            f"{where}.gpuModel: unknown GPU model {group.gpu_model!r} on {spec.cloud}; models: {', '.join(models)}"
            f"{did_you_mean(group.gpu_model, models)}"
        )
    same = [s for s in shapes if s.gpu.model == group.gpu_model]
    counts = sorted({s.gpu.count for s in same})
    if not any(s.gpu.count >= group.gpus_per_node for s in same):
        return (
            f"{where}.gpusPerNode: no {spec.cloud} shape has {group.gpus_per_node} x {group.gpu_model}; "
            f"shapes have {', '.join(map(str, counts))}"
        )
    if group_rdma(spec, group):
        kind = profile(spec.cloud).rdma.name
        with_rdma = [s for s in same if s.rdma.kind != "none"]
        if not any(s.offered_in(spec.region) for s in with_rdma):
            listed = "; ".join(f"{s.instance_type} ({', '.join(s.regions)})" for s in shapes if s.rdma.kind != "none")
            field = f"{where}.rdma" if group.rdma is not None else "networking.rdma"
            return (
                f"{field}: no {group.gpu_model} shape with {kind} is sold in {spec.region}; "
                f"shapes with {kind}: {listed} (or set rdma: false on the group or networking.rdma: false)"
            )
    sold = sorted({r for s in same for r in s.regions})
    if not any(s.offered_in(spec.region) for s in same):
        return f"region: {group.gpu_model} shapes are not sold in {spec.region}; regions: {', '.join(sold)}"
    return (
        f"{where}: no {group.gpu_model} shape in {spec.region} meets minGpuMemoryGib/minVcpus/minMemoryGib "
        f"({group.min_gpu_memory_gib}/{group.min_vcpus}/{group.min_memory_gib})"
    )


def _pinned(catalog: Catalog, spec: ClusterSpec, name: str, group: NodeGroupSpec) -> Shape:
    where = f"cluster.nodeGroups.{name}.instanceType"
    shape = catalog.get(group.instance_type or "")
    if shape is None or shape.cloud != spec.cloud:
        known = ", ".join(s.instance_type for s in catalog.for_cloud(spec.cloud))
        raise BlueprintError(where, f"{group.instance_type!r} is not in the {spec.cloud} catalog; known: {known}")
    if not shape.offered_in(spec.region):
        raise BlueprintError(
            where, f"{shape.instance_type} is not sold in {spec.region}; regions: {', '.join(shape.regions)}"
        )
    if shape.gpu.model != group.gpu_model or shape.gpu.count < group.gpus_per_node:
        raise BlueprintError(
            where,
            f"{shape.instance_type} has {shape.gpu.count} x {shape.gpu.model}, "
            f"not {group.gpus_per_node} x {group.gpu_model}",
        )
    if group_rdma(spec, group) and shape.rdma.kind == "none":
        with_rdma = ", ".join(s.instance_type for s in catalog.for_cloud(spec.cloud) if s.rdma.kind != "none")
        raise BlueprintError(where, f"{shape.instance_type} has no RDMA interface; shapes with RDMA: {with_rdma}")
    return shape


def group_rdma(spec: ClusterSpec, group: NodeGroupSpec) -> bool:
    """RDMA for a node group: its own setting, else the cluster's networking.rdma."""
    return spec.networking.rdma if group.rdma is None else group.rdma


def group_placement(spec: ClusterSpec, group: NodeGroupSpec, rdma_interfaces: int) -> bool:
    """A placement group of the group's own: RDMA groups only; never for capacity blocks (AWS places them), and for
    an ODCR only when the group asks (a reservation is not in a placement group unless created in one)."""
    if not rdma_interfaces or group.capacity == "capacity-block" or _deployment_set_limit(spec, group):
        return False
    default = "none" if group.capacity == "reservation" else spec.networking.placement
    return (group.placement or default) == "cluster"


def _deployment_set_limit(spec: ClusterSpec, group: NodeGroupSpec) -> Optional[str]:
    """Why the cloud's placement kind cannot hold the group (an ECS deployment set: no spot instances, at most 20
    in a low-latency one; catalog/clouds.yaml), or None."""
    placement = profile(spec.cloud).placement
    if group.capacity == "spot" and not placement.holds_spot:
        return f"an {placement.family} holds no spot instances"
    if placement.max_instances is not None and group.max_nodes > placement.max_instances:
        return f"a {placement.name} holds at most {placement.max_instances} instances; maxNodes is {group.max_nodes}"
    return None


RESERVED = ("reservation", "capacity-block")


def _check_zone(spec: ClusterSpec, where: str, zone: str) -> None:
    """Zone names as the cloud spells them (us-east-1a, cn-hangzhou-h): catalog/clouds.yaml."""
    names = profile(spec.cloud).zone
    if not names.pattern(spec.region).match(zone):
        raise BlueprintError(
            where, f"{zone!r} is not a zone of {spec.region} (zones there are named like {names.example(spec.region)})"
        )


def _check_reserved(spec: ClusterSpec, name: str, group: NodeGroupSpec, today: Optional[dt.date] = None) -> None:
    """Reservations and capacity blocks as EKS documents them: the reservation's zone, and for a block, a fixed size."""
    where = f"cluster.nodeGroups.{name}"
    if group.capacity in RESERVED and profile(spec.cloud).reservation_needs_zone and not group.zone:
        raise BlueprintError(
            f"{where}.zone",
            f"capacity {group.capacity!r} needs the reservation's zone "
            f"(a subnet there carries the group), for example {spec.region}a",
        )
    if group.capacity == "capacity-block" and not group.min_nodes == group.desired_nodes == group.max_nodes:
        raise BlueprintError(
            where,
            "a capacity block holds a fixed number of instances: set minNodes = desiredNodes "
            f"= maxNodes to the block's size (got {group.min_nodes}/{group.desired_nodes}/"
            f"{group.max_nodes})",
        )
    if group.capacity_block_ends_at and group.capacity != "capacity-block":
        raise BlueprintError(f"{where}.capacityBlockEndsAt", "only a capacity-block group has an end time")
    if group.capacity_block_starts_at and group.capacity != "capacity-block":
        raise BlueprintError(f"{where}.capacityBlockStartsAt", "only a capacity-block group has a start time")
    block_window(where, group, today)


def _instant(where: str, value: str) -> dt.datetime:
    try:
        return dt.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    except ValueError:
        raise BlueprintError(where, f"{value!r} is not a date and time (UTC, like 2026-12-01T11:30:00Z)") from None


def block_window(
    where: str, group: NodeGroupSpec, today: Optional[dt.date] = None
) -> tuple[Optional[dt.datetime], Optional[dt.datetime]]:
    """A capacity block's start and end as real instants: an impossible date, an end already past (as of ``today``,
    default the plan's today, blueprints.clock) or a start not before the end is bad input, not a crash or a plan
    that cannot apply."""
    starts = (
        _instant(f"{where}.capacityBlockStartsAt", group.capacity_block_starts_at)
        if group.capacity_block_starts_at
        else None
    )
    ends = (
        _instant(f"{where}.capacityBlockEndsAt", group.capacity_block_ends_at) if group.capacity_block_ends_at else None
    )
    now = dt.datetime.combine(today or clock.today(), dt.time(), dt.timezone.utc)
    if ends is not None and ends <= now:
        raise BlueprintError(
            f"{where}.capacityBlockEndsAt",
            f"{group.capacity_block_ends_at} has passed: give the end of a block that has not ended yet",
        )
    if starts is not None and ends is not None and starts >= ends:
        raise BlueprintError(
            f"{where}.capacityBlockStartsAt",
            f"{group.capacity_block_starts_at} is not before the block's end {group.capacity_block_ends_at}",
        )
    return starts, ends


def plan_zone(spec: ClusterSpec) -> tuple[Optional[str], list[str]]:
    """The zone of the file system and RDMA groups' default: networking.zone, else the zone of the first RDMA group
    that names one, else on AWS the region's zone a, chosen once here from the spec (never from a data source, whose
    order may change) and written in the plan notes."""
    if spec.networking.zone:
        return spec.networking.zone, []
    for name, group in spec.node_groups.items():
        if group.zone and group_rdma(spec, group):
            return group.zone, []
    users = [f"node group {n}" for n, g in spec.node_groups.items() if group_rdma(spec, g) and not g.zone]
    if spec.storage.parallel_fs.type != "none":
        users.append("the file system")
    zone = profile(spec.cloud).zone.default(spec.region)
    if zone is None:
        # Alibaba Cloud zone letters differ by region: the program takes the first zone, by name, that sells the
        # shape (the same whatever order the data source lists them in); the spec can pin it.
        return None, [
            f"zone: {' and '.join(users)} go in the first zone, by name, that sells the GPU shape; set "
            "networking.zone to pin it before the first `pulumi up`"
        ] if users else []
    if not users:
        return zone, []
    verb = "goes" if len(users) == 1 else "go"
    return zone, [
        f"zone: {' and '.join(users)} {verb} in {zone}, the default zone for {spec.region}; set networking.zone "
        "to pin another before the first `pulumi up` (moving it later replaces them)"
    ]


def _cheapest(candidates: list[Shape], spec: ClusterSpec) -> Shape:
    def key(shape: Shape) -> tuple[bool, float, int, str]:
        price, _ = _price(shape, spec)
        # A shape sold pay-as-you-go in the region beats one sold there only on request, whatever the prices.
        on_request = spec.region not in shape.regions
        return (on_request, price if price is not None else float("inf"), shape.gpu.count, shape.instance_type)

    return min(candidates, key=key)


def _karpenter_notes(spec: ClusterSpec, group: NodeGroupSpec, shape: Shape) -> list[str]:
    """What a managed node group holds that a Karpenter NodePool does not (components/kubernetes/karpenter.py)."""
    if spec.autoscaling.engine != "karpenter" or not (group.min_nodes or group.capacity_block_starts_at):
        return []
    return [
        f"Karpenter launches {shape.instance_type} nodes only for pending pods: minNodes and a capacity block's "
        "start schedule are not held (the cost still counts desiredNodes)"
    ]


def _notes(spec: ClusterSpec, group: NodeGroupSpec, shape: Shape, placement: bool) -> list[str]:
    notes: list[str] = []
    label = shape.instance_type
    if shape.gpu.count > group.gpus_per_node:
        notes.append(
            f"{group.gpus_per_node} x {group.gpu_model} requested per node; {spec.cloud}'s smallest such shape "
            f"in {spec.region} is {label} with {shape.gpu.count}"
        )
    if group.min_network_gbps and shape.network_baseline_gbps < group.min_network_gbps:
        burst = f" (up to {shape.network_gbps:g} burst)" if shape.network_gbps > shape.network_baseline_gbps else ""
        notes.append(
            f"{group.min_network_gbps} Gbps requested; {label} sustains {shape.network_baseline_gbps:g} Gbps{burst}"
        )
    if shape.sales_note:
        notes.append(f"{label}: {shape.sales_note}")

    if spec.region not in shape.regions:
        payg = ", ".join(shape.regions) or "none in the data"
        notes.append(
            f"{label} is sold in {spec.region} on request only (no pay-as-you-go offer there in Alibaba's "
            f"DescribeZones data): confirm quota with Alibaba Cloud sales; pay-as-you-go regions: {payg}"
        )
    if group.min_local_nvme_gb and shape.local_nvme_gb < group.min_local_nvme_gb:
        notes.append(
            f"{group.min_local_nvme_gb} GB local NVMe requested; {label} has {shape.local_nvme_gb} GB "
            f"(scratch falls back to the encrypted root volume)"
        )
    rdma = group_rdma(spec, group)
    if not rdma and shape.rdma.kind != "none":
        off = "networking.rdma is off" if group.rdma is None else "the group sets rdma: false"
        notes.append(f"{label} supports {shape.rdma.kind.upper()} but {off}, so none is attached")
    if rdma and shape.rdma.kind != "none" and not placement:
        why = (
            "capacity blocks place instances themselves"
            if group.capacity == "capacity-block"
            else _deployment_set_limit(spec, group)
            if _deployment_set_limit(spec, group)
            else "an ODCR is not in a placement group unless placement: cluster asks"
            if group.capacity == "reservation" and group.placement is None
            else "placement: none"
        )
        kind = profile(spec.cloud).placement.name
        notes.append(f"no {kind} for {label} ({why})")
    option = CAPACITY_OPTION[group.capacity]
    overridden = overridden_price(spec.prices, shape.instance_type, option) is not None
    if option != "on-demand" and not overridden and _quote(shape, spec, option) is None:
        notes.append(
            f"{group.capacity} capacity: the catalog has no {option} price for {label}; "
            f"the estimate uses the on-demand price, an upper bound"
        )
    price, source = _price(shape, spec, option)
    found = None if overridden else (_quote(shape, spec, option) or _quote(shape, spec))
    if price is None:
        notes.append(f"{label} has {source}; its nodes are left out of the cost estimate")
    elif found is not None and not found.exact:
        notes.append(f"{found.note} (override with prices)")
    elif found is None and not overridden and shape.home_region != spec.region:
        notes.append(f"{label} priced from {shape.home_region}; {spec.region} may differ (override with prices)")
    return notes


def _check_mig(spec: ClusterSpec, name: str, group: NodeGroupSpec, shape: Shape) -> None:
    """A MIG layout the GPU Operator has for the shape's GPU (catalog/gpu_models.yaml `mig`, from the operator's own
    MIG configurations)."""
    profile = group.mig_profile
    if profile is None:
        return
    where = f"cluster.nodeGroups.{name}.migProfile"
    layouts = ["all-disabled", *mig_layouts(shape.gpu.model)]  # all-disabled: whole GPUs, valid everywhere
    if len(layouts) == 1:
        raise BlueprintError(
            where,
            f"{shape.instance_type} has {shape.gpu.model} GPUs, which have no MIG; "
            f"MIG needs one of {', '.join(sorted(mig_models()))}",
        )
    if profile not in layouts:
        raise BlueprintError(where, f"{shape.gpu.model} takes one of {', '.join(layouts)}, not {profile}")


# Kueue counts only Ready nodes for a topology-aware flavor (kueue v0.19.2 site/content/en/docs/concepts/
# topology_aware_scheduling.md, "Capacity calculation"): the smallest RDMA gang, two nodes, must be there already,
# unless the autoscaler adds them first (provisions_gangs).
TOPOLOGY_MIN_NODES = 2


def provisions_gangs(spec: ClusterSpec, group: NodeGroupSpec) -> bool:
    """Whether the group's autoscaler adds a gang's nodes before Kueue places it by topology: Kueue's Provisioning
    admission check creates a ProvisioningRequest once a job holds quota, and places the gang by topology only after
    the request is Provisioned (kueue v0.19.2 topology_aware_scheduling.md "ClusterAutoscaler support";
    pkg/scheduler/flavorassigner/tas_flavorassigner.go podSetTopologyRequest delays TAS while the flavor has a
    ProvisioningRequest check). The upstream Cluster Autoscaler serves such requests (kubernetes/autoscaler
    cluster-autoscaler/FAQ.md, "How can I use ProvisioningRequest to run batch workloads", 1.30.2 and later for
    best-effort-atomic-scale-up); Karpenter and ACK's managed autoscaler document no ProvisioningRequest support. A
    capacity-block group is sized by its schedule, not by the autoscaler. A DRA group's pods claim their GPUs, which
    is no request of the check's managedResources, so Kueue asks for no nodes for them (kueue v0.19.2
    pkg/controller/admissionchecks/provisioning/controller.go reqIsNeeded, podUses)."""
    return (
        spec.autoscaling.enabled
        and group.devices != "dra"
        and spec.autoscaling.engine in profile(spec.cloud).provisioning_request_engines
        and group.capacity != "capacity-block"
        and group.max_nodes > group.min_nodes
    )


def _unlabelled_note(spec: ClusterSpec, name: str, group: NodeGroupSpec, shape: Shape) -> list[str]:
    """Why an ACK group that can hold a multi-node gang (two nodes, a team quota above one node) gets no Topology
    (catalog/topology.py): ACK labels its network topology on Lingjun nodes only, and its autoscaler documents no
    ProvisioningRequest support."""
    spans_nodes = any(team.gpus > shape.gpu.count for team in spec.kubernetes.teams.values())
    why = unlabelled_reason(spec.cloud, shape.instance_type)
    if why is None or group.max_nodes < TOPOLOGY_MIN_NODES or not spans_nodes:
        return []
    return [f"{name}: no topology-aware queueing: {why}"]


def _gang_scaler(spec: ClusterSpec, group: NodeGroupSpec) -> str:
    """Why nothing adds a gang's nodes before Kueue places it by topology."""
    if group.devices == "dra":
        return "Kueue's ProvisioningRequests ask for no nodes for pods that claim their GPUs (devices: dra)"
    if not spec.autoscaling.enabled:
        return "no autoscaler runs, so nothing adds nodes for Kueue's ProvisioningRequests first"
    return f"its autoscaler ({spec.autoscaling.engine}) adds no nodes for Kueue's ProvisioningRequests first"


def group_topology(
    spec: ClusterSpec, name: str, group: NodeGroupSpec, shape: Shape, rdma_interfaces: int
) -> tuple[Optional[NetworkTopology], list[str]]:
    """The Kueue Topology of an RDMA group's flavor (kubernetes.queueing.topology), and a note where auto gives none."""
    queueing = spec.kubernetes.queueing
    if not (spec.kubernetes.enabled and queueing.enabled) or queueing.topology == "off":
        return None, []
    labelled = network_topology(spec.cloud, shape.instance_type)
    if rdma_interfaces and queueing.topology == "rdma":
        topology = labelled or intended_topology(spec.cloud)
        return topology, _annotation_note(name, topology)
    if labelled is None:
        return None, _unlabelled_note(spec, name, group, shape)
    if not rdma_interfaces:
        return None, []
    if group.min_nodes < TOPOLOGY_MIN_NODES and not provisions_gangs(spec, group):
        return None, [
            f"{name}: no topology-aware queueing: Kueue places a gang by topology on Ready nodes only, minNodes "
            f"is {group.min_nodes}, and {_gang_scaler(spec, group)}; "
            f"a group that keeps {TOPOLOGY_MIN_NODES} nodes up (on reserved capacity: capacity "
            "reservation or capacity-block) gets its cloud's network Topology"
        ]
    return labelled, _annotation_note(name, labelled)


def _annotation_note(name: str, topology: NetworkTopology) -> list[str]:
    """Kueue refuses a job without a topology annotation on a topology flavor when its ClusterQueue also has flavors
    without one, as the teams' queues do (the system CPU flavor): kueue v0.19.2
    pkg/scheduler/flavorassigner/tas_flavorassigner.go checkPodSetAndFlavorMatchForTAS, "supports only
    TopologyAwareScheduling"; the annotations: apis/kueue/v1beta2/topology_types.go."""
    return [
        f"{name}: Kueue places gangs by Topology {topology.name} ({', '.join(topology.kueue_levels)}): a job's GPU "
        "pods there must carry kueue.x-k8s.io/podset-preferred-topology or podset-required-topology (a level), or "
        'podset-unconstrained-topology: "true"; Kueue refuses them without one'
    ]


# Clouds whose autoscaler builds a node of an empty group from its instance type alone, with no way for us to declare
# extended resources: the cluster-autoscaler's Alibaba Cloud provider (kubernetes/autoscaler tag
# cluster-autoscaler-chart-9.59.0, cloudprovider/alicloud/alicloud_manager.go buildNodeFromTemplate) sets
# nvidia.com/gpu to the type's GPU count and turns scaling-configuration tags into labels, never resources; ACK's
# node-scaling documentation, as far as we found, names no way to declare them. Shared or MIG GPUs are invisible
# from zero.
NO_TEMPLATE_RESOURCES = ("alicloud",)


def _check_from_zero(spec: ClusterSpec, name: str, group: NodeGroupSpec, shape: Shape) -> None:
    """Shared GPUs or MIG instances on a group that scales from zero need an autoscaler that can be told about them
    (AWS: node-template resource tags, components/aws/cluster.py _gpu_template)."""
    mig = group.mig_profile not in (None, "all-disabled") and mig_layouts(shape.gpu.model).get(group.mig_profile)
    if not (group.sharing or mig):
        return
    field = "sharing" if group.sharing else "migProfile"
    if spec.autoscaling.enabled and spec.autoscaling.engine == "karpenter":
        # aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go computeCapacity: an instance type
        # offers its physical nvidia.com/gpu and no nvidia.com/mig-*, and a NodePool holds no minimum.
        raise BlueprintError(
            f"cluster.nodeGroups.{name}.{field}",
            "Karpenter sizes a node by its instance type's whole GPUs (no shared counts, no MIG resources), so it "
            f"would launch too many nodes or none: use autoscaling.engine: cluster-autoscaler, or remove {field}",
        )
    if spec.cloud not in NO_TEMPLATE_RESOURCES or group.min_nodes > 0:
        return
    raise BlueprintError(
        f"cluster.nodeGroups.{name}.{field}",
        f"{spec.cloud}'s autoscaler sees only whole nvidia.com/gpu on a pool at zero nodes, so shared or MIG GPUs "
        "never scale it up: set minNodes to at least 1 (the autoscaler then reads a live node), or remove "
        f"{field} (ACK's own shared-GPU scheduling is not declared by this blueprint: docs/architecture.md)",
    )


def _check_sharing(spec: ClusterSpec, name: str, group: NodeGroupSpec) -> None:
    """GPU sharing is the GPU Operator's device plugin configured per node group (on ACK too: our GPU pools turn ACK's
    own plugin off, components/kubernetes/nodes.py ACK_GPU_SCHEDULE_LABEL): it needs that plugin."""
    if group.sharing is None:
        return
    where = f"cluster.nodeGroups.{name}.sharing"
    if not spec.kubernetes.enabled or spec.kubernetes.gpu_stack != "gpu-operator":
        raise BlueprintError(
            where, "sharing is configured through the GPU Operator: set kubernetes.gpuStack: gpu-operator"
        )


def _check_devices(spec: ClusterSpec, name: str, group: NodeGroupSpec) -> None:
    """`devices: dra` needs a control plane, driver and Kueue that handle DRA (catalog/dra.py), and the GPU Operator,
    whose per-node label keeps its device plugin off the group (NVIDIA's DRA driver refuses to share a node with it)."""
    if group.devices != "dra":
        return
    where = f"cluster.nodeGroups.{name}.devices"
    if not spec.kubernetes.enabled or spec.kubernetes.gpu_stack != "gpu-operator":
        raise BlueprintError(
            where,
            "dra keeps the device plugin off the group through the GPU Operator: set kubernetes.gpuStack: "
            "gpu-operator, or devices: plugin",
        )
    if not dra.supports(spec.cloud, spec.kubernetes_version):
        raise BlueprintError(
            where,
            f"dra needs Kubernetes {dra.min_minor(spec.cloud)} or later on {spec.cloud} (the control plane's DRA API, "
            f"NVIDIA's DRA driver and Kueue's DRA quotas, catalog/dra.yaml); this cluster is "
            f"{spec.kubernetes_version}: set kubernetesVersion, or devices: plugin",
        )
    if group.sharing is not None or group.mig_profile not in (None, "all-disabled"):
        raise BlueprintError(
            where,
            "dra hands out whole GPUs (DeviceClass gpu.nvidia.com); sharing and migProfile configure the "
            "device plugin: remove them, or use devices: plugin",
        )


def _devices_notes(spec: ClusterSpec, name: str, group: NodeGroupSpec, rdma_interfaces: int) -> list[str]:
    """Which device model a DRA group uses and why, and what stays on a device plugin."""
    if group.devices != "dra":
        return []
    fabric = profile(spec.cloud).rdma.name
    since = dra.fabric_min_minor(spec.cloud)
    if not rdma_interfaces:
        fabric_note = ""
    elif dra.fabric_dra(spec.cloud, spec.kubernetes_version):
        fabric_note = f"; its {fabric} devices are claimed in the same claim ({dra.fabric_chart(spec.cloud)})"
    else:
        fabric_note = f"; {fabric} stays on its device plugin (" + (
            f"its DRA driver needs Kubernetes {since})" if since else f"no versioned {fabric} DRA driver is pinned)"
        )
    return [
        f"{name}: devices dra (Kubernetes {spec.kubernetes_version}; {spec.cloud} supports it from "
        f"{dra.min_minor(spec.cloud)}, catalog/dra.yaml): NVIDIA's DRA driver publishes the GPUs as ResourceSlices "
        "and pods claim them through the group's ResourceClaimTemplate in their team namespace, which Kueue counts "
        "against the team's quota; the GPU Operator's device plugin is off on its nodes, and the acceptance check "
        "(which asks for nvidia.com/gpu) neither gates nor checks them" + fabric_note
    ]


PRICE_MAX_AGE_DAYS = 180


def _stale_prices(groups: list[ResolvedNodeGroup], spec: ClusterSpec, today: Optional[dt.date]) -> list[str]:
    """List prices change: say when the catalog's are older than half a year."""
    today = today or dt.date.today()
    old = sorted(
        {
            (g.price_as_of or g.shape.price.as_of, g.shape.instance_type)
            for g in groups
            if g.usd_per_hour is not None
            and g.price_source != "stack override (prices)"
            and (today - dt.date.fromisoformat(g.price_as_of or g.shape.price.as_of)).days > PRICE_MAX_AGE_DAYS
        }
    )
    return [
        f"{instance} list price is from {as_of} ({(today - dt.date.fromisoformat(as_of)).days} days ago); "
        f"check it on the price page or set prices.{instance}"
        for as_of, instance in old
    ]


def _kubernetes_support(spec: ClusterSpec, today: Optional[dt.date]) -> tuple[VersionSupport, list[str]]:
    """The version's support on the cloud today: an error once the cloud no longer creates it, a note in
    EKS extended support (it costs more)."""
    state = support(spec.cloud, spec.kubernetes_version, today)
    service = profile(spec.cloud).kubernetes_service
    now = [v for v in supported_versions(spec.cloud) if support(spec.cloud, v, today).support == "standard"]
    where = "cluster.kubernetesVersion"
    if state.support == "unknown":
        raise BlueprintError(
            where, f"{service} does not offer Kubernetes {spec.kubernetes_version}; offered: {', '.join(now)}"
        )
    if state.support == "ended":
        raise BlueprintError(
            where,
            f"{service} support for Kubernetes {spec.kubernetes_version} ended on "
            f"{state.ends.isoformat()}; use one of {', '.join(now)}",
        )
    if state.support == "extended":
        return state, [
            f"Kubernetes {spec.kubernetes_version} is in EKS extended support until "
            f"{state.ends.isoformat()}: the control plane costs more; upgrade to one of {', '.join(now)}"
        ]
    return state, []


def _cpfs_step_notes(spec: ClusterSpec) -> list[str]:
    """CPFS grows only in the region's scale-out step (2400 GiB in Ulanqab, 1200 elsewhere): say which; and say
    that it cannot be encrypted with the stack's key."""
    fs = spec.storage.parallel_fs
    if fs.type != "cpfs":  # offered on Alibaba Cloud only (the spec checks)
        return []
    step = cpfs_scale_out_step_gib(spec.region)
    return [
        f"storage: CPFS in {spec.region} scales out in steps of {step} GiB and never shrinks ({cpfs_source()})",
        # Said once here, and judged by the packs' NAS encryption rule.
        "storage: CPFS is not encrypted with the stack's KMS key: CreateFileSystem takes a customer key only for "
        f"{', '.join(customer_key_types())} file systems ({encryption_source()}), and no encryption setting for "
        "CPFS; keep regulated data in the SSE-KMS bucket (CPFS as its cache) or use parallelFs.type: nas",
    ]


def _fabric_notes(spec: ClusterSpec, groups: list[ResolvedNodeGroup]) -> list[str]:
    """Say where the multi-node fabric validation cannot be declared, and why."""
    k8s = spec.kubernetes
    if not (k8s.enabled and k8s.fabric_validation.enabled):
        return []
    notes = []
    for g in (g for g in groups if g.rdma_interfaces):
        if g.spec.max_nodes < 2:
            notes.append(f"{g.name}: fabric validation needs two nodes; maxNodes is {g.spec.max_nodes}")
        elif not k8s.acceptance.enabled:
            notes.append(f"{g.name}: fabric validation runs on accepted nodes only; kubernetes.acceptance is off")
        elif k8s.fabric_validation.image is None and default_image(spec.cloud) is None:
            notes.append(
                f"{g.name}: no eRDMA fabric validation: set kubernetes.fabricValidation.image to an image with "
                "PyTorch and the eRDMA user-space driver (Alibaba Cloud publishes no default)"
            )
    return notes


def _system_group(spec: ClusterSpec) -> tuple[ResolvedSystemGroup, list[str]]:
    """The system group's shape and its price in the stack's region; no price is a note, never another region's."""
    shapes = load_system_shapes()
    instance_type = spec.system_nodes.instance_type or shapes.defaults[spec.cloud]
    override = overridden_price(spec.prices, instance_type)  # system nodes are bought on demand
    if override is not None:
        return ResolvedSystemGroup(spec.system_nodes, instance_type, override, "stack override (prices)"), []
    shape = shapes.get(instance_type)
    found = shape.price_in(spec.region) if shape else None
    if found is None:
        why = "is not in catalog/system_shapes.yaml" if shape is None else f"has no list price for {spec.region}"
        return (
            ResolvedSystemGroup(spec.system_nodes, instance_type, None, "no list price"),
            [
                f"system: {instance_type} {why}; its nodes are left out of the cost estimate "
                f"(set prices.{instance_type})"
            ],
        )
    source = f"{shapes.sources[found.source or shape.sources.price]} as of {found.as_of} ({found.region})"
    return ResolvedSystemGroup(spec.system_nodes, instance_type, found.usd_per_hour, source), []


def _raise_all(errors: list[BlueprintError]) -> None:
    """Every problem at once, like the spec's (stackconfig.parse_cluster): one fix round, not one per run."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise BlueprintError.many("", [f"{e.where}: {m}" if e.where else m for e in errors for m in e.messages])


def resolve(spec: ClusterSpec, catalog: Optional[Catalog] = None, today: Optional[dt.date] = None) -> ResolvedPlan:
    catalog = catalog or load_catalog()
    errors = [BlueprintError(*line.split(": ", 1)) for line in spec_conflicts(spec)]
    if len(spec.node_groups) > MAX_NODE_GROUPS:
        _raise_all(errors)  # before any per-group work: bounded time for a file with thousands of groups
    kubernetes, version_notes = None, []
    try:
        kubernetes, version_notes = _kubernetes_support(spec, today)
        if spec.networking.zone:
            _check_zone(spec, "cluster.networking.zone", spec.networking.zone)
        zone, zone_notes = plan_zone(spec)
    except BlueprintError as error:
        errors.append(error)
        zone, zone_notes = spec.networking.zone, []
    groups: list[ResolvedNodeGroup] = []
    for name, group in spec.node_groups.items():
        try:
            groups.append(_resolve_group(catalog, spec, name, group, zone, today))
        except BlueprintError as error:
            errors.append(error)
    _raise_all(errors)
    return _finish(spec, groups, kubernetes, version_notes, zone, zone_notes, today)


def _resolve_group(
    catalog: Catalog, spec: ClusterSpec, name: str, group: NodeGroupSpec, zone: Optional[str], today: Optional[dt.date]
) -> ResolvedNodeGroup:
    """One group's shape, price and placement (resolve collects its errors)."""
    if group.zone:
        _check_zone(spec, f"cluster.nodeGroups.{name}.zone", group.zone)
    _check_reserved(spec, name, group, today)
    if group.instance_type:
        shape = _pinned(catalog, spec, name, group)
    else:
        candidates = [
            s for s in catalog.for_cloud(spec.cloud) if _shape_meets(s, group, group_rdma(spec, group), spec.region)
        ]
        if not candidates:
            where, _, message = _why_none(catalog, spec, name, group).partition(": ")
            raise BlueprintError(where, message)
        shape = _cheapest(candidates, spec)
    _check_mig(spec, name, group, shape)
    _check_sharing(spec, name, group)
    _check_from_zero(spec, name, group, shape)
    _check_devices(spec, name, group)
    rdma_interfaces = shape.rdma.interfaces if group_rdma(spec, group) else 0
    placement = group_placement(spec, group, rdma_interfaces)
    option = CAPACITY_OPTION[group.capacity]
    price, source = _price(shape, spec, option)
    used = (
        None
        if overridden_price(spec.prices, shape.instance_type, option) is not None
        else (_quote(shape, spec, option) or _quote(shape, spec))
    )
    topology, topology_notes = group_topology(spec, name, group, shape, rdma_interfaces)
    own = _notes(spec, group, shape, placement) + _karpenter_notes(spec, group, shape)
    notes = tuple(f"{name}: {n}" for n in own) + tuple(topology_notes)
    notes += tuple(_devices_notes(spec, name, group, rdma_interfaces))
    check = spec.kubernetes.acceptance
    published = published_busbw_gbps(shape.instance_type)
    return ResolvedNodeGroup(
        name,
        group,
        shape,
        price,
        source,
        rdma_interfaces,
        placement,
        notes,
        zone=group.zone or (zone if rdma_interfaces else None),
        # The acceptance check and the fabric validation ask for nvidia.com/gpu, which a DRA node does not advertise.
        acceptance=acceptance_expectation(shape, check.thresholds)
        if check.enabled and group.devices != "dra"
        else None,
        fabric_min_busbw_gbps=round(published * spec.kubernetes.fabric_validation.threshold, 1) if published else None,
        price_as_of=used.as_of if used else None,
        price_option=used.option if used else "on-demand",
        topology=topology,
        provisioned=topology is not None and provisions_gangs(spec, group),
        rdma_dra=bool(
            group.devices == "dra" and rdma_interfaces and dra.fabric_dra(spec.cloud, spec.kubernetes_version)
        ),
    )


def _finish(
    spec: ClusterSpec,
    groups: list[ResolvedNodeGroup],
    kubernetes: Optional[VersionSupport],
    version_notes: list[str],
    zone: Optional[str],
    zone_notes: list[str],
    today: Optional[dt.date],
) -> ResolvedPlan:
    """The system group, zones, notes and the plan, once every group resolved."""
    plan = ResolvedPlan(spec=spec, node_groups=tuple(groups))
    system, system_notes = _system_group(spec)
    system_notes += _fabric_notes(spec, groups) + _cpfs_step_notes(spec)
    distinct = sorted(
        {g.zone for g in groups if g.zone} | ({zone} if zone and spec.storage.parallel_fs.type != "none" else set())
    )
    if len(distinct) > 3:
        raise BlueprintError(
            "cluster.nodeGroups",
            f"the cluster has subnets in three zones; the groups and the file "
            f"system ask for {len(distinct)}: {', '.join(distinct)}",
        )
    plan_notes = (
        version_notes
        + zone_notes
        + [n for g in groups for n in g.notes]
        + system_notes
        + _stale_prices(groups, spec, today)
    )
    hourly = plan.gpu_hourly_usd()
    guide = spec.price_guidance_usd_per_hour
    if guide and hourly is not None and abs(hourly - guide) > GUIDANCE_TOLERANCE * guide:
        plan_notes.append(
            f"the {spec.preset or 'stack'} sizing guidance expects about ${guide:,.2f}/h of GPU nodes; "
            f"this plan's list price is ${hourly:,.2f}/h"
        )
    return ResolvedPlan(
        spec=spec,
        node_groups=tuple(groups),
        notes=tuple(plan_notes),
        kubernetes=kubernetes,
        system=system,
        addons=addon_versions(spec.cloud, spec.kubernetes_version),
        fabric_image=spec.kubernetes.fabric_validation.image or default_image(spec.cloud),
        zone=zone,
    )
