"""Pod templates inside every workload kind a program may declare, and who the workload is.

Rules about pods judge the template, not the controller, so one place knows where each kind keeps its
pod spec: core controllers (apps/v1, batch/v1), CronJob's job template, JobSet's replicated jobs
(jobset.x-k8s.io) and the Kubeflow training operator's replica specs (MPIJob, PyTorchJob).
"""

from __future__ import annotations

from fnmatch import fnmatch
from typing import Any, Iterator, Mapping, Sequence

from ..props import items

TEMPLATE_KINDS = ("Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "Job", "ReplicationController")
REPLICA_SPECS = ("mpiReplicaSpecs", "pytorchReplicaSpecs", "tfReplicaSpecs", "xgbReplicaSpecs")
WORKLOAD_TYPES = (
    "kubernetes:core/v1:Pod",
    "kubernetes:core/v1:ReplicationController",
    "kubernetes:apps/v1:Deployment",
    "kubernetes:apps/v1:DaemonSet",
    "kubernetes:apps/v1:StatefulSet",
    "kubernetes:apps/v1:ReplicaSet",
    "kubernetes:batch/v1:Job",
    "kubernetes:batch/v1:CronJob",
    "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet",
    "kubernetes:kubeflow.org/v2beta1:MPIJob",
    "kubernetes:kubeflow.org/v1:MPIJob",
    "kubernetes:kubeflow.org/v1:PyTorchJob",
    "kubernetes:kubeflow.org/v1:TFJob",
)


def kind_of(resource_type: str) -> str:
    return resource_type.rsplit(":", 1)[-1]


def pod_templates(
    resource_type: str, props: Mapping[str, Any]
) -> Iterator[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    """(where, pod metadata, pod spec) for every pod template in the workload (annotations live in metadata)."""
    kind, spec = kind_of(resource_type), props.get("spec") or {}
    if kind == "Pod":
        yield "pod", props.get("metadata") or {}, spec
    elif kind in TEMPLATE_KINDS:
        template = spec.get("template") or {}
        yield "template", template.get("metadata") or {}, template.get("spec") or {}
    elif kind == "CronJob":
        job = (spec.get("jobTemplate") or {}).get("spec") or {}
        template = job.get("template") or {}
        yield "jobTemplate", template.get("metadata") or {}, template.get("spec") or {}
    elif kind == "JobSet":
        for job in items(spec.get("replicatedJobs")):
            template = ((job.get("template") or {}).get("spec") or {}).get("template") or {}
            yield f"replicatedJobs[{job.get('name')}]", template.get("metadata") or {}, template.get("spec") or {}
    else:
        for field in REPLICA_SPECS:
            for role, replica in sorted((spec.get(field) or {}).items()):
                template = (replica or {}).get("template") or {}
                yield f"{field}[{role}]", template.get("metadata") or {}, template.get("spec") or {}


def pod_specs(resource_type: str, props: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(where, pod spec) for every pod template in the workload."""
    for where, _, pod in pod_templates(resource_type, props):
        yield where, pod


def containers(pod: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for field in ("initContainers", "containers", "ephemeralContainers"):
        yield from (c for c in items(pod.get(field)) if isinstance(c, Mapping))


def identity(props: Mapping[str, Any], fallback: str) -> str:
    """``namespace/name`` of the workload (namespace 'default' when the program leaves it out)."""
    metadata = props.get("metadata") or {}
    return f"{metadata.get('namespace') or 'default'}/{metadata.get('name') or fallback}"


def allowed(workload: str, patterns: Sequence[str]) -> bool:
    """Whether ``namespace/name`` matches an allow-list entry (shell patterns: 'kube-system/*')."""
    return any(fnmatch(workload, p) for p in patterns)


# Node agents that need host access by design, each by name with its reason; rules take these as config
# defaults. A namespace is no exemption: a privileged pod the program itself puts in kube-system is judged.
NODE_AGENTS = {
    # Amazon VPC CNI and kube-proxy, the EKS add-ons' DaemonSets (EKS user guide, "Amazon VPC CNI plugin for
    # Kubernetes" and "kube-proxy" add-ons): they program the node's network.
    "kube-system/aws-node": "Amazon VPC CNI node agent (programs the node's network)",
    "kube-system/kube-proxy": "kube-proxy (programs the node's service routing)",
    # The EFA device plugin our platform installs (components/kubernetes/charts.yaml, aws/eks-charts
    # stable/aws-efa-k8s-device-plugin): registers the node's EFA devices with the kubelet.
    "kube-system/*aws-efa-k8s-device-plugin*": "EFA device plugin (registers EFA devices with the kubelet)",
    # NVIDIA GPU Operator: driver, container toolkit, device plugin, DCGM exporter and MIG manager run
    # privileged with host paths (NVIDIA GPU Operator docs, "Platform support / security considerations").
    "gpu-operator/*": "NVIDIA GPU Operator node agents (driver, toolkit, device plugin, DCGM)",
}

AGENT_CONFIG = {
    "type": "array",
    "items": {"type": "string"},
    "default": sorted(NODE_AGENTS),
    "description": "namespace/name patterns of node agents allowed host access: "
    + "; ".join(f"{k}: {v}" for k, v in sorted(NODE_AGENTS.items())),
}
