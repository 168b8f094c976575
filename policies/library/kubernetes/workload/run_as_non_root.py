"""Containers run as a non-root user and keep the root filesystem read-only, where the workload allows.

Advisory: GPU images (CUDA, PyTorch) default to root and some training stacks write into their image,
so this asks for what is possible rather than failing the plan (Pod Security Standards, restricted
profile: "Running as Non-root"; readOnlyRootFilesystem is a hardening the restricted profile omits).
"""

from ...refs import HIPAA, MLPS
from ...rule import ResourceRule
from ..pods import WORKLOAD_TYPES, containers, identity, pod_specs


def non_root(pod, context) -> bool:
    pod_context = pod.get("securityContext") or {}
    for source in (context, pod_context):
        if source.get("runAsNonRoot") is True or (source.get("runAsUser") not in (None, 0, "0")):
            return True
        if source.get("runAsNonRoot") is False or source.get("runAsUser") in (0, "0"):
            return False
    return False


def check(props, config, args):
    workload = identity(props, args.name)
    for where, pod in pod_specs(args.resource_type, props):
        for container in containers(pod):
            context = container.get("securityContext") or {}
            name = container.get("name", "?")
            if not non_root(pod, context):
                yield f"{workload} {where}: container {name} may run as root (set runAsNonRoot and runAsUser)"
            if config["readOnlyRootFilesystem"] and context.get("readOnlyRootFilesystem") is not True:
                yield f"{workload} {where}: container {name} has a writable root filesystem"


RULE = ResourceRule(
    description="Containers should run as non-root with a read-only root filesystem.",
    severity="medium",
    level="advisory",
    references={
        "baseline": "Kubernetes Pod Security Standards (restricted): Running as Non-root",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set securityContext.runAsNonRoot: true with a runAsUser, readOnlyRootFilesystem: true, and "
    "mount an emptyDir where the process writes (/tmp).",
    url="https://kubernetes.io/docs/tasks/configure-pod-container/security-context/",
    config={
        "readOnlyRootFilesystem": {
            "type": "boolean",
            "default": True,
            "description": "Also ask for a read-only root filesystem.",
        }
    },
    types=WORKLOAD_TYPES,
    check=check,
)
