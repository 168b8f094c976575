"""GpuClusterArgs: everything a cluster component needs, as plain typed values.

Both clouds' `GpuCluster` take these args, so a cluster can be declared from any program, not only from a
stack file: the blueprint's composition layer (`blueprints.compose`) fills them from a resolved plan, a
consumer fills them by hand. Facts (instance shapes, prices, add-on versions) arrive here already decided;
nothing below reads the catalog, a preset or a stack.
"""


from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

from .kubernetes.platform import PlatformArgs


@dataclass(frozen=True)
class GpuGroupArgs:
    """One GPU node group (EKS managed node group / ACK node pool)."""

    name: str  # the group's name in the cluster, also the `gpu-blueprints/node-group` label
    instance_type: str  # a real shape: the caller has checked it sells in the region
    gpu_model: str  # written to the `gpu-blueprints/gpu-model` label and the autoscaler's GPU label
    gpus: int  # GPUs per node
    min_nodes: int
    desired_nodes: int  # the starting size; the autoscaler owns it afterwards
    max_nodes: int
    root_volume_gib: int = 200  # GPU images are large
    capacity: str = "on-demand"  # on-demand, spot, reservation or capacity-block
    capacity_reservation_id: Optional[str] = None  # AWS reservation or capacity block
    spot_max_price_usd: Optional[float] = None  # Alibaba spot bid ceiling; None bids up to on-demand
    labels: Mapping[str, str] = field(default_factory=dict)
    # key, value, effect (Kubernetes spelling), the acceptance gate included when the check gates nodes
    taints: Sequence[Mapping[str, str]] = ()
    mig_profile: Optional[str] = None  # `nvidia.com/mig.config` layout; None leaves GPUs whole
    gpu_resources: int = 0  # `nvidia.com/gpu` a node offers (GPUs x MIG slices); 0 means `gpus`
    rdma_interfaces: int = 0  # EFA interfaces / eRDMA devices per node; 0: no fabric
    placement_group: bool = False  # a cluster placement group (EFA groups that want one)
    local_nvme_raid0: bool = False  # stripe instance-store NVMe for kubelet and containerd


@dataclass(frozen=True)
class SystemGroupArgs:
    """The untainted, on-demand CPU group for cluster services."""

    instance_type: str
    min_nodes: int = 2  # two, so controllers survive a node loss
    desired_nodes: int = 2
    max_nodes: int = 4
    root_volume_gib: int = 100


@dataclass(frozen=True)
class ObjectStorageArgs:
    """The data bucket: datasets and checkpoints."""

    noncurrent_version_days: int = 30  # old checkpoint versions kept this long
    infrequent_access_after_days: Optional[int] = None  # None keeps everything in the standard class
    cache: bool = False  # link the parallel file system to the bucket (Lustre data repository / CPFS dataflow)


@dataclass(frozen=True)
class FileSystemArgs:
    """The shared file system pods mount as the claim `shared-data`."""

    kind: str  # lustre, cpfs or nas
    size_gib: int
    deployment: str = "PERSISTENT_2"  # Lustre deployment type
    throughput_mbps_per_tib: int = 250  # Lustre PERSISTENT_2 throughput tier
    export_domain: Optional[str] = None  # CPFS: the NFS export's domain, known after the first `pulumi up`


@dataclass(frozen=True)
class AutoscalingArgs:
    """Scale GPU groups from zero and give idle nodes back."""

    unneeded_minutes: int = 10
    utilization_threshold: float = 0.3  # the seeds' "scale in below 30% use"
    gpu_utilization_threshold: float = 0.3
    image_tag: Optional[str] = None  # EKS: the Cluster Autoscaler image for the Kubernetes minor; None: no autoscaler


@dataclass(frozen=True)
class BudgetArgs:
    monthly_limit_usd: float
    thresholds_pct: Sequence[int] = (50, 80, 100)
    contacts: Sequence[str] = ()


@dataclass(frozen=True)
class GpuClusterArgs:
    """A whole GPU cluster; fields without a default are required."""

    region: str
    kubernetes_version: str
    vpc_cidr: str
    system: SystemGroupArgs
    gpu_groups: Sequence[GpuGroupArgs]
    budget: BudgetArgs
    # tags on every resource (through the provider's default tags when the cluster creates its provider)
    tags: Mapping[str, str] = field(default_factory=dict)
    log_retention_days: int = 365
    protect_data: bool = False  # production: protect data stores and the cluster from deletion
    public_api: bool = False  # the API server stays private unless asked
    public_api_cidrs: Sequence[str] = ()
    cluster_admins: Sequence[str] = ()  # AWS IAM ARNs / RAM user ids (`role:<id>` for RAM roles)
    addon_versions: Mapping[str, Optional[str]] = field(default_factory=dict)  # managed add-on -> version
    object_storage: Optional[ObjectStorageArgs] = None  # None: no bucket
    file_system: Optional[FileSystemArgs] = None  # None: no shared file system
    trainer_namespace: str = "training"  # where the `trainer` ServiceAccount and the `shared-data` claim live
    autoscaling: Optional[AutoscalingArgs] = None  # None leaves node counts as declared
    mlps_hardening: bool = False  # ACK: MLPS hardening of node images instead of the CIS-style default
    # The Kubernetes layer; the cluster fills in its system nodes, storage, identities and autoscaler.
    platform: Optional[PlatformArgs] = None

    @property
    def rdma(self) -> bool:
        return any(g.rdma_interfaces for g in self.gpu_groups)
