"""The cluster spec: what a stack asks for, validated, with no Pulumi in sight.

Stack files write it in camelCase under the config key ``gpu-cluster-blueprints:cluster``;
``python -m blueprints schema`` exports the JSON schema editors use to complete them.
"""

from __future__ import annotations

import ipaddress
import math
import re
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic.alias_generators import to_camel

from catalog import load_catalog
from catalog.clouds import profile
from catalog.registries import MIRROR, not_a_registry
from catalog.system_shapes import load_system_shapes

from .errors import did_you_mean
from .platform_namespaces import PLATFORM_NAMESPACES
from .serving_spec import PodAutoscalingSpec, ServingSpec
from .serving_spec import spec_problems as serving_problems

Cloud = Literal["aws", "alicloud"]
# EC2NodeClass capacityReservationSelectorTerms[].id (karpenter-provider-aws v1.14.1 CRD pattern ^cr-[0-9a-z]+$).
KARPENTER_RESERVATION = re.compile(r"^cr-[0-9a-z]+$")
Capacity = Literal["on-demand", "spot", "reservation", "capacity-block"]
# How a group is billed, for per-option `prices:` (a reservation, an ODCR, bills at the on-demand rate).
PriceOption = Literal["on-demand", "spot", "capacity-block"]
Framework = Literal["baseline", "hipaa", "gdpr", "mlps", "cost"]

LABEL_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
NAME = re.compile(r"^[a-z][a-z0-9-]{0,30}$")
MIG_PROFILE = re.compile(r"^all-(disabled|enabled|balanced|[1-7]g\.\d{1,3}gb)$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
# Region, instance-type and principal names, file systems and KMS limits per cloud: catalog/clouds.yaml.

# FSx for Lustre PERSISTENT_2 / SCRATCH_2: 1200 GiB or a multiple of 2400 GiB.
# https://docs.aws.amazon.com/fsx/latest/APIReference/API_CreateFileSystem.html (StorageCapacity)
LUSTRE_MAX_GIB = 2_400 * 1_000
# CPFS general-purpose: 3600 GiB minimum in steps of 1200 GiB.
# https://www.alibabacloud.com/help/en/nas/user-guide/create-a-cpfs-file-system
CPFS_MIN_GIB, CPFS_STEP_GIB = 3_600, 1_200
# NAS extreme: 100 GiB to 262,144 GiB in steps of 100 GiB.
# https://www.alibabacloud.com/help/en/nas/user-guide/create-a-file-system
NAS_MIN_GIB, NAS_MAX_GIB, NAS_STEP_GIB = 100, 262_144, 100


def _check_counts(minimum: int, desired: int, maximum: int) -> None:
    if not minimum <= desired <= maximum:
        raise ValueError(
            f"node counts must satisfy minNodes <= desiredNodes <= maxNodes (got {minimum} <= {desired} <= {maximum})"
        )


class SpecModel(BaseModel):
    """camelCase in stack files, snake_case in Python; unknown keys are an error."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        allow_inf_nan=False,  # YAML's .inf/.nan are floats; no budget, price or size is infinite (issue #27)
    )


class Taint(SpecModel):
    key: str = Field(description="Taint key, for example nvidia.com/gpu.")
    value: str = Field("", description="Taint value.")
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = Field(
        "NoSchedule", description="Kubernetes taint effect."
    )

    @field_validator("key")
    @classmethod
    def _key(cls, v: str) -> str:
        if not LABEL_KEY.match(v):
            raise ValueError("must be a Kubernetes label key such as nvidia.com/gpu")
        return v


class SharingSpec(SpecModel):
    """Several pods on one GPU through the NVIDIA device plugin (its README, "Shared Access to GPUs", v0.20.0 as the
    GPU Operator v26.7.0 deploys it): each GPU is advertised `replicas` times as nvidia.com/gpu."""

    strategy: Literal["time-slicing", "mps"] = Field(
        description="time-slicing (CUDA time-slicing: no memory or fault isolation) or mps (CUDA MPS: each client "
        "gets an equal share of memory and compute)."
    )
    replicas: int = Field(ge=2, description="Pods that share each GPU (the device plugin wants at least 2).")


class NodeGroupSpec(SpecModel):
    gpu_model: str = Field(description="GPU model, for example T4, A100-80GB, H100 (see the catalog).")
    gpus_per_node: int = Field(gt=0, le=16, description="GPUs each node must have (at least).")
    min_gpu_memory_gib: Optional[int] = Field(None, gt=0, description="Minimum memory per GPU, GiB.")
    min_vcpus: Optional[int] = Field(None, gt=0, description="Minimum vCPUs per node.")
    min_memory_gib: Optional[int] = Field(None, gt=0, description="Minimum host memory per node, GiB.")
    min_network_gbps: Optional[int] = Field(
        None, gt=0, description="Network bandwidth wanted per node, Gbps (a shortfall is a note, not an error)."
    )
    min_local_nvme_gb: Optional[int] = Field(
        None, ge=0, description="Local NVMe scratch wanted per node, GB (a shortfall is a note, not an error)."
    )
    instance_type: Optional[str] = Field(
        None, description="Pin an instance type from the catalog instead of letting the resolver choose."
    )
    min_nodes: int = Field(0, ge=0, description="Minimum nodes; 0 lets the group scale to zero.")
    desired_nodes: int = Field(1, ge=0, description="Nodes to start with.")
    max_nodes: int = Field(1, gt=0, le=1000, description="Maximum nodes.")
    capacity: Capacity = Field("on-demand", description="How the nodes are bought.")
    capacity_reservation_id: Optional[str] = Field(
        None,
        description="Capacity reservation or capacity block id (required for reservation and capacity-block); "
        "an ODCR group may name a capacity reservation resource group's ARN instead.",
    )
    zone: Optional[str] = Field(
        None,
        description="Availability zone of the group's nodes (one subnet). Required with a reservation or "
        "capacity block (the reservation's zone); default for RDMA groups: networking.zone.",
    )
    rdma: Optional[bool] = Field(
        None,
        description="RDMA (AWS EFA, Alibaba Cloud eRDMA) for this group; default: networking.rdma. An "
        "inference group beside a training group sets false and gets the cheapest shape.",
    )
    placement: Optional[Literal["cluster", "none"]] = Field(
        None,
        description="A cluster placement group (AWS) / low-latency deployment set (Alibaba Cloud) of the "
        "group's own, RDMA groups only; default: networking.placement, but none for reservations "
        "(ODCRs) and never for capacity blocks, which AWS places itself.",
    )
    capacity_block_starts_at: Optional[str] = Field(
        None,
        pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$",
        description="Capacity blocks: the block's start (UTC, 2026-12-01T11:30:00Z); the group waits at zero and a "
        "scheduled action scales it to the block's size then. With the end, prices the block's length.",
    )
    capacity_block_ends_at: Optional[str] = Field(
        None,
        pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$",
        description="Capacity blocks: the block's end time (UTC, 2026-12-01T11:30:00Z); EKS itself scales the group "
        "to zero 40 minutes before it. With the start, prices the block's length (paid up front).",
    )
    spot_max_price_usd: Optional[float] = Field(
        None, gt=0, description="Highest hourly price paid for spot nodes (Alibaba Cloud spot price limit)."
    )
    root_volume_gib: int = Field(200, ge=50, le=16_384, description="Encrypted root volume size, GiB.")
    labels: dict[str, str] = Field(default_factory=dict, description="Kubernetes node labels.")
    mig_profile: Optional[str] = Field(
        None,
        description="MIG layout the GPU Operator applies (all-1g.10gb, all-3g.40gb, all-balanced...); "
        "A100/H100-class GPUs only.",
    )
    sharing: Optional[SharingSpec] = Field(
        None,
        description="Share each GPU between pods (time-slicing or MPS, per node group through the GPU Operator's "
        "device-plugin configuration); none by default: a pod gets whole GPUs.",
    )
    devices: Literal["plugin", "dra"] = Field(
        "plugin",
        description="How pods get the group's GPUs: plugin (the NVIDIA device plugin's nvidia.com/gpu count, the "
        "default) or dra (Dynamic Resource Allocation: NVIDIA's DRA driver publishes the GPUs as ResourceSlices and "
        "pods claim them through a ResourceClaimTemplate of DeviceClass gpu.nvidia.com; Kubernetes 1.34 or later; "
        "on EKS 1.35 and later the same claim holds the node's EFA interfaces, through AWS's dranet).",
    )
    taints: list[Taint] = Field(
        default_factory=lambda: [Taint(key="nvidia.com/gpu", value="present", effect="NoSchedule")],
        description="Kubernetes node taints; GPU nodes are tainted so only GPU pods land there.",
    )

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        for key in v:
            if not LABEL_KEY.match(key):
                raise ValueError(f"label key {key!r} is not a Kubernetes label key")
        return v

    @field_validator("mig_profile")
    @classmethod
    def _mig(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not MIG_PROFILE.match(v):
            raise ValueError(
                f"MIG profile {v!r} is not a GPU Operator profile name such as all-1g.10gb, "
                "all-3g.40gb, all-balanced or all-disabled"
            )
        return v

    @model_validator(mode="after")
    def _counts(self) -> "NodeGroupSpec":
        _check_counts(self.min_nodes, self.desired_nodes, self.max_nodes)
        if self.capacity in ("reservation", "capacity-block") and not self.capacity_reservation_id:
            raise ValueError(f"capacity {self.capacity!r} needs capacityReservationId")
        if self.sharing and self.sharing.strategy == "mps" and self.mig_profile and self.mig_profile != "all-disabled":
            # k8s-device-plugin v0.20.0 README: "Sharing with MPS is currently not supported on devices with MIG
            # enabled."
            raise ValueError("sharing strategy mps does not work on MIG slices; use time-slicing or drop migProfile")
        return self


class SystemNodesSpec(SpecModel):
    """The untainted CPU nodes that run CoreDNS, operators, controllers and the autoscaler.

    A cluster whose only nodes are GPU-tainted cannot run them, so every cluster gets this group.
    """

    instance_type: Optional[str] = Field(
        None, description="Instance type; default: the cloud's entry in catalog/system_shapes.yaml (4 vCPU / 16 GiB)."
    )
    min_nodes: int = Field(2, ge=2, le=100, description="Minimum nodes; at least 2 so controllers survive a node loss.")
    desired_nodes: int = Field(2, ge=2, le=100, description="Nodes to start with.")
    max_nodes: int = Field(4, ge=2, le=100, description="Maximum nodes the autoscaler may add.")
    root_volume_gib: int = Field(100, ge=50, le=16_384, description="Encrypted root volume size, GiB.")

    @model_validator(mode="after")
    def _counts(self) -> "SystemNodesSpec":
        _check_counts(self.min_nodes, self.desired_nodes, self.max_nodes)
        return self


class AutoscalingSpec(SpecModel):
    """Scale GPU groups from zero when GPU pods are pending, and give idle nodes back.

    EKS: the Kubernetes Cluster Autoscaler (upstream chart) over managed node groups, or Karpenter (`engine`),
    which launches GPU nodes itself from one EC2NodeClass and NodePool per group. ACK: node pool auto scaling with
    the cluster's autoscaling configuration, run by ACK's cluster-autoscaler or, with `engine: instant-elasticity`,
    by ACK GOATScaler (node instant scaling; AutoscalingConfig scalerType `goatscaler`, pulumi-alicloud 4.0.0
    pulumi_alicloud/cs/autoscaling_config.py;
    https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/instant-elasticity, read
    2026-11-27). Defaults follow the seed guidance: scale in below 30% use.
    """

    enabled: bool = Field(True, description="Run the autoscaler; off leaves node counts as declared.")
    engine: Literal["cluster-autoscaler", "karpenter", "instant-elasticity"] = Field(
        "cluster-autoscaler",
        description="cluster-autoscaler (the default; EKS: managed GPU node groups, works with Kueue's "
        "ProvisioningRequest admission; ACK: node auto scaling), karpenter (EKS only: a NodePool per GPU group "
        "instead of a managed node group; the scale-down thresholds do not apply: GPU pools consolidate only when "
        "empty) or instant-elasticity (ACK only: the same node pools scaled by ACK GOATScaler, node instant "
        "scaling, which creates instances directly for pending pods; the cluster must run Kubernetes 1.24 or later).",
    )
    scale_down_unneeded_minutes: int = Field(
        10, ge=1, le=1_440, description="Minutes a node must be unneeded before it is removed (idle GPUs go back)."
    )
    scale_down_utilization_threshold: float = Field(
        0.3, gt=0, lt=1, description="CPU/memory requested share below which a node may be removed."
    )
    gpu_scale_down_utilization_threshold: float = Field(
        0.3, gt=0, lt=1, description="GPU requested share below which a GPU node may be removed."
    )


class AccessSpec(SpecModel):
    cluster_admins: list[str] = Field(
        default_factory=list,
        description="Cluster administrators: IAM role/user ARNs on AWS (EKS access entries), RAM user or role "
        "ids on Alibaba Cloud (role:<id> for a RAM role). The identity that runs `pulumi up` is "
        "an admin as well.",
    )


class NetworkingSpec(SpecModel):
    rdma: bool = Field(
        False, description="Give GPU nodes RDMA (AWS EFA, Alibaba Cloud eRDMA); a node group's own rdma overrides it."
    )
    placement: Literal["cluster", "none"] = Field(
        "cluster",
        description="Default for RDMA node groups: a cluster placement group each (skipped for capacity "
        "blocks and reservations); a node group's own placement overrides it.",
    )
    zone: Optional[str] = Field(
        None,
        description="Zone of RDMA node groups and the parallel file system, fixed by the spec so it never moves "
        "when the cloud lists zones differently; default on AWS: the region's zone a (the plan notes "
        "say so); on Alibaba Cloud: the first zone, by name, that sells the group's shape.",
    )
    vpc_cidr: str = Field("10.0.0.0/16", description="VPC CIDR block.")
    public_api: bool = Field(False, description="Expose the Kubernetes API publicly (private by default).")
    public_api_cidrs: list[str] = Field(
        default_factory=list, description="CIDRs allowed to reach a public Kubernetes API."
    )

    @field_validator("vpc_cidr")
    @classmethod
    def _cidr(cls, v: str) -> str:
        net = ipaddress.ip_network(v, strict=True)
        if net.version != 4 or not 16 <= net.prefixlen <= 20:
            raise ValueError("must be an IPv4 CIDR from /16 to /20, such as 10.0.0.0/16")
        return v

    @field_validator("public_api_cidrs")
    @classmethod
    def _public_cidrs(cls, v: list[str]) -> list[str]:
        for cidr in v:
            net = ipaddress.ip_network(cidr, strict=False)
            if net.prefixlen == 0:
                raise ValueError("0.0.0.0/0 opens the API to the internet; list your own CIDRs")
        return v

    @model_validator(mode="after")
    def _public_needs_cidrs(self) -> "NetworkingSpec":
        if self.public_api and not self.public_api_cidrs:
            raise ValueError("publicApi needs publicApiCidrs (the networks allowed to reach the API)")
        return self


class ParallelFsSpec(SpecModel):
    type: Literal["none", "lustre", "cpfs", "nas"] = Field(
        "none", description="lustre (FSx for Lustre, AWS), cpfs or nas (Alibaba Cloud), or none."
    )
    size_gib: Optional[int] = Field(None, gt=0, description="Capacity, GiB; each service allows its own sizes.")
    deployment: Literal["PERSISTENT_2", "SCRATCH_2"] = Field(
        "PERSISTENT_2", description="FSx for Lustre deployment type; only PERSISTENT takes a customer KMS key."
    )
    throughput_mbps_per_tib: Literal[125, 250, 500, 1000] = Field(
        125, description="FSx for Lustre PERSISTENT_2 throughput per TiB."
    )
    export_domain: Optional[str] = Field(
        None,
        pattern=r"^cpfs-[a-z0-9-]+\.[a-z0-9-]+\.cpfs\.aliyuncs\.com$",
        description="CPFS: the NFS export's domain, which only DescribeProtocolMountTarget returns; set it after "
        "the first `pulumi up` (output cpfs_export_id) so pods get a claim on the file system.",
    )

    @model_validator(mode="after")
    def _size(self) -> "ParallelFsSpec":
        if self.type == "none":
            return self
        size = self.size_gib
        if size is None:
            raise ValueError(f"parallel file system {self.type!r} needs sizeGib")
        if self.type == "lustre" and not (size == 1200 or (size % 2400 == 0 and size <= LUSTRE_MAX_GIB)):
            raise ValueError(f"FSx for Lustre sizeGib must be 1200 or a multiple of 2400 (got {size})")
        if self.type == "cpfs" and (size < CPFS_MIN_GIB or size % CPFS_STEP_GIB):
            raise ValueError(f"CPFS sizeGib must be at least 3600 in steps of 1200 (got {size})")
        if self.type == "nas" and not (NAS_MIN_GIB <= size <= NAS_MAX_GIB and size % NAS_STEP_GIB == 0):
            raise ValueError(f"NAS extreme sizeGib must be 100 to 262144 in steps of 100 (got {size})")
        return self


class ObjectStorageSpec(SpecModel):
    enabled: bool = Field(True, description="Create the stack's data bucket (S3 or OSS).")
    expected_size_tb: float = Field(1.0, ge=0, description="Data you expect to keep, TB (drives the cost estimate).")
    cache: bool = Field(
        False,
        description="Front the bucket with the parallel file system as a cache (FSx data repository / CPFS data flow).",
    )
    noncurrent_version_days: int = Field(90, gt=0, description="Days old object versions are kept.")
    infrequent_access_after_days: Optional[int] = Field(
        30, gt=0, description="Days before objects move to an infrequent-access class; null keeps them hot."
    )


class StorageSpec(SpecModel):
    parallel_fs: ParallelFsSpec = Field(default_factory=ParallelFsSpec, description="Shared parallel file system.")
    object_storage: ObjectStorageSpec = Field(default_factory=ObjectStorageSpec, description="Object storage.")
    local_nvme_scratch: bool = Field(
        True,
        description="AWS: stripe the GPU nodes' instance-store NVMe as RAID0 for kubelet and containerd, so "
        "pods' emptyDir and images live on it (AL2023 nodeadm localStorage). Shapes without "
        "NVMe and Alibaba Cloud GPU shapes (none has local NVMe) are unaffected.",
    )


class BudgetSpec(SpecModel):
    monthly_limit_usd: float = Field(gt=0, description="Monthly budget, USD.")
    alert_thresholds_pct: list[int] = Field(
        default_factory=lambda: [80, 100], min_length=1, description="Percent of the budget that alerts."
    )
    contacts: list[str] = Field(default_factory=list, description="E-mail addresses that receive alerts.")
    activate_cost_allocation_tag: bool = Field(
        False,
        description="AWS: activate the `gpu-cluster` cost allocation tag the budget filters on. A tag key can "
        "be activated only once resources carry it (AWS lists it up to 24 hours later), so turn "
        "this on for the second `pulumi up`; activation is account-wide and idempotent, and it is "
        "kept when the stack is destroyed (other stacks' budgets use it).",
    )

    @field_validator("alert_thresholds_pct")
    @classmethod
    def _thresholds(cls, v: list[int]) -> list[int]:
        if any(not 1 <= t <= 1000 for t in v):
            raise ValueError("thresholds are percents from 1 to 1000")
        return sorted(set(v))

    @field_validator("contacts")
    @classmethod
    def _contacts(cls, v: list[str]) -> list[str]:
        for address in v:
            if not EMAIL.match(address):
                raise ValueError(f"{address!r} is not an e-mail address")
        return v


class LoggingSpec(SpecModel):
    retention_days: int = Field(365, ge=1, le=3653, description="Days audit and flow logs are kept.")


class NodeImageSpec(SpecModel):
    """Which node image release GPU and system nodes run. A new EKS-optimized AMI release (and with it a new NVIDIA
    driver) must never roll GPU nodes under a running job unless the stack asks: pin the release here, and change it
    to upgrade (EKS replaces nodes one at a time, `maxUnavailable: 1`). Left unset, the recommended release is read
    once, when a node group is created, and later releases are ignored (the node group's `releaseVersion` is in
    `ignoreChanges`). Releases: https://github.com/awslabs/amazon-eks-ami/releases"""

    release_version: Optional[str] = Field(
        None,
        pattern=r"^\d+\.\d+\.\d+-\d{8}$",
        description="EKS AMI release, `<kubernetes version>-<yyyymmdd>` (for example 1.33.5-20251120); its minor must "
        "be the cluster's kubernetesVersion. ACK node images are chosen by ACK at creation and change "
        "only when the node pool is upgraded.",
    )


class EncryptionSpec(SpecModel):
    """The stack key's rotation. AWS KMS takes 90 to 2560 days (RotationPeriodInDays, default 365:
    https://docs.aws.amazon.com/kms/latest/developerguide/rotate-keys.html); Alibaba Cloud KMS takes 7 to 365 days
    for software-protected keys (pulumi-alicloud 4.0.0 `kms.Key.rotation_interval`). Read 2026-11-24."""

    key_rotation_days: int = Field(
        90,
        ge=7,
        le=2560,
        description="Days between automatic rotations of the stack's KMS key (AWS 90-2560, "
        "Alibaba Cloud 7-365); the baseline pack flags more than 90 unless its "
        "kms rotation rule is configured otherwise.",
    )
    kms_instance_id: Optional[str] = Field(
        None,
        pattern=r"^kst-[a-z0-9]{3,64}$",
        description="Alibaba Cloud: create the stack key in this KMS instance (software key management). A key "
        "outside an instance is a default key, which KMS rotates every 365 days whatever "
        "keyRotationDays says (pulumi-alicloud 4.0.0 `kms.Key.rotation_interval`).",
    )


class AccountServicesSpec(SpecModel):
    """Services an account runs once: GuardDuty allows one detector per account and region, and Alibaba Cloud's
    Security Center is one instance per account, so a second stack in the same account and region must use the
    one that exists instead of creating its own. https://docs.aws.amazon.com/guardduty/latest/ug/guardduty_settingup.html"""

    threat_detection: Literal["create", "existing"] = Field(
        "create",
        description="create: the stack declares GuardDuty (with EKS runtime monitoring) or Security Center, "
        "or adopts the account's detector or instance that `pulumi up` finds (one per account); "
        "existing: the account already runs it (another stack, or the organisation), the stack "
        "declares none without looking and the threat-detection rule is told so.",
    )
    audit_trail: Literal["create", "existing"] = Field(
        "create",
        description="create: the stack declares the account's audit trail (CloudTrail management events in "
        "every region / ActionTrail); existing: an organisation trail already records them, the "
        "stack keeps only what is its own (AWS: a trail of S3 object events for its buckets, the "
        "HIPAA/GDPR data-access record) and the audit-trail rule is told so.",
    )


class ComplianceSpec(SpecModel):
    frameworks: list[Framework] = Field(
        default_factory=lambda: ["baseline", "cost"], description="Policy packs the stack must pass."
    )
    allowed_regions: list[str] = Field(
        default_factory=list, description="Regions data may live in (data residency); empty allows the stack's own."
    )


class TeamSpec(SpecModel):
    gpus: int = Field(ge=0, le=100_000, description="GPUs the team's pods may request in total (ResourceQuota).")
    max_gpus_per_pod: Optional[int] = Field(None, gt=0, le=64, description="Most GPUs one container may ask for.")
    default_cpu: str = Field("2", pattern=r"^\d+(\.\d+)?m?$", description="Default CPU request and limit.")
    default_memory: str = Field("8Gi", pattern=r"^\d+(Ki|Mi|Gi|Ti)$", description="Default memory request and limit.")


class PrioritySpec(SpecModel):
    critical: int = Field(1_000_000, ge=1, le=1_000_000_000, description="Value of gpu-critical.")
    standard: int = Field(1_000, ge=0, le=1_000_000_000, description="Value of gpu-standard.")
    preemptible: int = Field(0, ge=-2_147_483_648, le=1_000_000_000, description="Value of gpu-preemptible.")

    @model_validator(mode="after")
    def _order(self) -> "PrioritySpec":
        if not self.critical > self.standard > self.preemptible:
            raise ValueError("priorities must satisfy critical > standard > preemptible")
        return self


class AcceptanceSpec(SpecModel):
    enabled: bool = Field(True, description="Run the GPU acceptance check on every new GPU node.")
    gate: bool = Field(
        True,
        description="New GPU nodes join with a startup taint that the check removes when the node passes; a "
        "failed node is tainted NoExecute with the reason, so no job lands on it without opting in.",
    )
    recheck_idle_hours: Optional[int] = Field(
        None,
        ge=1,
        le=720,
        description="Re-run the check on GPU nodes that hold no GPU pod, every this many hours "
        "(null: only when a node joins).",
    )
    thresholds: dict[Literal["matmul", "memory", "host_link", "allreduce"], float] = Field(
        default_factory=dict, description="Fraction of the catalog spec a node must reach, per measurement."
    )

    @field_validator("recheck_idle_hours")
    @classmethod
    def _every(cls, v: Optional[int]) -> Optional[int]:
        if v is not None and v > 24 and v % 24:
            raise ValueError("recheckIdleHours is 1 to 24, or a multiple of 24 (whole days)")
        return v

    @field_validator("thresholds")
    @classmethod
    def _fractions(cls, v: dict[str, float]) -> dict[str, float]:
        if any(not 0 <= f <= 1 for f in v.values()):
            raise ValueError("thresholds are fractions from 0 to 1")
        return v


class QueueingSpec(SpecModel):
    enabled: bool = Field(True, description="Kueue: a ClusterQueue per team in one cohort, LocalQueue per team.")
    pods_ready_timeout_minutes: int = Field(
        10,
        ge=1,
        le=1440,
        description="All-or-nothing admission: a job whose pods are not all running after this "
        "long gives its quota back and is requeued.",
    )
    topology: Literal["auto", "rdma", "off"] = Field(
        "auto",
        description="Topology-aware gangs (a Kueue Topology on the cloud's network labels, catalog/topology.py): auto "
        "gives it to RDMA groups whose nodes carry the labels and that either keep two nodes up or scale through "
        "the EKS Cluster Autoscaler, which adds a gang's nodes for Kueue's ProvisioningRequest before Kueue places it "
        "(Kueue counts only Ready nodes, so a TAS flavor at zero nodes admits nothing otherwise); rdma to every RDMA "
        "group (readiness says where it cannot work); off to none.",
    )


class FabricValidationSpec(SpecModel):
    enabled: bool = Field(True, description="Declare the multi-node NCCL fabric validation for each RDMA group.")
    run_on_create: bool = Field(
        False,
        description="Start it with `pulumi up` (it scales two GPU nodes up); otherwise it waits suspended "
        "until you resume it (README: validating the fabric).",
    )
    threshold: float = Field(
        0.8, gt=0, le=1, description="Fraction of the shape's published two-node all-reduce bus bandwidth to reach."
    )
    image: Optional[str] = Field(
        None,
        description="Image with PyTorch, NCCL and the fabric's user-space stack; default on AWS: the Deep "
        "Learning Container with EFA (catalog/fabric.yaml). Alibaba Cloud has no such "
        "public default: eRDMA groups are validated once this names an image with the eRDMA driver.",
    )


class SmtpSpec(SpecModel):
    """The mail relay Alertmanager sends through: an e-mail receiver cannot work without one."""

    smarthost: str = Field(pattern=r"^[^:\s]+:[0-9]{1,5}$", description="host:port of the SMTP relay.")
    sender: str = Field(description="The From address.")
    username: Optional[str] = Field(None, description="SMTP user; null sends without authentication.")
    password_config: Optional[str] = Field(
        None,
        pattern=r"^[A-Za-z0-9_.:-]+$",
        description="Name of a stack config value holding the SMTP password, set with "
        "`pulumi config set --secret NAME` (kept as a Pulumi secret, never in the spec).",
    )
    password_secret: Optional[str] = Field(
        None,
        pattern=r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$",
        description="Name of a Kubernetes Secret in the monitoring namespace whose key `password` holds the SMTP "
        "password; Alertmanager mounts it and reads the file when it sends (create it with kubectl; the password "
        "never passes through the stack).",
    )
    require_tls: bool = Field(True, description="Refuse to send without STARTTLS.")

    @model_validator(mode="after")
    def _one_password(self) -> "SmtpSpec":
        # Alertmanager: "at most one of smtp_auth_password & smtp_auth_password_file must be configured"
        # (prometheus/alertmanager config/config.go, v0.25.0 to v0.34.0).
        if self.password_config and self.password_secret:
            raise ValueError("set passwordConfig or passwordSecret, not both: Alertmanager takes one SMTP password")
        return self

    @field_validator("sender")
    @classmethod
    def _sender(cls, v: str) -> str:
        if not EMAIL.match(v):
            raise ValueError(f"{v!r} is not an e-mail address")
        return v


class SnsReceiverSpec(SpecModel):
    """AWS: Alertmanager publishes to the stack's Amazon SNS topic (KMS-encrypted, TLS only), through an IRSA role
    allowed only sns:Publish on it. Subscribe anything SNS delivers to (e-mail, SQS, Lambda, a chat bot) to the
    `alert_topic_arn` output."""

    subscribe_budget_contacts: bool = Field(
        False,
        description="Subscribe budget.contacts to the topic by e-mail; each address must confirm from the mail "
        "SNS sends before it receives anything (README: where alerts go).",
    )


class AlertReceiverSpec(SpecModel):
    """Where alerts go: e-mail addresses, a Slack incoming webhook, any Alertmanager webhook (a DingTalk robot
    through prometheus-webhook-dingtalk, which turns Alertmanager's payload into DingTalk's), or, on AWS, the
    stack's Amazon SNS topic."""

    email: list[str] = Field(default_factory=list, description="E-mail addresses (needs monitoring.alerts.smtp).")
    slack_url_config: Optional[str] = Field(
        None,
        pattern=r"^[A-Za-z0-9_.:-]+$",
        description="Name of a secret stack config value holding a Slack incoming-webhook URL.",
    )
    slack_channel: Optional[str] = Field(None, description="Slack channel, e.g. #gpu-alerts; null: the hook's.")
    webhook_url_config: Optional[str] = Field(
        None,
        pattern=r"^[A-Za-z0-9_.:-]+$",
        description="Name of a secret stack config value holding a webhook URL Alertmanager POSTs alerts to.",
    )
    sns: Optional[Union[bool, SnsReceiverSpec]] = Field(
        None,
        description="AWS: publish to the stack's Amazon SNS topic (output alert_topic_arn): true, or "
        "{subscribeBudgetContacts: true} to also subscribe budget.contacts by e-mail.",
    )

    @property
    def sns_topic(self) -> Optional[SnsReceiverSpec]:
        """The SNS settings when this receiver publishes to the topic (`sns: true` takes the defaults)."""
        if self.sns is True:
            return SnsReceiverSpec()
        return self.sns or None

    @field_validator("email")
    @classmethod
    def _email(cls, v: list[str]) -> list[str]:
        for address in v:
            if not EMAIL.match(address):
                raise ValueError(f"{address!r} is not an e-mail address")
        return v

    @model_validator(mode="after")
    def _delivers(self) -> "AlertReceiverSpec":
        # A receiver with no *_configs is valid to Alertmanager and drops every alert routed to it.
        if not (self.email or self.slack_url_config or self.webhook_url_config or self.sns_topic):
            raise ValueError(
                "a receiver with no destination drops every alert: set email, slackUrlConfig, webhookUrlConfig or sns"
            )
        return self


# The receiver the stack routes the always-firing Watchdog to (and kube-prometheus-stack's default receiver):
# components/kubernetes/monitoring.py adds it, so a receiver of the spec may not take its name.
DROP_RECEIVER = "null"
# The receiver that reaches budget.contacts when the spec names none (ClusterSpec.alert_receivers).
DEFAULT_RECEIVER = "budget-contacts"


def receiver_name_problem(name: object) -> Optional[str]:
    """Why Alertmanager would refuse a receiver of this name beside ours, or None. Alertmanager (config/config.go,
    v0.25.0 to v0.34.0): Receiver.UnmarshalYAML refuses an empty name ("missing name in receiver"), Config's
    check refuses two receivers of one name ("notification config name ... is not unique")."""
    if not isinstance(name, str):
        return f"{name!r} is not a name: quote it (YAML reads null, ~, numbers and booleans as values)"
    if not name:
        return "a receiver needs a name: Alertmanager refuses an empty one"
    if not name.strip():
        return f"{name!r} is blank: give the receiver a name people can read in Alertmanager"
    if name == DROP_RECEIVER:
        return f"{name!r} is the receiver the stack routes the Watchdog alert to: Alertmanager refuses a second one"
    return None


class AlertsSpec(SpecModel):
    """Alertmanager routing for the GPU alert rules. With no receivers, alerts go to budget.contacts: on AWS through
    the stack's SNS topic, elsewhere by e-mail through `smtp` (README: where alerts go)."""

    receivers: dict[str, AlertReceiverSpec] = Field(
        default_factory=dict,
        description="Receiver name -> where it sends; every alert goes to each receiver. Names are non-empty and "
        "not 'null'. Empty: budget.contacts, through the SNS topic on AWS, else by e-mail when smtp is set.",
    )
    smtp: Optional[SmtpSpec] = Field(None, description="The SMTP relay e-mail receivers send through.")
    repeat_interval_hours: int = Field(4, ge=1, le=168, description="Hours before a firing alert is sent again.")

    @field_validator("receivers", mode="before")
    @classmethod
    def _names(cls, v: Any) -> Any:
        if isinstance(v, dict):
            for name in v:
                problem = receiver_name_problem(name)
                if problem:
                    raise ValueError(problem)
        return v

    @field_validator("receivers")
    @classmethod
    def _one_topic(cls, v: dict[str, AlertReceiverSpec]) -> dict[str, AlertReceiverSpec]:
        publishing = [name for name, r in v.items() if r.sns_topic]
        if len(publishing) > 1:
            raise ValueError(
                f"receivers {', '.join(publishing)} all set sns: the stack has one alert topic, so each alert would "
                "be published once per receiver; set sns on one receiver"
            )
        return v


class MonitoringSpec(SpecModel):
    enabled: bool = Field(True, description="kube-prometheus-stack with DCGM dashboards and GPU alert rules.")
    alerts: AlertsSpec = Field(default_factory=AlertsSpec, description="Where Alertmanager sends the alerts.")
    idle_gpu_minutes: int = Field(
        60, ge=5, le=10_080, description="Alert when a GPU held by a pod stays idle this long (give it back)."
    )
    retention_days: int = Field(15, ge=1, le=365, description="Days Prometheus keeps metrics.")


class RegistrySpec(SpecModel):
    mirror: Optional[str] = Field(
        None,
        description="Registry every chart and image of the platform is pulled through: `host[:port][/path]`, e.g. "
        "a Container Registry Enterprise Edition instance's VPC address and namespace. An image `host/path:tag` is "
        "pulled as `<mirror>/path:tag`, a chart as `oci://<mirror>/<chart>` (README: Registries and mirrors).",
    )

    @field_validator("mirror")
    @classmethod
    def _mirror(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not MIRROR.match(v):
            raise ValueError(
                f"{v!r} is not a registry mirror: a lowercase host with a dot, an optional :port and /path, "
                "no scheme, tag or trailing slash (example-registry-vpc.cn-hangzhou.cr.aliyuncs.com/gpu-platform)"
            )
        if v is not None:
            host, _, port = v.split("/", 1)[0].partition(":")
            if port and not 1 <= int(port) <= 65535:
                raise ValueError(f"port {int(port)} is not a TCP port; allowed: 1-65535")
            why = not_a_registry(host)
            if why:
                raise ValueError(f"{why}; name the registry's own host (its VPC address)")
        return v


class KubernetesSpec(SpecModel):
    enabled: bool = Field(
        True, description="Install the GPU platform layer (needs network reach to the cluster's private API)."
    )
    gpu_stack: Literal["gpu-operator", "device-plugin"] = Field(
        "gpu-operator", description="NVIDIA GPU Operator, or the lighter device plugin plus DCGM exporter."
    )
    training_namespace: Optional[str] = Field(
        None,
        pattern=r"^[a-z][a-z0-9-]{0,30}$",
        description="Namespace of the stack's own `trainer` ServiceAccount (workload identity) and file-system "
        "claim, kept whatever teams are added (default `training`); every team namespace also gets its "
        "own `trainer` identity and claim.",
    )
    teams: dict[str, TeamSpec] = Field(default_factory=dict, description="Team namespaces with GPU quotas.")
    priorities: PrioritySpec = Field(default_factory=PrioritySpec, description="PriorityClass values.")
    acceptance: AcceptanceSpec = Field(default_factory=AcceptanceSpec, description="GPU node acceptance check.")
    queueing: QueueingSpec = Field(default_factory=QueueingSpec, description="Fair queueing with Kueue.")
    fabric_validation: FabricValidationSpec = Field(
        default_factory=FabricValidationSpec, description="Multi-node NCCL validation of RDMA groups."
    )
    monitoring: MonitoringSpec = Field(default_factory=MonitoringSpec, description="GPU observability.")
    registry: RegistrySpec = Field(
        default_factory=RegistrySpec, description="Where the platform's charts and images are pulled from."
    )
    pod_autoscaling: PodAutoscalingSpec = Field(
        default_factory=PodAutoscalingSpec,
        description="Pods scale on external (KEDA) and custom (Prometheus Adapter) metrics.",
    )

    @property
    def trainer_namespace(self) -> str:
        # Never derived from the teams: adding a team must not move (and so delete) this namespace.
        return self.training_namespace or "training"

    @field_validator("teams")
    @classmethod
    def _team_names(cls, v: dict[str, TeamSpec]) -> dict[str, TeamSpec]:
        for name in v:
            if not NAME.match(name) or name in PLATFORM_NAMESPACES:
                raise ValueError(f"team name {name!r} must be a new namespace name: lowercase letters, digits, '-'")
        return v


class ClusterSpec(SpecModel):
    """One GPU cluster on one cloud."""

    preset: Optional[Literal["startup", "research", "enterprise"]] = Field(
        None, description="Preset the stack starts from; every other field overrides it."
    )
    cloud: Cloud = Field(description="aws or alicloud.")
    region: str = Field(description="Cloud region, for example us-east-1 or cn-hangzhou.")
    environment: Literal["production", "staging", "development"] = Field(
        "production", description="production protects data stores from deletion."
    )
    kubernetes_version: Literal["1.32", "1.33", "1.34", "1.35", "1.36"] = Field(
        "1.35", description="Kubernetes minor version of the cluster (see catalog/kubernetes_versions.yaml)."
    )
    node_groups: dict[str, NodeGroupSpec] = Field(min_length=1, description="GPU node groups by name.")
    system_nodes: SystemNodesSpec = Field(
        default_factory=SystemNodesSpec, description="Untainted CPU nodes for cluster services."
    )
    autoscaling: AutoscalingSpec = Field(default_factory=AutoscalingSpec, description="Node autoscaling.")
    access: AccessSpec = Field(default_factory=AccessSpec, description="Who administers the cluster.")
    networking: NetworkingSpec = Field(default_factory=NetworkingSpec, description="Network and RDMA.")
    storage: StorageSpec = Field(default_factory=StorageSpec, description="Block, file and object storage.")
    compliance: ComplianceSpec = Field(default_factory=ComplianceSpec, description="Frameworks to meet.")
    budget: BudgetSpec = Field(description="Monthly budget and alerts.")
    logging: LoggingSpec = Field(default_factory=LoggingSpec, description="Audit log retention.")
    encryption: EncryptionSpec = Field(default_factory=EncryptionSpec, description="The stack key's rotation.")
    node_image: NodeImageSpec = Field(
        default_factory=NodeImageSpec, description="The node image release, pinned or held from creation."
    )
    account_services: AccountServicesSpec = Field(
        default_factory=AccountServicesSpec, description="Account-level services: create them or use existing ones."
    )
    kubernetes: KubernetesSpec = Field(default_factory=KubernetesSpec, description="The GPU platform layer.")
    serving: ServingSpec = Field(default_factory=ServingSpec, description="Models served with vLLM (serving_spec.py).")
    tags: dict[str, str] = Field(default_factory=dict, description="Tags put on every resource.")
    prices: dict[str, Union[float, dict[PriceOption, float]]] = Field(
        default_factory=dict,
        description="Hourly USD price overrides by instance type (negotiated rates): a number "
        "for every purchase option, or {on-demand: 30.0, spot: 12.0} per option.",
    )
    price_guidance_usd_per_hour: Optional[float] = Field(
        None, gt=0, description="The hourly cost the preset's sizing guidance expects (for notes only)."
    )

    @field_validator("node_groups")
    @classmethod
    def _group_names(cls, v: dict[str, NodeGroupSpec]) -> dict[str, NodeGroupSpec]:
        for name in v:
            if not NAME.match(name):
                raise ValueError(f"node group name {name!r} must be lowercase letters, digits and '-', at most 31")
            if name == "system":
                raise ValueError("node group name 'system' is the system node group's (systemNodes)")
        return v

    @field_validator("prices", mode="before")
    @classmethod
    def _prices(cls, v: Any) -> Any:
        """One message per bad price (a union would report each of its branches), before the types are checked."""
        if not isinstance(v, dict):
            return v
        options = PriceOption.__args__
        for instance_type, given in v.items():
            if isinstance(given, dict):
                unknown = [o for o in given if o not in options]
                if unknown:
                    raise ValueError(
                        f"price for {instance_type}: {unknown[0]!r} is not a purchase option; use {', '.join(options)}"
                    )
            for option, price in given.items() if isinstance(given, dict) else [("", given)]:
                name = f"{instance_type} ({option})" if option else instance_type
                if isinstance(price, bool) or not isinstance(price, (int, float)):
                    raise ValueError(
                        f"price for {name} must be a USD amount per hour, or per purchase option "
                        f"({{on-demand: 30.0, spot: 12.0}}) (got {price!r})"
                    )
                if not (price > 0 and math.isfinite(price)):
                    raise ValueError(f"price for {name} must be a positive, finite USD amount per hour (got {price})")
        return v

    @field_validator("prices")
    @classmethod
    def _priced_shapes(cls, v: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        """A price for a shape the stack cannot use would be ignored in silence: only shapes the catalog knows on the
        stack's cloud (GPU and system shapes) and the stack's own systemNodes.instanceType take a price."""
        cloud = info.data.get("cloud")
        if not isinstance(cloud, str) or not v:
            return v
        system = info.data.get("system_nodes")
        known = {s.instance_type for s in load_catalog().for_cloud(cloud)}
        known |= {s.instance_type for s in load_system_shapes().shapes if s.cloud == cloud}
        known |= {system.instance_type} if system is not None and system.instance_type else set()
        for instance_type in v:
            if instance_type not in known:
                raise ValueError(
                    f"{instance_type} is not an instance type the catalog knows on {cloud}, so its price would "
                    f"be used nowhere{did_you_mean(instance_type, sorted(known))}"
                )
        return v

    @model_validator(mode="after")
    def _cloud_consistency(self) -> "ClusterSpec":
        cloud = profile(self.cloud)
        if not cloud.region.matches(self.region):
            raise ValueError(
                f"region {self.region!r} is not an {self.cloud} region name (for example {cloud.region.example})"
            )
        fs = self.storage.parallel_fs.type
        allowed_fs = {"none", *cloud.file_systems}
        if fs not in allowed_fs:
            raise ValueError(
                f"parallel file system {fs!r} is not offered on {self.cloud}; use one of {sorted(allowed_fs)}"
            )
        if self.storage.object_storage.cache and fs == "none":
            raise ValueError("objectStorage.cache needs a parallel file system to act as the cache")
        if self.storage.object_storage.cache and fs == "nas":
            raise ValueError("objectStorage.cache needs parallelFs type cpfs on alicloud (NAS has no OSS data flow)")
        system_type = self.system_nodes.instance_type
        if system_type and not cloud.instance_type.matches(system_type):
            raise ValueError(
                f"systemNodes.instanceType {system_type!r} is not an {self.cloud} instance type "
                f"(for example {cloud.instance_type.example})"
            )
        for admin in self.access.cluster_admins:
            if not cloud.admin_principal.matches(admin):
                raise ValueError(f"access.clusterAdmins: {admin!r} is not {cloud.admin_principal.describe}")
        release = self.node_image.release_version
        if release and ".".join(release.split(".")[:2]) != self.kubernetes_version:
            raise ValueError(
                f"nodeImage.releaseVersion {release} is for Kubernetes "
                f"{'.'.join(release.split('.')[:2])}, not the cluster's {self.kubernetes_version}"
            )
        if self.encryption.kms_instance_id and not cloud.kms.instances:
            raise ValueError(f"encryption.kmsInstanceId is an Alibaba Cloud KMS instance; {cloud.name} keys need none")
        low, high = cloud.kms.rotation_days
        if not low <= self.encryption.key_rotation_days <= high:
            raise ValueError(
                f"encryption.keyRotationDays {self.encryption.key_rotation_days}: {self.cloud} KMS "
                f"rotates every {low} to {high} days"
            )
        for name, receiver in self.kubernetes.monitoring.alerts.receivers.items():
            if receiver.sns_topic and not cloud.alert_topic:
                raise ValueError(
                    f"kubernetes.monitoring.alerts.receivers.{name}.sns: Amazon SNS is an AWS service; on "
                    f"{self.cloud} use email, slackUrlConfig or webhookUrlConfig (a DingTalk robot)"
                )
            if receiver.sns_topic and receiver.sns_topic.subscribe_budget_contacts and not self.budget.contacts:
                raise ValueError(
                    f"kubernetes.monitoring.alerts.receivers.{name}.sns.subscribeBudgetContacts: budget.contacts is "
                    "empty, so nobody would be subscribed; list addresses in budget.contacts, or use sns: true"
                )
        if "mlps" in self.compliance.frameworks and self.logging.retention_days < 180:
            raise ValueError("MLPS 2.0 level 3 keeps audit logs at least 180 days; set logging.retentionDays >= 180")
        for problem in serving_problems(self)[:1]:
            raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _karpenter(self) -> "ClusterSpec":
        """Karpenter (autoscaling.engine) is EKS's; its reserved pools select reservations by id."""
        engines = profile(self.cloud).autoscaling_engines
        if self.autoscaling.engine not in engines:
            raise ValueError(
                f"autoscaling.engine: {self.autoscaling.engine} does not run on {profile(self.cloud).name}; allowed "
                f"there: {', '.join(engines)} (karpenter provisions EC2 for EKS; instant-elasticity is ACK GOATScaler, "
                "ACK's node instant scaling)"
            )
        if self.autoscaling.engine == "instant-elasticity" and not self.autoscaling.enabled:
            raise ValueError("autoscaling.engine: instant-elasticity needs autoscaling.enabled: true")
        if self.autoscaling.engine == "karpenter":
            for name, group in self.node_groups.items():
                reservation = group.capacity_reservation_id
                if group.capacity in ("reservation", "capacity-block") and not KARPENTER_RESERVATION.match(reservation):
                    raise ValueError(
                        f"nodeGroups.{name}.capacityReservationId: with autoscaling.engine karpenter, a reservation "
                        f"or capacity block id (cr-...), not {reservation!r} (EC2NodeClass "
                        "capacityReservationSelectorTerms selects by id)"
                    )
        if self.autoscaling.engine == "karpenter" and not self.autoscaling.enabled:
            raise ValueError(
                "autoscaling.engine: karpenter needs autoscaling.enabled: true (it is the only way its GPU nodes start)"
            )
        return self

    @property
    def alert_receivers(self) -> dict[str, AlertReceiverSpec]:
        """Where alerts go: the spec's receivers; without any, budget.contacts through the cloud's alert topic (SNS
        on AWS: no credential needed, each address confirms its subscription) or, with an SMTP relay, by e-mail.
        Empty when nothing can deliver (no contacts, or no topic and no relay): the readiness check blocks."""
        alerts = self.kubernetes.monitoring.alerts
        if alerts.receivers or not self.budget.contacts:
            return dict(alerts.receivers)
        if profile(self.cloud).alert_topic:
            return {DEFAULT_RECEIVER: AlertReceiverSpec(sns=SnsReceiverSpec(subscribe_budget_contacts=True))}
        if alerts.smtp:
            return {DEFAULT_RECEIVER: AlertReceiverSpec(email=list(self.budget.contacts))}
        return {}

    @property
    def project_tags(self) -> dict[str, str]:
        """Tags every resource carries: the stack's own plus what identifies the blueprint."""
        tags = {"managed-by": "gpu-cluster-blueprints", "environment": self.environment, **self.tags}
        return dict(sorted(tags.items()))  # stable order: reordering the stack file is not a change
