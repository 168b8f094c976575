"""Fair GPU queueing with Kueue (upstream chart, pinned): a ClusterQueue per team in one cohort, so idle GPUs
are borrowed and reclaimed; preemption that follows the PriorityClasses; all-or-nothing admission of multi-pod
jobs (waitForPodsReady with blockAdmission); a LocalQueue named `default` in each team namespace, which Kueue
gives every job there that names no queue (LocalQueueDefaulting, GA since Kueue 0.17).

Topology-aware gangs on a group that scales from zero: Kueue's topology-aware scheduling counts Ready nodes only, so
such a flavor gets the Provisioning admission check. Once a job holds quota Kueue creates a ProvisioningRequest for
its pods (class best-effort-atomic-scale-up: the Cluster Autoscaler scales the group for all of them in one request),
and places the gang by the Topology only when the request is Provisioned, retrying that placement with backoff until
the new nodes are Ready (kueue v0.19.2 site/content/en/docs/concepts/topology_aware_scheduling.md "ClusterAutoscaler
support", admission_check/provisioning_request.md, site/static/examples/provisioning/provisioning-setup.yaml;
pkg/scheduler/flavorassigner/tas_flavorassigner.go, pkg/cache/queue/manager.go QueueSecondPassIfNeeded). Kueue sets
that check's controller up only if the ProvisioningRequest API is served when it starts (cmd/kueue/main.go), so the
chart waits for its CRD, which the Cluster Autoscaler component applies (autoscaler.py; crds/SOURCE.md).

Kueue 0.19 API (kueue.x-k8s.io/v1beta2) and manager configuration (config.kueue.x-k8s.io/v1beta2):
https://kueue.sigs.k8s.io/docs/reference/ ; schemas kept in tests/data/crds/kueue-0.19.2.
"""

import math
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import yaml

from ..base import KUBERNETES, Args, Component, as_args
from .charts import chart_release
from .nodes import DRA_EFA_CLASS, DRA_EFA_QUOTA, DRA_GPU_CLASS, DRA_GPU_QUOTA, GPU_RESOURCE

API = "kueue.x-k8s.io/v1beta2"
NAMESPACE = "kueue-system"
COHORT = "gpu"
DEFAULT_QUEUE = "default"
SYSTEM_FLAVOR = "system-cpu"
TEAM_LABEL = "gpu-blueprints/team"
# The Provisioning admission check (kueue v0.19.2 pkg/controller/admissionchecks/provisioning/constants.go
# ControllerName) and the class under which the Cluster Autoscaler scales a node group up for all of a request's pods
# (kubernetes/autoscaler cluster-autoscaler-1.35.2 apis/provisioningrequest/autoscaling.x-k8s.io/v1/types.go
# ProvisioningClassBestEffortAtomicScaleUp; on AWS the scale-up is one request, not atomic: AwsNodeGroup
# AtomicIncreaseSize returns ErrNotImplemented, cloudprovider/aws/aws_cloud_provider.go).
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
PROVISIONING_CLASS = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
GANG_CHECK = "gpu-gangs"


@dataclass(frozen=True)
class GpuFlavor(Args):
    """One GPU node group as Kueue sees it: what a node offers and which pods may land there."""

    group: str
    """The node group the flavor stands for."""
    node_labels: Mapping[str, str]
    """Selects the group's nodes."""
    tolerations: Sequence[Mapping[str, str]]
    """Added to every pod admitted on this flavor."""
    gpus_per_node: int
    """Schedulable nvidia.com/gpu per node (MIG slices under the single strategy)."""
    vcpus: int
    """vCPUs per node."""
    memory_gib: int
    """Host memory per node, GiB."""
    extended: Optional[Mapping[str, int]] = field(default_factory=dict)
    """Fabric devices per node (vpc.amazonaws.com/efa...)."""
    mig_resources: Optional[Mapping[str, int]] = field(default_factory=dict)
    """Under the mixed MIG strategy, nvidia.com/mig-<profile> -> instances per node; the nodes then offer no
    nvidia.com/gpu and `gpus_per_node` counts their physical GPUs. Empty by default."""
    topology_name: Optional[str] = None
    """The Topology the flavor names, so Kueue places a gang's pods by the nodes' network labels; None (default):
    quota only."""
    topology_levels: Optional[Sequence[str]] = ()
    """That Topology's node label keys, broadest first, ending with kubernetes.io/hostname (the only level at which
    Kueue respects the nodes' taints); empty by default."""
    provisioned: Optional[bool] = False
    """Jobs on this flavor pass the Provisioning admission check: the Cluster Autoscaler adds their nodes before the
    Topology places them (a group that scales from zero); False (default)."""
    dra: Optional[bool] = False
    """The group's GPUs are claimed through DRA: its quota is in DRA_GPU_QUOTA, not nvidia.com/gpu; off by default."""


@dataclass(frozen=True)
class TeamQueue(Args):
    """A team's ClusterQueue."""

    name: str
    """The team's namespace."""
    gpus: int
    """Whole GPUs the team is guaranteed (nominal quota)."""
    mig_slices: Optional[Mapping[str, int]] = field(default_factory=dict)
    """Group -> slices per GPU, where a group has MIG."""


@dataclass(frozen=True)
class QueueingArgs(Args):
    """Kueue queues for the teams."""

    flavors: Sequence[GpuFlavor]
    """One ResourceFlavor per GPU node group."""
    teams: Sequence[TeamQueue]
    """The teams' queues."""
    system_node_selector: Mapping[str, str]
    """The controller and the small CPU flavor run on the system group."""
    standard_priority: int
    """Borrowed capacity may be preempted by work above this priority."""
    pods_ready_timeout_minutes: Optional[int] = 10
    """All-or-nothing admission: a job whose pods are not all ready by then is requeued."""
    system_cpu_per_team: Optional[str] = "4"
    """CPU quota per team on the system group (launchers, dataloaders)."""
    system_memory_per_team: Optional[str] = "16Gi"
    """Memory quota per team on the system group."""
    _depends_on: Optional[Sequence[pulumi.Resource]] = ()  # Python only: the team namespaces, created by the caller
    # Python only: what Kueue's release waits for (the ProvisioningRequest CRD, which the autoscaler component applies)
    _chart_depends_on: Optional[Sequence[pulumi.Resource]] = ()


def dra_resources(dra: bool, efa: bool = False) -> dict:
    """Kueue counts each device a pod's ResourceClaimTemplate asks of DeviceClass gpu.nvidia.com as DRA_GPU_QUOTA,
    and of efa.networking.k8s.aws as DRA_EFA_QUOTA (resources.deviceClassMappings; kubernetes-sigs/kueue v0.19.2
    pkg/features/kube_features.go: KueueDRAIntegration is beta and on by default since 0.18, so the mapping is all it
    takes; site/content/en/docs/tasks/manage/setup_dra.md). Empty without DRA groups."""
    mappings = [(DRA_GPU_QUOTA, DRA_GPU_CLASS)] * dra + [(DRA_EFA_QUOTA, DRA_EFA_CLASS)] * efa
    return {"deviceClassMappings": [{"name": n, "deviceClassNames": [c]} for n, c in mappings]} if mappings else {}


def manager_config(pods_ready_timeout_minutes: int, dra: bool = False, efa: bool = False) -> str:
    """The whole manager configuration (the chart's value replaces its default text)."""
    return yaml.safe_dump(
        {
            "apiVersion": "config.kueue.x-k8s.io/v1beta2",
            "kind": "Configuration",
            "health": {"healthProbeBindAddress": ":8081"},
            "metrics": {"bindAddress": ":8443"},
            "webhook": {"port": 9443},
            "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
            "clientConnection": {"qps": 300, "burst": 500},
            # All or nothing: a job's pods all start, or its quota goes back and it is requeued.
            "waitForPodsReady": {
                "timeout": f"{pods_ready_timeout_minutes}m",
                "recoveryTimeout": "3m",
                "blockAdmission": True,
                "requeuingStrategy": {
                    "timestamp": "Eviction",
                    "backoffLimitCount": 5,
                    "backoffBaseSeconds": 60,
                    "backoffMaxSeconds": 3600,
                },
            },
            # Every job in a team namespace goes through the team's queue, labelled or not; nothing else is touched,
            # so system pods never wait on the webhook.
            "manageJobsWithoutQueueName": True,
            "managedJobsNamespaceSelector": {"matchExpressions": [{"key": TEAM_LABEL, "operator": "Exists"}]},
            "integrations": {
                "frameworks": [
                    "batch/job",
                    "jobset.x-k8s.io/jobset",
                    "kubeflow.org/mpijob",
                    "trainer.kubeflow.org/trainjob",
                    # KubeRay's (platform._ai_operator): kubernetes-sigs/kueue v0.19.2
                    # pkg/controller/jobs/{rayjob,raycluster}/*_controller.go FrameworkName
                    "ray.io/rayjob",
                    "ray.io/raycluster",
                    "pod",
                ]
            },
            # Huge pages (EFA pods ask for them) are not GPU capacity.
            "resources": {"excludeResourcePrefixes": ["hugepages-"], **dra_resources(dra, efa)},
        },
        sort_keys=False,
    )


def topologies_of(flavors: Sequence[GpuFlavor]) -> dict[str, tuple[str, ...]]:
    """Topology name -> levels, once each; two flavors naming one Topology must list the same levels."""
    out: dict[str, tuple[str, ...]] = {}
    for f in flavors:
        if not f.topology_name:
            continue
        levels = tuple(f.topology_levels)
        if out.setdefault(f.topology_name, levels) != levels:
            raise ValueError(
                f"Topology {f.topology_name!r} is given two sets of levels: {out[f.topology_name]}, {levels}"
            )
    return out


def _extra(flavors: Sequence[GpuFlavor]) -> list[str]:
    """Resources beside cpu, memory and nvidia.com/gpu: fabric devices, MIG instances under the mixed strategy."""
    return sorted({k for f in flavors for k in (*f.extended, *f.mig_resources)})


def covered_resources(flavors: Sequence[GpuFlavor]) -> list[str]:
    dra = [DRA_GPU_QUOTA] if any(f.dra for f in flavors) else []
    return ["cpu", "memory", GPU_RESOURCE, *dra, *_extra(flavors)]


def provisioned_flavors(flavors: Sequence[GpuFlavor]) -> list[str]:
    """The flavors whose jobs go through the Provisioning admission check."""
    return [f"gpu-{f.group}" for f in flavors if f.provisioned]


def managed_resources(flavors: Sequence[GpuFlavor]) -> list[str]:
    """The resources whose pods the Provisioning check asks nodes for: Kueue includes only pod sets whose containers
    request one of them and otherwise marks the check Ready with no ProvisioningRequest (kueue v0.19.2
    pkg/controller/admissionchecks/provisioning/controller.go reqIsNeeded, podUses), so nvidia.com/gpu and, under
    the MIG mixed strategy, the slices of the provisioned flavors."""
    return [GPU_RESOURCE, *sorted({r for f in flavors if f.provisioned for r in f.mig_resources})]


def team_flavors(team: TeamQueue, flavors: Sequence[GpuFlavor], system_cpu: str, system_memory: str) -> list[dict]:
    """Quota per flavor: the small CPU flavor first (CPU-only jobs stay off GPU nodes), then each GPU group with
    the team's GPUs and the CPU, memory and fabric devices of the nodes those GPUs come with."""
    extra = _extra(flavors)
    dra = any(f.dra for f in flavors)
    rows = [
        {
            "name": SYSTEM_FLAVOR,
            "resources": [
                {"name": "cpu", "nominalQuota": system_cpu},
                {"name": "memory", "nominalQuota": system_memory},
                {"name": GPU_RESOURCE, "nominalQuota": 0},
                *([{"name": DRA_GPU_QUOTA, "nominalQuota": 0}] if dra else []),
                *({"name": r, "nominalQuota": 0} for r in extra),
            ],
        }
    ]
    for f in flavors:
        slices = 1 if f.mig_resources else team.mig_slices.get(f.group, 1)
        nodes = math.ceil(team.gpus * slices / f.gpus_per_node) if f.gpus_per_node else 0
        # The team's GPUs in the units the nodes advertise: MIG instances of those GPUs under the mixed strategy.
        per_gpu = {r: n // f.gpus_per_node for r, n in f.mig_resources.items()} if f.gpus_per_node else {}
        quota = {**{r: nodes * n for r, n in f.extended.items()}, **{r: team.gpus * n for r, n in per_gpu.items()}}
        # A DRA group's GPUs are claimed devices, never nvidia.com/gpu, and the other groups' never claimed devices.
        gpus = {
            GPU_RESOURCE: 0 if f.dra or f.mig_resources else team.gpus * slices,
            **({DRA_GPU_QUOTA: team.gpus if f.dra else 0} if dra else {}),
        }
        rows.append(
            {
                "name": f"gpu-{f.group}",
                "resources": [
                    {"name": "cpu", "nominalQuota": nodes * f.vcpus},
                    {"name": "memory", "nominalQuota": f"{nodes * f.memory_gib}Gi"},
                    *({"name": r, "nominalQuota": n} for r, n in gpus.items()),
                    *({"name": r, "nominalQuota": quota.get(r, 0)} for r in extra),
                ],
            }
        )
    return rows


class FairQueueing(Component):
    """Kueue with one ClusterQueue per team in a cohort, GPU flavors per node group, all-or-nothing admission."""

    PACKAGE = KUBERNETES
    LEGACY_TYPE = "gpu-blueprints:kubernetes:FairQueueing"
    cohort: pulumi.Output[str]
    """The cohort the teams' queues borrow within."""

    def __init__(self, name: str, args: QueueingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(QueueingArgs, args)
        provisioned = provisioned_flavors(args.flavors)
        self.release = chart_release(
            self,
            f"{name}-kueue",
            "kueue",
            NAMESPACE,
            {
                "managerConfig": {
                    "controllerManagerConfigYaml": manager_config(
                        args.pods_ready_timeout_minutes,
                        any(f.dra for f in args.flavors),
                        any(DRA_EFA_QUOTA in f.extended for f in args.flavors),
                    )
                },
                "controllerManager": {"nodeSelector": dict(args.system_node_selector)},
            },
            create_namespace=True,
            depends_on=list(args._chart_depends_on),
        )
        # Kueue's webhooks reject its objects until the controller runs.
        self._after = pulumi.ResourceOptions(parent=self, depends_on=[self.release, *args._depends_on])
        self._flavors(name, args)
        if provisioned:
            self._gang_check(name, managed_resources(args.flavors))
        covered = covered_resources(args.flavors)
        for team in args.teams:
            self._team_queues(name, args, team, covered, provisioned)
        self.cohort = pulumi.Output.from_input(COHORT)
        self.register_outputs({"cohort": self.cohort})

    def _custom(self, kind: str, resource_name: str, metadata: dict, spec: dict) -> k8s.apiextensions.CustomResource:
        return k8s.apiextensions.CustomResource(
            resource_name, api_version=API, kind=kind, metadata=metadata, spec=spec, opts=self._after
        )

    def _flavors(self, name: str, args: QueueingArgs) -> None:
        """The system nodes' CPU flavor, then one Topology a network hierarchy the GPU groups use, then one flavor a
        GPU group (its labels, taints and Topology)."""
        topologies = topologies_of(args.flavors)
        for topology, levels in topologies.items():
            self._custom(
                "Topology",
                f"{name}-topology-{topology}",
                {"name": topology},
                {"levels": [{"nodeLabel": level} for level in levels]},
            )
        self._custom(
            "ResourceFlavor",
            f"{name}-{SYSTEM_FLAVOR}",
            {"name": SYSTEM_FLAVOR},
            {"nodeLabels": dict(args.system_node_selector)},
        )
        for f in args.flavors:
            self._custom(
                "ResourceFlavor",
                f"{name}-gpu-{f.group}",
                {"name": f"gpu-{f.group}"},
                {
                    "nodeLabels": dict(f.node_labels),
                    "tolerations": [dict(t) for t in f.tolerations],
                    **({"topologyName": f.topology_name} if f.topology_name else {}),
                },
            )

    def _gang_check(self, name: str, managed: list[str]) -> None:
        """The Provisioning admission check and its configuration: one ProvisioningRequest a job, for its GPU pods."""
        self._custom(
            "ProvisioningRequestConfig",
            f"{name}-{GANG_CHECK}-config",
            {"name": GANG_CHECK},
            {"provisioningClassName": PROVISIONING_CLASS, "managedResources": managed},
        )
        self._custom(
            "AdmissionCheck",
            f"{name}-{GANG_CHECK}",
            {"name": GANG_CHECK},
            {
                "controllerName": PROVISIONING_CONTROLLER,
                "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": GANG_CHECK},
            },
        )

    def _team_queues(
        self, name: str, args: QueueingArgs, team: "TeamQueue", covered: list[str], provisioned: Sequence[str]
    ) -> None:
        """A team's ClusterQueue in the cohort (its quota per flavor, borrowing and preemption) and its LocalQueue."""
        self._custom(
            "ClusterQueue",
            f"{name}-{team.name}",
            {"name": team.name},
            {
                "cohortName": COHORT,
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": team.name}},
                "queueingStrategy": "BestEffortFIFO",
                "resourceGroups": [
                    {
                        "coveredResources": covered,
                        "flavors": team_flavors(
                            team, args.flavors, args.system_cpu_per_team, args.system_memory_per_team
                        ),
                    }
                ],
                # Lent GPUs come back when their owner needs them; inside a team, higher priority goes first;
                # work running on borrowed GPUs below gpu-standard's priority may be preempted.
                "preemption": {
                    "reclaimWithinCohort": "Any",
                    "withinClusterQueue": "LowerPriority",
                    "borrowWithinCohort": {
                        "policy": "LowerPriority",
                        "maxPriorityThreshold": args.standard_priority,
                    },
                },
                # jobs on a flavor that scales from zero wait for their nodes before topology places them
                **(
                    {"admissionChecksStrategy": {"admissionChecks": [{"name": GANG_CHECK, "onFlavors": provisioned}]}}
                    if provisioned
                    else {}
                ),
            },
        )
        self._custom(
            "LocalQueue",
            f"{name}-{team.name}-default",
            {"name": DEFAULT_QUEUE, "namespace": team.name},
            {"clusterQueue": team.name},
        )
