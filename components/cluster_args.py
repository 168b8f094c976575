"""ClusterArgs (AwsClusterArgs, AlicloudClusterArgs): everything a cluster component needs, as plain typed values.

Each cloud's `GpuCluster` takes its own args (a common part plus what that cloud reads), so a cluster can be
declared from any program, not only from a stack file: the blueprint's composition layer (`blueprints.compose`)
fills them from a resolved plan, a consumer fills them by hand. Facts (instance shapes, prices, add-on versions)
arrive here already decided; nothing below reads the catalog, a preset or a stack.
"""

from dataclasses import dataclass, field, fields
from typing import Any, Mapping, Optional, Sequence

from . import inherited_docs  # noqa: F401  (schema descriptions of the common fields)
from .base import Args
from .kubernetes.acceptance import IMAGE as ACCEPTANCE_IMAGE
from .kubernetes.monitoring import MonitoringArgs
from .kubernetes.platform import FabricSettings, GpuNodes, PlatformArgs, PriorityValues, Team
from .kubernetes.serving import ServingArgs


@dataclass(frozen=True)
class GpuGroupArgs(Args):
    """One GPU node group (EKS managed node group / ACK node pool)."""

    name: str
    """The group's name in the cluster, also the `gpu-blueprints/node-group` label."""
    instance_type: str
    """A real shape: the caller has checked it sells in the region."""
    gpu_model: str
    """Written to the `gpu-blueprints/gpu-model` label and the autoscaler's GPU label."""
    gpus: int
    """GPUs per node."""
    min_nodes: int
    """0 lets the group scale to zero when idle."""
    desired_nodes: int
    """The starting size; the autoscaler owns it afterwards."""
    max_nodes: int
    """The most nodes the autoscaler may add: the group's cost ceiling."""
    root_volume_gib: Optional[int] = 200
    """GPU images are large."""
    capacity: Optional[str] = "on-demand"
    """On-demand, spot, reservation or capacity-block."""
    capacity_reservation_id: Optional[str] = None
    """AWS reservation or capacity block."""
    spot_max_price_usd: Optional[float] = None
    """Alibaba spot bid ceiling; None bids up to on-demand."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Kubernetes node labels beyond the ones the cluster sets; none by default."""
    # key, value, effect (Kubernetes spelling), the acceptance gate included when the check gates nodes
    taints: Optional[Sequence[Mapping[str, str]]] = ()
    """Taints (key, value, effect in Kubernetes spelling), the acceptance gate included when the check gates nodes."""
    mig_profile: Optional[str] = None
    """`nvidia.com/mig.config` layout; None leaves GPUs whole."""
    gpu_resources: Optional[int] = 0
    """`nvidia.com/gpu` a node offers (GPUs x MIG slices x sharing replicas); 0 means `gpus`, unless `mig_resources`
    names the node's GPUs instead."""
    mig_slices: Optional[int] = 1
    """MIG instances per GPU that the device plugin counts as `nvidia.com/gpu` (the GPU Operator's single MIG
    strategy); 1 by default (whole GPUs, or MIG under the mixed strategy)."""
    mig_resources: Optional[Mapping[str, int]] = field(default_factory=dict)
    """Under the GPU Operator's mixed MIG strategy, `nvidia.com/mig-<profile>` -> instances a node offers (times
    sharing replicas); the node then offers no `nvidia.com/gpu`. Empty by default."""
    sharing: Optional[str] = None
    """time-slicing or mps: the device plugin advertises each GPU `sharing_replicas` times; None (default): whole."""
    sharing_replicas: Optional[int] = 1
    """Pods per GPU with `sharing`; 1 by default."""
    devices: Optional[str] = "plugin"
    """How pods get the GPUs: plugin (the device plugin's nvidia.com/gpu, the default) or dra (NVIDIA's DRA driver;
    the device plugin is kept off the group's nodes)."""
    rdma_dra: Optional[bool] = False
    """With `devices: dra`, the fabric devices are claimed through the fabric's DRA driver too (EFA: AWS dranet), not
    its device plugin; off by default."""
    rdma_interfaces: Optional[int] = 0
    """EFA interfaces / eRDMA devices per node; 0: no fabric."""
    placement_group: Optional[bool] = False
    """A placement group of the group's own (AWS cluster placement group, Alibaba Cloud low-latency deployment set),
    for RDMA groups that want one; off by default."""
    zone: Optional[str] = None
    """The zone of the group's nodes (one subnet / vSwitch), which must sell the shape; None puts RDMA groups in the
    cluster's `zone` and spreads others over the cluster's zones."""
    capacity_block_starts_at: Optional[str] = None
    """A capacity block's start (UTC, ISO 8601 with Z): the group waits at zero and is scheduled to scale to its size
    then; None (default): no schedule (EKS launches once the block is active)."""
    local_nvme_raid0: Optional[bool] = False
    """Stripe instance-store NVMe for kubelet and containerd."""
    rdma: Optional[str] = "none"
    """The shape's fabric (efa, erdma or none); its devices count only with `rdma_interfaces`."""
    vcpus: Optional[int] = 0
    """vCPUs per node (the queue's flavor)."""
    memory_gib: Optional[int] = 0
    """Host memory per node, GiB (the queue's flavor)."""
    acceptance: Optional[Mapping[str, Any]] = None
    """What the acceptance check expects of a node (acceptance/gpu_check.py); None runs no check."""
    fabric_min_busbw_gbps: Optional[float] = None
    """The fabric validation's bus-bandwidth threshold; None: not judged."""
    topology_name: Optional[str] = None
    """The Kueue Topology the group's flavor names (topology-aware gangs); None (default): quota-only admission."""
    topology_levels: Optional[Sequence[str]] = ()
    """That Topology's node label keys, broadest first, ending with kubernetes.io/hostname; empty by default."""
    provisioned: Optional[bool] = False
    """Kueue asks the Cluster Autoscaler for a gang's nodes (a ProvisioningRequest) before placing it by the Topology,
    so the group may scale from zero; False (default): the Topology places on the nodes already Ready."""

    def nodes(self) -> GpuNodes:
        """The group as the Kubernetes layer sees it (node contract): one list of groups serves both sides."""
        return GpuNodes(
            name=self.name,
            rdma=self.rdma if self.rdma_interfaces else "none",
            taints=list(self.taints),
            mig_profile=self.mig_profile,
            mig_slices=self.mig_slices,
            mig_resources=dict(self.mig_resources),
            sharing=self.sharing,
            sharing_replicas=self.sharing_replicas,
            devices=self.devices,
            rdma_dra=bool(self.rdma_dra and self.rdma_interfaces),
            acceptance=self.acceptance,
            gpus=self.gpus,
            vcpus=self.vcpus,
            memory_gib=self.memory_gib,
            rdma_devices=self.rdma_interfaces,
            max_nodes=self.max_nodes,
            fabric_min_busbw_gbps=self.fabric_min_busbw_gbps,
            topology_name=self.topology_name,
            topology_levels=tuple(self.topology_levels),
            provisioned=self.provisioned,
        )


@dataclass(frozen=True)
class SystemGroupArgs(Args):
    """The untainted, on-demand CPU group for cluster services."""

    instance_type: str
    """A CPU instance type for cluster services."""
    min_nodes: Optional[int] = 2
    """Two, so controllers survive a node loss."""
    desired_nodes: Optional[int] = 2
    """The starting size."""
    max_nodes: Optional[int] = 4
    """The most nodes the autoscaler may add."""
    root_volume_gib: Optional[int] = 100
    """Encrypted root volume size, GiB."""


@dataclass(frozen=True)
class ObjectStorageArgs(Args):
    """The data bucket: datasets and checkpoints."""

    noncurrent_version_days: Optional[int] = 90
    """Days old object versions (overwritten checkpoints) are kept; 90 by default."""
    infrequent_access_after_days: Optional[int] = 30
    """Days before objects move to an infrequent-access class; None keeps them in the standard class."""
    cache: Optional[bool] = False
    """Link the parallel file system to the bucket (Lustre data repository / CPFS dataflow)."""


@dataclass(frozen=True)
class FileSystemArgs(Args):
    """The shared file system pods mount as the claim `shared-data`."""

    kind: str
    """Lustre, cpfs or nas."""
    size_gib: int
    """Capacity, GiB, in the steps the file system type allows."""
    deployment: Optional[str] = "PERSISTENT_2"
    """Lustre deployment type."""
    throughput_mbps_per_tib: Optional[int] = 125
    """Lustre PERSISTENT_2 throughput per TiB (125, 250, 500 or 1000); 125 by default."""
    export_domain: Optional[str] = None
    """CPFS: the NFS export's domain, known after the first `pulumi up`."""


@dataclass(frozen=True)
class AutoscalingArgs(Args):
    """Scale GPU groups from zero and give idle nodes back."""

    unneeded_minutes: Optional[int] = 10
    """Idle time before a node is given back; ten minutes by default."""
    utilization_threshold: Optional[float] = 0.3
    """The seeds' "scale in below 30% use"."""
    gpu_utilization_threshold: Optional[float] = 0.3
    """Scale in a GPU node below this GPU use; 0.3 by default."""
    image_tag: Optional[str] = None
    """EKS: the Cluster Autoscaler image for the Kubernetes minor; None: no autoscaler."""
    engine: Optional[str] = "cluster-autoscaler"
    """cluster-autoscaler (the default: EKS managed GPU node groups with the Cluster Autoscaler; ACK node pools with
    ACK's cluster-autoscaler), karpenter (EKS: an EC2NodeClass and NodePool per GPU group, launched by the Karpenter
    controller, and no GPU managed node groups) or instant-elasticity (ACK: the same node pools scaled by ACK
    GOATScaler, node instant scaling)."""


@dataclass(frozen=True)
class BudgetArgs(Args):
    """The monthly budget and who hears about it."""

    monthly_limit_usd: float
    """The monthly limit, USD."""
    thresholds_pct: Optional[Sequence[int]] = (80, 100)
    """Alert at these percentages of the limit."""
    contacts: Optional[Sequence[str]] = ()
    """E-mail addresses alerted; none by default."""
    activate_cost_tag: Optional[bool] = False
    """AWS: activate the cost allocation tag the budget filters on (possible once resources carry it)."""


@dataclass(frozen=True)
class AlertTopicArgs(Args):
    """AWS: an Amazon SNS topic Alertmanager publishes to (alert receivers with `sns`)."""

    subscribe_emails: Optional[Sequence[str]] = ()
    """Addresses subscribed by e-mail (each confirms from the mail SNS sends); none by default."""


@dataclass(frozen=True)
class PlatformSettings(Args):
    """What the stack decides about the Kubernetes layer. The cluster adds what only it knows (node images, system
    selector, namespaces and ServiceAccounts of its roles, storage classes, shared volumes, the autoscaler) when it
    builds the layer's `PlatformArgs`, so no input here is overwritten."""

    gpu_stack: str
    """Gpu-operator (NVIDIA GPU Operator) or device-plugin (the device plugin chart alone)."""
    teams: Mapping[str, Team]
    """Team name -> quota; each team gets a namespace (and a queue with queueing)."""
    priorities: PriorityValues
    """PriorityClass values."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Labels on every object; none by default."""
    queueing: Optional[int] = None
    """Kueue with this all-or-nothing timeout (minutes); None: ResourceQuotas only."""
    fabric: Optional[FabricSettings] = None
    """Multi-node NCCL validation of RDMA groups."""
    monitoring: Optional[MonitoringArgs] = None
    """GPU monitoring; None installs none."""
    recheck_idle_hours: Optional[int] = None
    """Re-gate idle GPU nodes for a new acceptance check this often."""
    acceptance_image: Optional[str] = ACCEPTANCE_IMAGE
    """The acceptance check's image: PyTorch's CUDA runtime by tag by default; a stack passes it pinned by digest."""
    pod_autoscaling: Optional[bool] = True
    """KEDA on the system nodes: pods scale on custom metrics from Prometheus (serving needs it); on by default."""
    serving: Optional[ServingArgs] = None
    """Models served with vLLM and scaled by KEDA; None serves none."""
    image_mirror: Optional[str] = None
    """Registry every chart and image of the layer is pulled through (`host[/path]`); None: their own registries."""


def platform_args(settings: PlatformSettings, **cluster: Any) -> PlatformArgs:
    """The Kubernetes layer's args: the stack's settings plus the fields only the cluster fills (`cluster`)."""
    return PlatformArgs(**{f.name: getattr(settings, f.name) for f in fields(settings)}, **cluster)


@dataclass(frozen=True, kw_only=True)
class ClusterArgs(Args):
    """What a GPU cluster takes on either cloud; `AwsClusterArgs` and `AlicloudClusterArgs` add what one cloud reads.
    Fields without a default are required; defaults are the stack spec's for the same input."""

    region: str
    """The cloud region."""
    kubernetes_version: str
    """The Kubernetes minor version (`1.33`)."""
    vpc_cidr: str
    """The VPC's CIDR."""
    system: SystemGroupArgs
    """The untainted CPU group for cluster services."""
    gpu_groups: Sequence[GpuGroupArgs]
    """The GPU node groups."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on every resource (default tags of the provider the cluster creates); none by default."""
    log_retention_days: Optional[int] = 365
    """Audit, flow and control-plane log retention; a year by default."""
    key_rotation_days: Optional[int] = 90
    """Days between automatic rotations of the stack's KMS key; 90 by default."""
    protect_data: Optional[bool] = False
    """Production: protect data stores and the cluster from deletion."""
    public_api: Optional[bool] = False
    """The API server stays private unless asked."""
    cluster_admins: Optional[Sequence[str]] = ()
    """AWS IAM ARNs / RAM user ids (`role:<id>` for RAM roles)."""
    addon_versions: Optional[Mapping[str, Optional[str]]] = field(default_factory=dict)
    """Managed add-on -> version."""
    object_storage: Optional[ObjectStorageArgs] = None
    """None: no bucket."""
    file_system: Optional[FileSystemArgs] = None
    """None: no shared file system."""
    trainer_namespace: Optional[str] = "training"
    """Where the stack's own `trainer` ServiceAccount and the `shared-data` claim live."""
    team_namespaces: Optional[Sequence[str]] = ()
    """Team namespaces; each also gets a `trainer` ServiceAccount with its own role (the same data grants) and its
    own `shared-data` claim; none by default."""
    autoscaling: Optional[AutoscalingArgs] = None
    """None leaves node counts as declared."""
    audit_trail: Optional[bool] = True
    """Declare the account's audit trail of management events; off when an organisation trail records them (the
    AWS trail then records only S3 object events, the data-access audit of this stack's buckets)."""
    threat_detection: Optional[bool] = True
    """Declare the account's threat detection (GuardDuty with EKS runtime monitoring / Security Center); off when the
    account already runs it, since GuardDuty allows one detector per account and region."""
    zone: Optional[str] = None
    """The file system's zone and RDMA groups' default, fixed by the caller so a data source listing zones in another
    order never moves them; None: the first zone by name (AWS: that sells every RDMA shape; Alibaba: the first GPU
    shape)."""
    platform: Optional[PlatformSettings] = None
    """The Kubernetes layer's settings; the cluster adds its system nodes, storage, identities and autoscaler. None
    skips the layer."""

    @property
    def rdma(self) -> bool:
        return any(g.rdma_interfaces for g in self.gpu_groups)


@dataclass(frozen=True, kw_only=True)
class AwsClusterArgs(ClusterArgs):
    """A GPU cluster on EKS: the common args plus the budget, the node AMI release and the API's allowed CIDRs."""

    budget: BudgetArgs
    """The monthly cost budget (AWS Budgets)."""
    public_api_cidrs: Optional[Sequence[str]] = ()
    """CIDRs allowed to a public API endpoint."""
    node_release_version: Optional[str] = None
    """EKS AMI release for every node group; None reads the recommended release at creation and holds it."""
    alert_topic: Optional[AlertTopicArgs] = None
    """An SNS topic for Alertmanager's `sns` receivers, with a role its ServiceAccount publishes through; None: none."""


@dataclass(frozen=True, kw_only=True)
class AlicloudClusterArgs(ClusterArgs):
    """A GPU cluster on ACK: the common args plus the KMS instance and MLPS hardening."""

    kms_instance_id: Optional[str] = None
    """The KMS instance the stack key is created in; None (default) makes a default key."""
    mlps_hardening: Optional[bool] = False
    """MLPS hardening of node images instead of the CIS-style default."""
