"""Multi-node fabric validation: per RDMA node group, a JobSet (upstream chart, pinned) runs
acceptance/fabric_check.py under torchrun on two accepted nodes, requesting every GPU and fabric device.
It fails unless NCCL's own log shows the expected transport and the bus bandwidth reaches the shape's
threshold; the report lands in ConfigMap fabric-<group> of the gpu-acceptance namespace.

It starts suspended (it scales two GPU nodes up): `kubectl -n gpu-acceptance patch jobset fabric-<group>
--type merge -p '{"spec":{"suspend":false}}'` runs it. JobSet API: https://jobset.sigs.k8s.io/docs/reference/
(schema kept in tests/data/crds/jobset-0.12.0).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from ..base import KUBERNETES, Args, Component, as_args
from .acceptance import HOME, NON_ROOT, SCRATCH_MOUNT, SCRATCH_VOLUME
from .charts import chart_release
from .nodes import EFA_RESOURCE, GPU_RESOURCE

SCRIPT = Path(__file__).resolve().parents[2] / "acceptance" / "fabric_check.py"
API = "jobset.x-k8s.io/v1alpha2"
CONTROLLER_NAMESPACE = "jobset-system"
ACCOUNT = "gpu-fabric"
PORT = 29500


@dataclass(frozen=True)
class FabricTarget(Args):
    """One RDMA node group the fabric validation runs on."""

    group: str
    """The node group."""
    node_selector: Mapping[str, str]
    """Selects the group's nodes."""
    tolerations: Sequence[Mapping[str, str]]
    """The group's taints, not the acceptance gate: accepted nodes only."""
    gpus: int
    """GPUs per node (one rank each)."""
    devices: Mapping[str, int]
    """Fabric devices per node: {"vpc.amazonaws.com/efa": 32} or {"aliyun/erdma": 1}."""
    transport: str
    """Efa | ib, what NCCL's log must name."""
    min_busbw_gbps: Optional[float]
    """None: measured and reported, not judged."""
    env: Optional[Mapping[str, str]] = field(default_factory=dict)
    """NCCL settings for the fabric."""


@dataclass(frozen=True)
class FabricArgs(Args):
    """The multi-node NCCL validation of RDMA groups."""

    targets: Sequence[FabricTarget]
    """The RDMA groups to validate."""
    image: str
    """A CUDA image with PyTorch and the fabric libraries (NCCL, aws-ofi-nccl for EFA)."""
    namespace: str
    """The acceptance namespace (exists already)."""
    system_node_selector: Mapping[str, str]
    """Where the JobSet controller runs."""
    run_on_create: Optional[bool] = False
    """Start the validation at once; off by default (the JobSets wait suspended until resumed)."""
    nodes: Optional[int] = 2
    """Nodes per validation; two by default, the smallest run that crosses the fabric."""
    priority_class: Optional[str] = "gpu-standard"
    """The validation pods' priority class."""
    accepted_label: Optional[str] = "gpu-blueprints/acceptance"
    """Only nodes that passed the acceptance check (this label) take part."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """On every object."""


def _torchrun_command(target: FabricTarget, args: FabricArgs, name: str) -> str:
    """torchrun over the group's nodes (rank from the indexed Job), recording NCCL's view of the transport."""
    return (
        "mkdir -p /tmp/nccl && exec torchrun "
        f"--nnodes={args.nodes} --nproc-per-node={target.gpus} --node-rank=$(JOB_COMPLETION_INDEX) "
        f"--master-addr={name}-node-0-0.{name} --master-port={PORT} /opt/fabric/fabric_check.py "
        f"--group {target.group} --expect-transport {target.transport} --record --report /tmp/report.json"
        + (f" --min-busbw-gbps {target.min_busbw_gbps:g}" if target.min_busbw_gbps else "")
    )


def _nccl_container(target: FabricTarget, args: FabricArgs, command: str) -> dict:
    """The NCCL check's container: the node's GPUs and fabric devices, huge pages for EFA, non-root."""
    limits = {GPU_RESOURCE: target.gpus, **target.devices}
    if EFA_RESOURCE in target.devices:
        limits["hugepages-2Mi"] = "5120Mi"  # libfabric's EFA provider registers its buffers in huge pages
    return {
        "name": "nccl",
        "image": args.image,
        "command": ["/bin/sh", "-c", command],
        "env": [
            HOME,
            {"name": "NCCL_DEBUG", "value": "INFO"},
            {"name": "NCCL_DEBUG_FILE", "value": "/tmp/nccl/%h.%p.log"},
            *({"name": k, "value": v} for k, v in sorted(target.env.items())),
        ],
        "resources": {
            "limits": {**{k: str(v) for k, v in limits.items()}, "memory": "64Gi"},
            "requests": {**{k: str(v) for k, v in limits.items()}, "cpu": "8", "memory": "64Gi"},
        },
        "securityContext": dict(NON_ROOT),  # root gains nothing: every capability is dropped
        "volumeMounts": [
            {"name": "script", "mountPath": "/opt/fabric", "readOnly": True},
            {"name": "shm", "mountPath": "/dev/shm"},
            SCRATCH_MOUNT,
        ],
    }


def _fabric_pod(target: FabricTarget, args: FabricArgs, command: str) -> dict:
    """One node's pod: on accepted nodes of the group only, with the script and shared memory mounted."""
    return {
        "restartPolicy": "Never",
        "serviceAccountName": ACCOUNT,
        "priorityClassName": args.priority_class,
        "nodeSelector": dict(target.node_selector),
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": args.accepted_label, "operator": "In", "values": ["passed"]}]}
                    ]
                }
            }
        },
        "tolerations": [dict(t) for t in target.tolerations],
        "containers": [_nccl_container(target, args, command)],
        "volumes": [
            {"name": "script", "configMap": {"name": ACCOUNT}},
            {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
            SCRATCH_VOLUME,
        ],
    }


def fabric_jobset(target: FabricTarget, args: FabricArgs, labels: Mapping[str, str]) -> dict:
    name = f"fabric-{target.group}"
    pod = _fabric_pod(target, args, _torchrun_command(target, args, name))
    return {
        "apiVersion": API,
        "kind": "JobSet",
        "metadata": {
            "name": name,
            "namespace": args.namespace,
            "labels": {**labels, "gpu-blueprints/fabric-group": target.group},
        },
        "spec": {
            "suspend": not args.run_on_create,
            "network": {"enableDNSHostnames": True, "subdomain": name},
            "failurePolicy": {"maxRestarts": 0},
            "replicatedJobs": [
                {
                    "name": "node",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "parallelism": args.nodes,
                            "completions": args.nodes,
                            "completionMode": "Indexed",
                            "backoffLimit": 0,
                            "template": {
                                "metadata": {"labels": {"gpu-blueprints/fabric-group": target.group}},
                                "spec": pod,
                            },
                        }
                    },
                }
            ],
        },
    }


class FabricValidation(Component):
    """The JobSet controller and one suspended two-node NCCL JobSet per RDMA group, judged against the published
    bus bandwidth of its shape."""

    PACKAGE = KUBERNETES
    LEGACY_TYPE = "gpu-blueprints:kubernetes:FabricValidation"
    groups: pulumi.Output[Sequence[str]]
    """The node groups validated."""

    def __init__(self, name: str, args: FabricArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(FabricArgs, args)
        labels = dict(args.labels)
        child = pulumi.ResourceOptions(parent=self)
        self.release = chart_release(
            self,
            f"{name}-jobset",
            "jobset",
            CONTROLLER_NAMESPACE,
            {"controller": {"nodeSelector": dict(args.system_node_selector)}},
            create_namespace=True,
        )
        meta = {"namespace": args.namespace, "labels": dict(labels)}
        account = k8s.core.v1.ServiceAccount(f"{name}-account", metadata={"name": ACCOUNT, **meta}, opts=child)
        role = k8s.rbac.v1.Role(
            f"{name}-reports",
            metadata={"name": ACCOUNT, **meta},
            rules=[{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "create", "update"]}],
            opts=child,
        )
        k8s.rbac.v1.RoleBinding(
            f"{name}-reports",
            metadata={"name": ACCOUNT, **meta},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ACCOUNT},
            subjects=[{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": args.namespace}],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[role, account]),
        )
        script = k8s.core.v1.ConfigMap(
            f"{name}-script",
            metadata={"name": ACCOUNT, **meta},
            data={"fabric_check.py": SCRIPT.read_text(encoding="utf-8")},
            opts=child,
        )
        self.jobsets = {}
        for target in args.targets:
            body = fabric_jobset(target, args, labels)
            self.jobsets[target.group] = k8s.apiextensions.CustomResource(
                f"{name}-{target.group}",
                api_version=API,
                kind="JobSet",
                metadata=body["metadata"],
                spec=body["spec"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=[self.release, script, account]),
            )
        self.groups = pulumi.Output.from_input(sorted(self.jobsets))
        self.register_outputs({"groups": self.groups})
