"""GpuAcceptance: run acceptance/gpu_check.py once on every new GPU node and label the node with the verdict.

One DaemonSet per node group (each group has its own expectation). A pod runs only on nodes without
the `gpu-blueprints/acceptance` label; once the check labels its node passed or failed, the DaemonSet
controller removes the pod. Jobs need no selector on the verdict (the autoscaler cannot see it on a node it has not
started yet): the gate's startup taint keeps them off a node until it passes, and a failed node is tainted NoExecute.

The pod sees the node's GPUs through the NVIDIA container runtime (NVIDIA_VISIBLE_DEVICES=all) instead of
requesting `nvidia.com/gpu`, as node monitoring agents do, so it never holds GPUs away from workloads.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from ..base import KUBERNETES, Args, Component, as_args
from .nodes import GATE_TAINT, NODE_GROUP_LABEL, STARTUP_TAINT_PREFIX  # noqa: F401 (GATE_TAINT: its gate)

SCRIPT = Path(__file__).resolve().parents[2] / "acceptance" / "gpu_check.py"
RECHECK_SCRIPT = SCRIPT.with_name("recheck.py")
NAMESPACE = "gpu-acceptance"
LABEL = "gpu-blueprints/acceptance"
APP = {"app.kubernetes.io/name": "gpu-acceptance"}
# PyTorch's CUDA runtime image (https://hub.docker.com/r/pytorch/pytorch/tags), by tag: the default of
# GpuAcceptanceArgs.image. The stack's composition passes it pinned by digest once `python -m blueprints pin-images`
# has read the digest from Docker Hub at release time (catalog/image_digests.yaml); none is written by hand, since a
# wrong digest would leave every GPU node behind its acceptance gate.
IMAGE = "pytorch/pytorch:2.9.0-cuda12.8-cudnn9-runtime"
# The checks need no root: every capability is dropped anyway, GPUs are reached through the device
# nodes the NVIDIA runtime injects, and the API through the service-account token. The root filesystem
# stays read-only; the checks write only under /tmp (an emptyDir), which is also HOME for Python caches.
NON_ROOT = {
    "runAsNonRoot": True,
    "runAsUser": 1000,
    "runAsGroup": 1000,
    "readOnlyRootFilesystem": True,
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}
SCRATCH_MOUNT = {"name": "scratch", "mountPath": "/tmp"}
SCRATCH_VOLUME = {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}
HOME = {"name": "HOME", "value": "/tmp"}


@dataclass(frozen=True)
class GpuAcceptanceArgs(Args):
    """The per-node GPU acceptance check."""

    expectations: Mapping[str, Mapping[str, Any]]
    """Node group -> what acceptance/gpu_check.py expects of its nodes (GPU count, model, memory, bandwidths)."""
    tolerations: Sequence[Mapping[str, str]]
    """Tolerations that reach every GPU node, the acceptance gate included."""
    priority_class: Optional[str] = "gpu-standard"
    """The check's pods' priority class."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Labels on every object; none by default."""
    recheck_idle_hours: Optional[int] = None
    """Re-gate GPU nodes idle this long for a fresh check; None (default) checks each node once."""
    system_node_selector: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Where the re-check CronJob runs (the system group); empty by default."""
    image: Optional[str] = IMAGE
    """The check's image: PyTorch's CUDA runtime (IMAGE, by tag) by default; a stack passes it pinned by digest."""


class GpuAcceptance(Component):
    """Runs acceptance/gpu_check.py once on every new GPU node and labels the node with the verdict."""

    PACKAGE = KUBERNETES
    LEGACY_TYPE = "gpu-blueprints:kubernetes:GpuAcceptance"
    node_groups: pulumi.Output[Sequence[str]]
    """The node groups checked."""

    def __init__(self, name: str, args: GpuAcceptanceArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(GpuAcceptanceArgs, args)
        labels, recheck_idle_hours = dict(args.labels), args.recheck_idle_hours
        meta = {"namespace": NAMESPACE, "labels": {**labels, **APP}}
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": NAMESPACE, "labels": {**labels, "pod-security.kubernetes.io/enforce": "baseline"}},
            opts=pulumi.ResourceOptions(parent=self),
        )
        scoped = pulumi.ResourceOptions(parent=self, depends_on=[namespace])
        account = self._node_labeller(name, labels, meta, scoped, bool(recheck_idle_hours))
        config = k8s.core.v1.ConfigMap(
            f"{name}-script",
            metadata={"name": "gpu-acceptance", **meta},
            data=_scripts(args.expectations, bool(recheck_idle_hours)),
            opts=scoped,
        )
        after_script = pulumi.ResourceOptions(parent=self, depends_on=[config, account])
        self.daemon_sets = {
            group: k8s.apps.v1.DaemonSet(
                f"{name}-{group}",
                metadata={"name": f"gpu-acceptance-{group}", **meta},
                spec=_check_spec(group, args.tolerations, args.priority_class, args.image),
                opts=after_script,
            )
            for group in sorted(args.expectations)
        }
        if recheck_idle_hours:
            k8s.batch.v1.CronJob(
                f"{name}-recheck",
                metadata={"name": "gpu-acceptance-recheck", **meta},
                spec=_recheck_spec(recheck_idle_hours, args.system_node_selector, args.image),
                opts=after_script,
            )
        self.node_groups = pulumi.Output.from_input(sorted(args.expectations))
        self.register_outputs({"node_groups": self.node_groups})

    def _node_labeller(
        self,
        name: str,
        labels: Mapping[str, str],
        meta: Mapping[str, Any],
        scoped: pulumi.ResourceOptions,
        recheck: bool,
    ) -> k8s.core.v1.ServiceAccount:
        """The check's identity: it may read and label its own node (and, to re-check, list GPU nodes and pods)."""
        account = k8s.core.v1.ServiceAccount(
            f"{name}-account", metadata={"name": "gpu-acceptance", **meta}, opts=scoped
        )
        rules = [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}]
        if recheck:  # the re-check lists GPU nodes and the pods that hold GPUs
            rules = [
                {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "patch"]},
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]},
            ]
        role = k8s.rbac.v1.ClusterRole(
            f"{name}-label-nodes",
            metadata={"name": "gpu-acceptance", "labels": labels},
            rules=rules,
            opts=pulumi.ResourceOptions(parent=self),
        )
        k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-label-nodes",
            metadata={"name": "gpu-acceptance", "labels": labels},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "gpu-acceptance"},
            subjects=[{"kind": "ServiceAccount", "name": "gpu-acceptance", "namespace": NAMESPACE}],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[role, account]),
        )
        return account


def _scripts(expectations: Mapping[str, Mapping[str, Any]], recheck: bool) -> dict[str, str]:
    """The ConfigMap's files: the check itself, the re-check, and one expectation file per node group."""
    data = {"gpu_check.py": SCRIPT.read_text(encoding="utf-8")}
    if recheck:
        data["recheck.py"] = RECHECK_SCRIPT.read_text(encoding="utf-8")
    data.update(
        {f"expect-{group}.json": json.dumps(e, indent=2, sort_keys=True) for group, e in sorted(expectations.items())}
    )
    return data


def _check_spec(
    group: str, tolerations: Sequence[Mapping[str, str]], priority_class: Optional[str], image: str
) -> dict:
    """A DaemonSet that runs the check on the group's nodes not labelled yet (the label ends the pod)."""
    selector = {**APP, NODE_GROUP_LABEL: group}
    command = (
        f"python /opt/gpu-acceptance/gpu_check.py --expect /opt/gpu-acceptance/expect-{group}.json "
        "--report /tmp/report.json --label-node; sleep infinity"
    )
    return {
        "selector": {"matchLabels": selector},
        "template": {
            "metadata": {"labels": selector},
            "spec": {
                "serviceAccountName": "gpu-acceptance",
                "priorityClassName": priority_class,
                "nodeSelector": {NODE_GROUP_LABEL: group},
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [{"matchExpressions": [{"key": LABEL, "operator": "DoesNotExist"}]}]
                        }
                    }
                },
                "tolerations": list(tolerations),
                "containers": [
                    {
                        "name": "check",
                        "image": image,
                        "command": ["/bin/sh", "-c", command],
                        "env": [
                            {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
                            {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
                            {"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "compute,utility"},
                            HOME,
                        ],
                        "resources": {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"memory": "32Gi"}},
                        "securityContext": dict(NON_ROOT),
                        "volumeMounts": [
                            {"name": "script", "mountPath": "/opt/gpu-acceptance", "readOnly": True},
                            {"name": "shm", "mountPath": "/dev/shm"},
                            SCRATCH_MOUNT,
                        ],
                    }
                ],
                "volumes": [
                    {"name": "script", "configMap": {"name": "gpu-acceptance"}},
                    {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
                    SCRATCH_VOLUME,
                ],
            },
        },
    }


def _recheck_spec(hours: int, system_node_selector: Optional[Mapping[str, str]], image: str) -> dict:
    """A CronJob on the system group that re-gates GPU nodes idle `hours` long, so they are checked afresh."""
    return {
        "schedule": recheck_schedule(hours),
        "concurrencyPolicy": "Forbid",
        "successfulJobsHistoryLimit": 1,
        "failedJobsHistoryLimit": 3,
        "jobTemplate": {
            "spec": {
                "backoffLimit": 1,
                "template": {
                    "spec": {
                        "serviceAccountName": "gpu-acceptance",
                        "restartPolicy": "Never",
                        "nodeSelector": dict(system_node_selector or {}),
                        "containers": [
                            {
                                "name": "recheck",
                                "image": image,
                                "command": ["python", "/opt/gpu-acceptance/recheck.py"],
                                "resources": {
                                    "requests": {"cpu": "50m", "memory": "64Mi"},
                                    "limits": {"memory": "256Mi"},
                                },
                                "env": [HOME],
                                "securityContext": dict(NON_ROOT),
                                "volumeMounts": [
                                    {"name": "script", "mountPath": "/opt/gpu-acceptance", "readOnly": True},
                                    SCRATCH_MOUNT,
                                ],
                            }
                        ],
                        "volumes": [{"name": "script", "configMap": {"name": "gpu-acceptance"}}, SCRATCH_VOLUME],
                    }
                },
            }
        },
    }


def recheck_schedule(hours: int) -> str:
    """Every `hours` hours (1-24), or every `hours / 24` days at midnight (multiples of 24)."""
    return f"0 */{hours} * * *" if hours < 24 else f"0 0 */{hours // 24} * *"
