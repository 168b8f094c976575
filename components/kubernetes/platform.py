"""GpuPlatform: GPU enablement from upstream charts, RDMA device plugins, priorities, team quotas,
storage pods can mount, workload identity and (on EKS) the Cluster Autoscaler.

Cloud-neutral: the cluster component says what its nodes already ship (drivers on the EKS AL2023
NVIDIA AMI, drivers and device plugin on ACK GPU nodes), which groups have EFA, where the system
nodes are, and passes a Kubernetes provider for its cluster.
"""

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import yaml

from ..base import KUBERNETES, Args, Component, as_args
from .acceptance import IMAGE as ACCEPTANCE_IMAGE
from .acceptance import NAMESPACE as ACCEPTANCE_NAMESPACE
from .acceptance import GpuAcceptance, GpuAcceptanceArgs
from .autoscaler import AutoscalerArgs, ClusterAutoscaler
from .charts import chart_release
from .custom_metrics import RELEASE as CUSTOM_METRICS_RELEASE
from .custom_metrics import adapter_values
from .fabric import FabricArgs, FabricTarget, FabricValidation
from .inference_gateway import (
    InferenceRoute,
    InferenceRouteArgs,
    ServingGateway,
    ServingGatewayArgs,
    install_gateway_api,
)
from .karpenter import Karpenter, KarpenterArgs
from .mirror import mirror_transformation
from .monitoring import DCGM_COUNTERS, GpuMonitoring, MonitoringArgs, SnsTarget
from .nodes import (
    DRA,
    DRA_EFA_CLASS,
    DRA_EFA_QUOTA,
    DRA_GPU_CLASS,
    EFA_PRESENT_LABEL,
    FABRIC_DEVICES_LABEL,
    GPU_DEVICES_LABEL,
    GPU_PRESENT_LABEL,
    GPU_RESOURCE,
    NODE_GROUP_LABEL,
    RDMA_RESOURCES,
    STARTUP_TAINT_PREFIX,
    claim_template_name,
)
from .queueing import FairQueueing, GpuFlavor, QueueingArgs, TeamQueue
from .serving import MONITORING_NAMESPACE, PORT, ModelServing, ServingAccess, ServingArgs
from .storage import ClusterStorage, ClusterStorageArgs, SharedVolumeSpec, StorageClassSpec

OPERATOR_NAMESPACE = "gpu-operator"
DCGM_METRICS = "gpu-metrics"  # ConfigMap with the exporter's counters (key dcgm-metrics.csv, GPU Operator docs)
KEDA_NAMESPACE = "keda"
AI_OPERATOR, AI_OPERATOR_NAMESPACE = "kuberay-operator", "kuberay-system"  # a namespace of its own (chart: any)
# Only what the device plugin allocates reaches a container: the plugin passes a container's GPUs as volume mounts
# under /var/run/nvidia-container-devices, and the NVIDIA runtime takes the device list from those mounts only and
# ignores an NVIDIA_VISIBLE_DEVICES an unprivileged container sets itself (a pod without a GPU request that sets
# NVIDIA_VISIBLE_DEVICES=all sees no GPU). The toolkit installer's env (NVIDIA/nvidia-container-toolkit v1.20.0, the GPU
# Operator v26.7.0 default: cmd/nvidia-ctk-installer/toolkit/toolkit.go) writes accept-nvidia-visible-devices-envvar-
# when-unprivileged and accept-nvidia-visible-devices-as-volume-mounts into the runtime's config.toml (defaults true and
# false: api/config/v1/toml.go); the device plugin reads DEVICE_LIST_STRATEGY (NVIDIA/k8s-device-plugin v0.20.0
# cmd/nvidia-device-plugin/main.go, "volume-mounts": api/config/v1/consts.go). The operator applies toolkit.env and
# devicePlugin.env after its own settings (gpu-operator v26.7.0 controllers/object_controls.go TransformToolkit,
# TransformDevicePlugin). CDI is off: with cdi.enabled (the chart's default) the operator puts the runtime in CDI
# mode and the plugin on CDI annotations, where volume-mount device lists are not read.
RUNTIME_ISOLATION_ENV = {
    "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED": "false",
    "ACCEPT_NVIDIA_VISIBLE_DEVICES_AS_VOLUME_MOUNTS": "true",
}
DEVICE_LIST_STRATEGY = "volume-mounts"
# NVIDIA's DRA driver for GPUs: its install guide's namespace (the chart refuses `default`: templates/validation.yaml).
DRA_DRIVER, DRA_NAMESPACE = "dra-driver-nvidia-gpu", "dra-driver-nvidia-gpu"
# AWS's EFA DRA driver (dranet), in kube-system as its chart's README installs it.
EFA_DRA_DRIVER = "aws-dranet"
LWS_NAMESPACE = "lws-system"  # the LeaderWorkerSet CRD's conversion webhook names its Service there (charts.yaml)


@dataclass(frozen=True)
class GpuNodes(Args):
    """One GPU node group as the Kubernetes layer sees it."""

    name: str
    """The node group."""
    rdma: str
    """None, efa or erdma."""
    taints: Sequence[Mapping[str, str]]
    """Key, value, effect (Kubernetes spelling), the acceptance gate included."""
    mig_profile: Optional[str] = None
    """The MIG layout the GPU Operator applies; None leaves GPUs whole."""
    mig_slices: Optional[int] = 1
    """MIG instances per GPU advertised as nvidia.com/gpu (single MIG strategy); 1 by default."""
    mig_resources: Optional[Mapping[str, int]] = field(default_factory=dict)
    """nvidia.com/mig-<profile> -> instances a node advertises (mixed MIG strategy, sharing replicas included); the
    node then advertises no nvidia.com/gpu. Empty by default."""
    sharing: Optional[str] = None
    """time-slicing or mps through the device plugin's per-node-group configuration; None (default): whole GPUs."""
    sharing_replicas: Optional[int] = 1
    """Pods per GPU (or MIG slice) with `sharing`; 1 by default."""
    devices: Optional[str] = "plugin"
    """plugin (the device plugin's nvidia.com/gpu, the default) or dra (NVIDIA's DRA driver: claimed GPUs)."""
    rdma_dra: Optional[bool] = False
    """A DRA group's fabric devices are claimed through the fabric's DRA driver too (EFA: AWS dranet); off by
    default."""
    acceptance: Optional[Mapping[str, Any]] = None
    """Acceptance/gpu_check.py expectation; None runs no check."""
    gpus: Optional[int] = 0
    """GPUs per node."""
    vcpus: Optional[int] = 0
    """vCPUs per node."""
    memory_gib: Optional[int] = 0
    """Host memory per node, GiB."""
    rdma_devices: Optional[int] = 0
    """Fabric devices per node (EFA interfaces, eRDMA devices)."""
    max_nodes: Optional[int] = 0
    """The most nodes the group may have."""
    fabric_min_busbw_gbps: Optional[float] = None
    """Threshold for the fabric validation; None: not judged."""
    topology_name: Optional[str] = None
    """The Kueue Topology the group's flavor names; None (default): quota-only admission."""
    topology_levels: Optional[Sequence[str]] = ()
    """That Topology's node label keys, broadest first; empty by default."""
    provisioned: Optional[bool] = False
    """Kueue's Provisioning admission check asks the Cluster Autoscaler for a gang's nodes before the Topology places
    it; False (default)."""

    @property
    def slices_per_gpu(self) -> int:
        """nvidia.com/gpu the device plugin advertises per physical GPU: MIG slices times sharing replicas."""
        return (self.mig_slices or 1) * (self.sharing_replicas if self.sharing else 1)

    @property
    def workload_taints(self) -> list[Mapping[str, str]]:
        """The taints jobs tolerate: not the startup gate, which keeps them off a node until it passes."""
        return [t for t in self.taints if not t["key"].startswith(STARTUP_TAINT_PREFIX)]


# NCCL settings per fabric: AWS (aws-ofi-nccl picks EFA itself), Alibaba Cloud's eRDMA guide for NCCL
# (IB verbs on the erdma devices, GPUDirect RDMA on, the bootstrap on eth0).
FABRIC_ENV = {
    "efa": {"FI_PROVIDER": "efa"},
    "erdma": {"NCCL_IB_HCA": "erdma", "NCCL_SOCKET_IFNAME": "eth0", "NCCL_NET_GDR_LEVEL": "SYS"},
}
FABRIC_TRANSPORT = {"efa": "efa", "erdma": "ib"}


@dataclass(frozen=True)
class FabricSettings(Args):
    """Fabric validation settings."""

    image: str
    """The validation image."""
    run_on_create: Optional[bool] = False
    """Start the validation at once."""


@dataclass(frozen=True)
class Team(Args):
    """A team's GPU quota and container defaults."""

    gpus: int
    """The team's guaranteed GPUs."""
    max_gpus_per_pod: Optional[int]
    """The most GPUs one pod may ask; None: no limit."""
    default_cpu: str
    """CPU request for the team's containers that set none."""
    default_memory: str
    """Memory request for the team's containers that set none."""


@dataclass(frozen=True)
class PriorityValues(Args):
    """PriorityClass values for critical, standard and preemptible work."""

    critical: int
    """Priority of critical work."""
    standard: int
    """Priority of standard work."""
    preemptible: int
    """Priority of preemptible work."""


@dataclass(frozen=True)
class WorkloadServiceAccount(Args):
    """A ServiceAccount bound to a cloud role (IRSA / RRSA) through its annotations."""

    namespace: str
    """Its namespace."""
    name: str
    """Its name."""
    annotations: Mapping[str, pulumi.Input[str]]
    """The cloud role it is bound to (IRSA or RRSA annotations)."""


@dataclass(frozen=True)
class PlatformArgs(Args):
    """The Kubernetes layer's args. Fields without a default are required."""

    node_groups: Sequence[GpuNodes]
    """The GPU node groups."""
    gpu_stack: str
    """Gpu-operator (NVIDIA GPU Operator) or device-plugin (the device plugin chart alone)."""
    teams: Mapping[str, Team]
    """Team name -> quota; each team gets a namespace (and a queue with queueing)."""
    priorities: PriorityValues
    """PriorityClass values."""
    # What the cloud's GPU nodes ship; the cluster component sets both, since it knows its node images.
    driver_preinstalled: Optional[bool] = False
    """The node image ships the NVIDIA driver (the GPU Operator then installs only the container toolkit, whose
    settings keep a container from GPUs it was not given: RUNTIME_ISOLATION_ENV)."""
    device_plugin_preinstalled: Optional[bool] = False
    """The cloud runs its own NVIDIA device plugin on GPU nodes."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Labels on every object; none by default."""
    # Where controllers run: the untainted system group's label. Empty leaves charts' defaults.
    system_node_selector: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Where controllers run: the untainted system group's label; empty leaves charts' defaults."""
    # Namespaces beyond the teams' (the training namespace), with extra labels (ACK RRSA injection).
    namespaces: Optional[Mapping[str, Mapping[str, str]]] = field(default_factory=dict)
    """Namespaces beyond the teams' (the training namespace), with extra labels."""
    service_accounts: Optional[Sequence[WorkloadServiceAccount]] = ()
    """ServiceAccounts bound to cloud roles."""
    storage_classes: Optional[Sequence[StorageClassSpec]] = ()
    """StorageClasses for block volumes."""
    shared_volumes: Optional[Sequence[SharedVolumeSpec]] = ()
    """Shared file systems as bound claims."""
    autoscaler: Optional[AutoscalerArgs] = None
    """EKS; ACK scales node pools itself."""
    karpenter: Optional[KarpenterArgs] = None
    """EKS: Karpenter and a NodePool per GPU group, instead of the Cluster Autoscaler; None: none."""
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
    """KEDA (external metrics, serving needs it) and, with monitoring, the Prometheus Adapter (the custom metrics API:
    GPU and vLLM pod metrics) on the system nodes; on by default."""
    serving: Optional[ServingArgs] = None
    """Models served with vLLM and scaled by KEDA (serving.py); None serves none."""
    image_mirror: Optional[str] = None
    """Registry every chart and image is pulled through (`host[/path]`, mirror.py); None: their own registries."""
    serving_access: Optional[ServingAccess] = None
    """The bucket, roles and volumes the model servers read their weights through; set by the cluster."""
    alert_topic: Optional[SnsTarget] = None
    """The Amazon SNS topic alert receivers with `sns` publish to, and Alertmanager's role; set by the cluster."""


def gpu_tolerations(groups: Sequence[GpuNodes]) -> list[dict[str, str]]:
    """Tolerate every taint the GPU node groups carry, so node agents land on every GPU node."""
    seen = sorted({(t["key"], t["effect"]) for g in groups for t in g.taints})
    return [{"key": key, "operator": "Exists", "effect": effect} for key, effect in seen]


DEVICE_PLUGIN_CONFIG = "device-plugin-config"
WHOLE_GPUS = "whole-gpus"  # the entry of nodes without DEVICE_PLUGIN_CONFIG_LABEL


def device_plugin_config(groups: Sequence[GpuNodes]) -> Optional[dict]:
    """The GPU Operator's devicePlugin.config (chart values at v26.7.0): a ConfigMap with one entry per sharing group,
    chosen on each node by its DEVICE_PLUGIN_CONFIG_LABEL, whole GPUs elsewhere; None when no group shares.
    Entries: k8s-device-plugin v0.20.0 README "Shared Access to GPUs" (the resource keeps its name nvidia.com/gpu,
    advertised replicas times; a container asking more than one shared GPU is refused rather than given one)."""
    shared = [g for g in groups if g.sharing]
    if not shared:
        return None
    key = {"time-slicing": "timeSlicing", "mps": "mps"}
    data = {WHOLE_GPUS: yaml.safe_dump({"version": "v1"}, sort_keys=False)}
    for g in shared:
        names = sorted(g.mig_resources) or [GPU_RESOURCE]  # mixed MIG: each profile's resource is time-sliced
        replicated: dict = {"resources": [{"name": n, "replicas": g.sharing_replicas} for n in names]}
        if g.sharing == "time-slicing":
            replicated = {"failRequestsGreaterThanOne": True, **replicated}
        data[g.name] = yaml.safe_dump({"version": "v1", "sharing": {key[g.sharing]: replicated}}, sort_keys=False)
    return {"create": True, "name": DEVICE_PLUGIN_CONFIG, "default": WHOLE_GPUS, "data": data}


def dra_driver_values(args: PlatformArgs) -> dict:
    """Values of NVIDIA's DRA driver chart (kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1 values.yaml, templates/):
    the kubelet plugin on the DRA groups' nodes only (GPU_DEVICES_LABEL), whatever their taints; GPU allocation on,
    which the chart takes only with gpuResourcesEnabledOverride once the device plugin is off those nodes
    (templates/validation.yaml); ComputeDomains off: they need multi-node NVLink (GB200/GB300-class), which no
    catalog shape has (docs/prerequisites.md). The driver root is the host's where the node image ships the driver,
    else where the GPU Operator's driver container puts it (docs/install.md)."""
    return {
        "nvidiaDriverRoot": "/" if args.driver_preinstalled else "/run/nvidia/driver",
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        "kubeletPlugin": {
            "nodeSelector": {GPU_DEVICES_LABEL: DRA},
            "tolerations": gpu_tolerations([g for g in args.node_groups if g.devices == DRA]),
        },
    }


def claim_template_spec(gpus: int, efa: int = 0) -> dict:
    """A ResourceClaimTemplate spec (resource.k8s.io/v1) that claims `gpus` whole GPUs and, where the group's EFA is
    claimed through dranet, its `efa` interfaces: one pod, one node's devices; Kueue charges each request's `count`
    against the team's quota (kueue v0.19.2: ExactCount only)."""
    requests = [("gpus", DRA_GPU_CLASS, gpus), *([("efa", DRA_EFA_CLASS, efa)] if efa else [])]
    return {
        "spec": {
            "devices": {
                "requests": [
                    {"name": name, "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount", "count": n}}
                    for name, cls, n in requests
                ]
            }
        }
    }


def dranet_values(args: PlatformArgs) -> dict:
    """AWS dranet (aws/eks-charts stable/aws-dranet 1.0.0 values.yaml, templates/daemonset.yaml): its DaemonSet on the
    nodes whose EFA devices DRA groups claim (FABRIC_DEVICES_LABEL), tolerating their taints (appended to the chart's
    CriticalAddonsOnly); its REQUIRED affinity keeps it to EFA instance types."""
    return {
        "nodeSelector": {FABRIC_DEVICES_LABEL: DRA},
        "tolerations": gpu_tolerations([g for g in args.node_groups if g.rdma_dra]),
    }


def fabric_extended(g: GpuNodes) -> dict[str, int]:
    """The fabric devices one node offers, as Kueue counts them: claimed (DRA_EFA_QUOTA) or the plugin's resource."""
    if g.rdma == "none":
        return {}
    return {DRA_EFA_QUOTA if g.rdma_dra else RDMA_RESOURCES[g.rdma]: g.rdma_devices}


def operator_values(args: PlatformArgs) -> dict:
    """GPU Operator values: operands off where the node image ships them; controllers on the system group,
    node agents (NFD worker, operands) on every GPU node whatever its taints."""
    mig = any(g.mig_profile for g in args.node_groups)
    plugin: dict = {
        # Off when every GPU group is a DRA group: the validator then skips its plugin validation, which waits for
        # nvidia.com/gpu on each GPU node (gpu-operator v26.7.0 controllers/object_controls.go, cmd/nvidia-validator).
        "enabled": not args.device_plugin_preinstalled and any(g.devices != DRA for g in args.node_groups),
        "env": [{"name": "DEVICE_LIST_STRATEGY", "value": DEVICE_LIST_STRATEGY}],
    }
    if config := device_plugin_config(args.node_groups):
        plugin["config"] = config  # per-group sharing, chosen by each node's DEVICE_PLUGIN_CONFIG_LABEL
    tolerations = gpu_tolerations(args.node_groups)
    system = dict(args.system_node_selector)
    exporter: dict = {"enabled": True}
    if args.monitoring is not None:
        # ECC and throttle counters on top of the defaults; pod labels kept as the exporter writes them.
        exporter.update({"config": {"name": DCGM_METRICS}, "serviceMonitor": {"enabled": True, "honorLabels": True}})
    return {
        "operator": {"nodeSelector": system},
        "node-feature-discovery": {
            "master": {"nodeSelector": system},
            "gc": {"nodeSelector": system},
            "worker": {"tolerations": tolerations},
        },
        "driver": {"enabled": not args.driver_preinstalled},
        # The operator's toolkit on every node, whatever the image ships: its runtime (set as containerd's default)
        # honours only the device plugin's volume-mount device lists (RUNTIME_ISOLATION_ENV).
        "cdi": {"enabled": False},
        "toolkit": {"enabled": True, "env": [{"name": k, "value": v} for k, v in RUNTIME_ISOLATION_ENV.items()]},
        "devicePlugin": plugin,
        "dcgmExporter": exporter,
        "mig": {"strategy": mig_strategy(args.node_groups)},
        "migManager": {"enabled": mig},
        "daemonsets": {"tolerations": tolerations},
    }


class GpuPlatform(Component):
    """What makes GPUs usable on a cluster: GPU enablement, RDMA device plugins, priorities, team quotas and queues,
    storage, workload identity, the autoscaler, acceptance and fabric checks, monitoring."""

    PACKAGE = KUBERNETES
    LEGACY_TYPE = "gpu-blueprints:kubernetes:GpuPlatform"
    releases: pulumi.Output[Sequence[str]]
    """The Helm releases installed."""

    def __init__(self, name: str, args: PlatformArgs, opts: Optional[pulumi.ResourceOptions] = None):
        args = as_args(PlatformArgs, args)
        if args.image_mirror:  # every chart and container below pulls through the mirror
            opts = pulumi.ResourceOptions.merge(
                opts, pulumi.ResourceOptions(transformations=[mirror_transformation(args.image_mirror)])
            )
        super().__init__(name, opts)
        labels = {"app.kubernetes.io/managed-by": "gpu-cluster-blueprints", **args.labels}
        self.releases: dict[str, k8s.helm.v3.Release] = {}
        self.grafana_admin_password: Optional[pulumi.Output[str]] = None
        """Grafana's admin password (secret) when monitoring is installed."""
        self._kueue_waits_for: list[
            pulumi.Resource
        ] = []  # the ProvisioningRequest CRD, where the autoscaler applies it
        monitoring_deps = self._gpu_enablement(name, args, labels)
        self._dra_driver(name, args)
        self._priority_classes(name, args, labels)
        self._namespaces(name, args, labels)
        self._team_limits(name, args, labels)
        self._identity_storage_and_autoscaler(name, args, labels)
        self._queueing(name, args)
        self._ai_operator(name, args)
        self._acceptance_and_fabric(name, args, labels)
        self._pod_autoscaling(name, args, monitoring_deps)
        self._gateway_api(name, args, labels)
        if args.serving is not None and args.serving.models:
            self._serve(name, args, labels, monitoring_deps)
        self.register_outputs({"releases": pulumi.Output.from_input(sorted(self.releases))})

    def _release(
        self, name: str, key: str, namespace: str, values: dict, depends_on: Sequence[pulumi.Resource] = ()
    ) -> k8s.helm.v3.Release:
        return chart_release(self, f"{name}-{key}", key, namespace, values, depends_on=depends_on)

    def _gpu_enablement(self, name: str, args: PlatformArgs, labels: Mapping[str, str]) -> list[pulumi.Resource]:
        """Monitoring first (its ServiceMonitor CRD), then the GPU stack and RDMA device plugins; returns what a
        workload with monitors must wait for."""
        child = pulumi.ResourceOptions(parent=self)
        tolerations = gpu_tolerations(args.node_groups)
        # Node agents (driver containers, MIG manager, exporters) need privileged pods.
        operator_ns = k8s.core.v1.Namespace(
            f"{name}-{OPERATOR_NAMESPACE}",
            metadata={
                "name": OPERATOR_NAMESPACE,
                "labels": {**labels, "pod-security.kubernetes.io/enforce": "privileged"},
            },
            opts=child,
        )
        monitoring_deps: list[pulumi.Resource] = []
        if args.monitoring is not None:
            settings = replace(args.monitoring, labels=labels, sns=args.alert_topic or args.monitoring.sns)
            monitoring = GpuMonitoring(f"{name}-monitoring", settings, opts=child)
            self.grafana_admin_password = monitoring.grafana_admin_password
            monitoring_deps = [monitoring.release]  # the ServiceMonitor CRD comes with it
        if args.gpu_stack == "gpu-operator":
            operator_deps: list[pulumi.Resource] = [operator_ns, *monitoring_deps]
            if args.monitoring is not None:
                operator_deps.append(
                    k8s.core.v1.ConfigMap(
                        f"{name}-{DCGM_METRICS}",
                        metadata={"name": DCGM_METRICS, "namespace": OPERATOR_NAMESPACE, "labels": labels},
                        data={"dcgm-metrics.csv": DCGM_COUNTERS},
                        opts=pulumi.ResourceOptions(parent=self, depends_on=[operator_ns]),
                    )
                )
            self.releases["gpu-operator"] = self._release(
                name, "gpu-operator", OPERATOR_NAMESPACE, operator_values(args), operator_deps
            )
        else:
            if not args.device_plugin_preinstalled:
                self.releases["nvidia-device-plugin"] = self._release(
                    name, "nvidia-device-plugin", OPERATOR_NAMESPACE, {"tolerations": tolerations}, [operator_ns]
                )
            # The chart's ServiceMonitor needs the Prometheus Operator's CRD, which is not installed; without a
            # nodeSelector it would also run on every CPU node (chart_workloads.yaml, dcgm-exporter 3.5.0).
            self.releases["dcgm-exporter"] = self._release(
                name,
                "dcgm-exporter",
                OPERATOR_NAMESPACE,
                {
                    "tolerations": tolerations,
                    "serviceMonitor": {"enabled": args.monitoring is not None},
                    "nodeSelector": {GPU_PRESENT_LABEL: "true"},
                },
                [operator_ns, *monitoring_deps],
            )
        if any(g.rdma == "efa" and not g.rdma_dra for g in args.node_groups):
            self.releases["aws-efa-k8s-device-plugin"] = self._release(
                name,
                "aws-efa-k8s-device-plugin",
                "kube-system",
                {"nodeSelector": {EFA_PRESENT_LABEL: "true"}, "tolerations": tolerations},
            )
        return monitoring_deps

    def _dra_driver(self, name: str, args: PlatformArgs) -> None:
        """NVIDIA's DRA driver where a group has `devices: dra`, after the GPU Operator (its driver and toolkit); the
        DeviceClasses (gpu.nvidia.com, mig.nvidia.com, vfio.gpu.nvidia.com) come with the chart."""
        if not any(g.devices == DRA for g in args.node_groups):
            return
        self.releases[DRA_DRIVER] = chart_release(
            self,
            f"{name}-{DRA_DRIVER}",
            DRA_DRIVER,
            DRA_NAMESPACE,
            dra_driver_values(args),
            create_namespace=True,
            depends_on=[self.releases[k] for k in ("gpu-operator",) if k in self.releases],
        )
        if any(g.rdma_dra for g in args.node_groups):  # its DeviceClass efa.networking.k8s.aws comes with the chart
            self.releases[EFA_DRA_DRIVER] = chart_release(
                self, f"{name}-{EFA_DRA_DRIVER}", EFA_DRA_DRIVER, "kube-system", dranet_values(args)
            )

    def _priority_classes(self, name: str, args: PlatformArgs, labels: Mapping[str, str]) -> None:
        """Three GPU priority classes: critical and standard preempt lower ones; preemptible never preempts."""
        p = args.priorities
        self.priority_classes = {
            cls_name: k8s.scheduling.v1.PriorityClass(
                f"{name}-{cls_name}",
                metadata={"name": cls_name, "labels": labels},
                value=value,
                global_default=False,
                preemption_policy=policy,
                description=text,
                opts=pulumi.ResourceOptions(parent=self),
            )
            for cls_name, value, policy, text in (
                (
                    "gpu-critical",
                    p.critical,
                    "PreemptLowerPriority",
                    "Critical training: preempts standard and preemptible GPU work.",
                ),
                ("gpu-standard", p.standard, "PreemptLowerPriority", "Default for GPU work that names no class."),
                (
                    "gpu-preemptible",
                    p.preemptible,
                    "Never",
                    "Spot-friendly work: never preempts, first to be preempted.",
                ),
            )
        }

    def _namespaces(self, name: str, args: PlatformArgs, labels: Mapping[str, str]) -> None:
        """Team and workload namespaces, each isolated; with teams, a non-team namespace may not ask for GPUs."""
        self.namespaces: dict[str, k8s.core.v1.Namespace] = {}
        for ns_name in sorted(set(args.teams) | set(args.namespaces)):
            team_label = {"gpu-blueprints/team": ns_name} if ns_name in args.teams else {}
            self.namespaces[ns_name] = k8s.core.v1.Namespace(
                f"{name}-team-{ns_name}" if ns_name in args.teams else f"{name}-ns-{ns_name}",
                metadata={
                    "name": ns_name,
                    "labels": {
                        **labels,
                        **team_label,
                        **args.namespaces.get(ns_name, {}),
                        "pod-security.kubernetes.io/enforce": "baseline",
                    },
                },
                opts=pulumi.ResourceOptions(parent=self),
            )
            isolate_namespace(
                f"{name}-{ns_name}",
                ns_name,
                labels,
                pulumi.ResourceOptions(parent=self, depends_on=[self.namespaces[ns_name]]),
            )
            if args.teams and ns_name not in args.teams:
                # Kept for its data and identity (the trainer namespace); with teams, GPUs come through the teams'
                # quotas and queues, so no container here may ask for one (as maxGpusPerPod caps a team's).
                k8s.core.v1.LimitRange(
                    f"{name}-ns-{ns_name}-no-gpus",
                    metadata={"name": "no-gpus", "namespace": ns_name, "labels": labels},
                    spec={"limits": [{"type": "Container", "max": {r: "0" for r in gpu_resource_names(args)}}]},
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[self.namespaces[ns_name]]),
                )

    def _team_limits(self, name: str, args: PlatformArgs, labels: Mapping[str, str]) -> None:
        """Each team's GPU quota (without Kueue; with it, the team's queue admits) and container defaults."""
        for team, spec in sorted(args.teams.items()):
            scoped = pulumi.ResourceOptions(parent=self, depends_on=[self.namespaces[team]])
            if args.queueing is None:  # with Kueue, every job in a team namespace is admitted against its queue
                k8s.core.v1.ResourceQuota(
                    f"{name}-team-{team}-gpus",
                    metadata={"name": "gpus", "namespace": team, "labels": labels},
                    spec={"hard": {f"requests.{r}": str(spec.gpus * n) for r, n in units_per_gpu(args).items()}},
                    opts=scoped,
                )
            limits: dict = {
                "type": "Container",
                "default": {"cpu": spec.default_cpu, "memory": spec.default_memory},
                "defaultRequest": {"cpu": spec.default_cpu, "memory": spec.default_memory},
            }
            if spec.max_gpus_per_pod is not None:
                limits["max"] = {GPU_RESOURCE: str(spec.max_gpus_per_pod)}
            self._claim_templates(name, team, args, labels, scoped)
            k8s.core.v1.LimitRange(
                f"{name}-team-{team}-defaults",
                metadata={"name": "defaults", "namespace": team, "labels": labels},
                spec={"limits": [limits]},
                opts=scoped,
            )

    def _claim_templates(
        self, name: str, team: str, args: PlatformArgs, labels: Mapping[str, str], opts: pulumi.ResourceOptions
    ) -> None:
        """A ResourceClaimTemplate per DRA group in the team's namespace: a pod names it to claim a node's GPUs."""
        dra = [g for g in args.node_groups if g.devices == DRA]
        if not dra:
            return
        after = [self.releases[k] for k in (DRA_DRIVER, EFA_DRA_DRIVER) if k in self.releases]  # their DeviceClasses
        for g in dra:
            k8s.resource.v1.ResourceClaimTemplate(
                f"{name}-team-{team}-{claim_template_name(g.name)}",
                metadata={"name": claim_template_name(g.name), "namespace": team, "labels": dict(labels)},
                spec=claim_template_spec(g.gpus, g.rdma_devices if g.rdma_dra else 0),
                opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=after)),
            )

    def _identity_storage_and_autoscaler(self, name: str, args: PlatformArgs, labels: Mapping[str, str]) -> None:
        """Workload service accounts (annotated for the cloud's identity), storage classes and shared volumes, and
        the cluster autoscaler where the cloud's own does not scale nodes."""
        self.service_accounts = [
            k8s.core.v1.ServiceAccount(
                f"{name}-{sa.namespace}-{sa.name}",
                metadata={
                    "name": sa.name,
                    "namespace": sa.namespace,
                    "labels": labels,
                    "annotations": dict(sa.annotations),
                },
                opts=pulumi.ResourceOptions(parent=self, depends_on=[self.namespaces[sa.namespace]]),
            )
            for sa in args.service_accounts
        ]
        if args.storage_classes or args.shared_volumes:
            ClusterStorage(
                f"{name}-storage",
                ClusterStorageArgs(classes=args.storage_classes, volumes=args.shared_volumes, labels=labels),
                opts=pulumi.ResourceOptions(
                    parent=self, depends_on=[self.namespaces[v.namespace] for v in args.shared_volumes]
                ),
            )
        if args.autoscaler is not None:
            autoscaler = ClusterAutoscaler(
                f"{name}-cluster-autoscaler", args.autoscaler, opts=pulumi.ResourceOptions(parent=self)
            )
            if autoscaler.provisioning_request_crd is not None:
                self._kueue_waits_for.append(autoscaler.provisioning_request_crd)
        if args.karpenter is not None:
            Karpenter(f"{name}-karpenter", args.karpenter, opts=pulumi.ResourceOptions(parent=self))

    def _queueing(self, name: str, args: PlatformArgs) -> None:
        """Kueue: one flavor a GPU group (its labels, taints, GPUs, CPU, memory, RDMA devices), one queue a team."""
        if args.queueing is None or not args.teams:
            return
        FairQueueing(
            f"{name}-queueing",
            QueueingArgs(
                flavors=[
                    GpuFlavor(
                        group=g.name,
                        node_labels={NODE_GROUP_LABEL: g.name},
                        tolerations=g.workload_taints,
                        gpus_per_node=g.gpus * (1 if g.mig_resources else g.slices_per_gpu),
                        vcpus=g.vcpus,
                        memory_gib=g.memory_gib,
                        extended=fabric_extended(g),
                        mig_resources=dict(g.mig_resources),
                        topology_name=g.topology_name,
                        topology_levels=tuple(g.topology_levels),
                        provisioned=g.provisioned,
                        dra=g.devices == DRA,
                    )
                    for g in args.node_groups
                ],
                teams=[
                    TeamQueue(
                        team, t.gpus, {g.name: g.slices_per_gpu for g in args.node_groups if g.slices_per_gpu > 1}
                    )
                    for team, t in sorted(args.teams.items())
                ],
                system_node_selector=args.system_node_selector,
                standard_priority=args.priorities.standard,
                pods_ready_timeout_minutes=args.queueing,
                _depends_on=[self.namespaces[t] for t in sorted(args.teams)],
                _chart_depends_on=self._kueue_waits_for,
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )

    def _ai_operator(self, name: str, args: PlatformArgs) -> None:
        """KubeRay's operator on the system nodes where Kueue queues the teams' work: its RayJobs and RayClusters in
        a team namespace are admitted through the team's queue (queueing.py integrations), all or nothing (CNCF AI
        Conformance robust_controller: an AI operator with CRDs). Its CRDs come with the chart."""
        if args.queueing is None or not args.teams:
            return
        self.releases[AI_OPERATOR] = chart_release(
            self,
            f"{name}-{AI_OPERATOR}",
            AI_OPERATOR,
            AI_OPERATOR_NAMESPACE,
            {"nodeSelector": dict(args.system_node_selector)},
            create_namespace=True,
        )

    def _acceptance_and_fabric(self, name: str, args: PlatformArgs, labels: Mapping[str, str]) -> None:
        """The per-node GPU acceptance check, and the multi-node fabric check on RDMA groups that can reach two
        nodes."""
        expectations = {g.name: g.acceptance for g in args.node_groups if g.acceptance is not None}
        if not expectations:
            return
        acceptance = GpuAcceptance(
            f"{name}-acceptance",
            GpuAcceptanceArgs(
                expectations=expectations,
                tolerations=gpu_tolerations(args.node_groups),
                priority_class="gpu-standard",
                labels=labels,
                recheck_idle_hours=args.recheck_idle_hours,
                system_node_selector=args.system_node_selector,
                image=args.acceptance_image,
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.priority_classes.values())),
        )
        targets = [
            FabricTarget(
                group=g.name,
                node_selector={NODE_GROUP_LABEL: g.name},
                tolerations=g.workload_taints,
                gpus=g.gpus,
                devices={RDMA_RESOURCES[g.rdma]: g.rdma_devices},
                transport=FABRIC_TRANSPORT[g.rdma],
                min_busbw_gbps=g.fabric_min_busbw_gbps,
                env=FABRIC_ENV[g.rdma],
            )
            for g in args.node_groups
            if g.rdma != "none" and g.acceptance is not None and g.max_nodes >= 2
        ]
        if args.fabric is not None and targets:
            FabricValidation(
                f"{name}-fabric",
                FabricArgs(
                    targets=targets,
                    image=args.fabric.image,
                    namespace=ACCEPTANCE_NAMESPACE,
                    system_node_selector=args.system_node_selector,
                    run_on_create=args.fabric.run_on_create,
                    labels=labels,
                ),
                opts=pulumi.ResourceOptions(parent=self, depends_on=[acceptance, *self.priority_classes.values()]),
            )

    def _pod_autoscaling(self, name: str, args: PlatformArgs, monitoring_deps: Sequence[pulumi.Resource]) -> None:
        """KEDA on the system nodes: its metrics server gives the HorizontalPodAutoscaler external metrics, so any
        workload, GPU pods included, scales on a Prometheus query; with monitoring, the Prometheus Adapter serves the
        custom metrics API (GPU pods' DCGM gauges, model servers' vLLM gauges as pod metrics: custom_metrics.py), which
        KEDA does not (CNCF AI Conformance pod_autoscaling). The Prometheus is the monitoring stack's
        (serving.PROMETHEUS). https://keda.sh/docs/2.20/concepts/"""
        if not args.pod_autoscaling:
            return
        if args.monitoring is not None:
            self.releases[CUSTOM_METRICS_RELEASE] = chart_release(
                self,
                f"{name}-{CUSTOM_METRICS_RELEASE}",
                CUSTOM_METRICS_RELEASE,
                MONITORING_NAMESPACE,
                adapter_values(args.system_node_selector),
                depends_on=monitoring_deps,  # the namespace and the Prometheus it reads
            )
        self.releases["keda"] = chart_release(
            self,
            f"{name}-keda",
            "keda",
            KEDA_NAMESPACE,
            {"nodeSelector": dict(args.system_node_selector)},
            create_namespace=True,
        )

    def _gateway_api(self, name: str, args: PlatformArgs, labels: Mapping[str, str]) -> None:
        """Inference routing as a platform capability on every cluster (Kubernetes AI Conformance ai_inference):
        Envoy Gateway + Envoy AI Gateway, the InferencePool CRD and the GatewayClass (inference_gateway.py)."""
        installed = install_gateway_api(self, name, args.system_node_selector, labels)
        self.releases["gateway-helm"] = installed["gateway-helm"]
        self.releases["ai-gateway-helm"] = installed["ai-gateway-helm"]
        self.gateway_class = installed["gatewayclass"]
        self.inference_crds = [installed["inferencepool-crd"], installed["inferenceobjective-crd"]]

    def _serve(
        self, name: str, args: PlatformArgs, labels: Mapping[str, str], monitoring_deps: Sequence[pulumi.Resource]
    ) -> None:
        """The serving namespace (isolated like the others) and one ModelServing a model; the ScaledObject and
        PodMonitor CRDs come with KEDA (_pod_autoscaling) and the monitoring stack."""
        serving = args.serving
        if "keda" not in self.releases:
            raise ValueError("serving models scale through KEDA: set pod_autoscaling (PlatformArgs)")
        namespace = k8s.core.v1.Namespace(
            f"{name}-ns-{serving.namespace}",
            metadata={
                "name": serving.namespace,
                "labels": {**labels, "pod-security.kubernetes.io/enforce": "baseline"},
            },
            opts=pulumi.ResourceOptions(parent=self),
        )
        isolate_namespace(
            f"{name}-{serving.namespace}",
            serving.namespace,
            labels,
            pulumi.ResourceOptions(parent=self, depends_on=[namespace]),
        )
        if any(m.nodes > 1 for m in serving.models):
            # A replica spanning nodes is a LeaderWorkerSet: its controller and CRD, on the system nodes.
            self.releases["lws"] = chart_release(
                self,
                f"{name}-lws",
                "lws",
                LWS_NAMESPACE,
                {"nodeSelector": dict(args.system_node_selector)},
                create_namespace=True,
            )
        engines = [self.releases[k] for k in ("keda", "lws") if k in self.releases]
        gateway = ServingGateway(
            f"{name}-gateway-{serving.namespace}",
            ServingGatewayArgs(serving.namespace, serving.exposure, args.system_node_selector, labels),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace, self.gateway_class]),
        )
        for model in serving.resolved(args.serving_access):
            server = ModelServing(
                f"{name}-serve-{model.model}",
                replace(model, labels={**labels, **model.labels}),
                opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace, *engines, *monitoring_deps]),
            )
            InferenceRoute(
                f"{name}-route-{model.model}",
                InferenceRouteArgs(
                    model.model,
                    serving.namespace,
                    server.pod_labels,
                    PORT,
                    args.system_node_selector,
                    labels,
                    image=serving.endpoint_picker_image,
                ),
                # After the CRDs its endpoint picker watches: without them the EPP cannot start (inference_gateway.py).
                opts=pulumi.ResourceOptions(parent=self, depends_on=[gateway, *self.inference_crds]),
            )


def units_per_gpu(args: "PlatformArgs") -> dict[str, int]:
    """Resource -> the most of it one GPU yields in any group (shared replicas, MIG instances): a namespace quota of
    a team's whole GPUs in each unit. An upper bound where groups differ; Kueue's quotas are exact per group."""
    out = {GPU_RESOURCE: max([g.slices_per_gpu for g in args.node_groups if not g.mig_resources] or [1])}
    for g in args.node_groups:
        for r, n in g.mig_resources.items():
            out[r] = max(out.get(r, 0), n // (g.gpus or 1))
    return out


def gpu_resource_names(args: "PlatformArgs") -> list[str]:
    """nvidia.com/gpu and, under the mixed MIG strategy, each nvidia.com/mig-<profile> a group's nodes advertise."""
    return [GPU_RESOURCE, *sorted({r for g in args.node_groups for r in g.mig_resources})]


def mig_strategy(groups: Sequence[GpuNodes]) -> str:
    """The GPU Operator's one MIG strategy for the cluster: mixed where a group's nodes advertise MIG instances by
    their profiles' names (`mig_resources`), else single (the chart's default)."""
    return "mixed" if any(g.mig_resources for g in groups) else "single"


def isolate_namespace(name: str, namespace: str, labels: Mapping[str, str], opts: pulumi.ResourceOptions) -> None:
    """Default-deny ingress, then allow pods of the same namespace (multi-node jobs talk to each other).

    Anything else a team serves (an inference endpoint behind an ingress controller) needs its own allow
    policy: Kubernetes docs, Network Policies, "Default deny all ingress traffic".
    """
    meta = {"namespace": namespace, "labels": dict(labels)}
    k8s.networking.v1.NetworkPolicy(
        f"{name}-default-deny",
        metadata={"name": "default-deny-ingress", **meta},
        spec={"podSelector": {}, "policyTypes": ["Ingress"]},
        opts=opts,
    )
    k8s.networking.v1.NetworkPolicy(
        f"{name}-same-namespace",
        metadata={"name": "allow-same-namespace", **meta},
        spec={"podSelector": {}, "policyTypes": ["Ingress"], "ingress": [{"from": [{"podSelector": {}}]}]},
        opts=opts,
    )
