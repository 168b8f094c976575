"""Workloads mount no hostPath volumes unless they are listed node agents (a host path escapes the container).

A hostPath PersistentVolume is the same escape through a claim: any pod that binds it mounts the node's path.
"""

from ...props import items
from ...refs import HIPAA, MLPS
from ...rule import ResourceRule
from ..pods import AGENT_CONFIG, WORKLOAD_TYPES, allowed, identity, pod_specs

PERSISTENT_VOLUME = "kubernetes:core/v1:PersistentVolume"


def check(props, config, args):
    if args.resource_type == PERSISTENT_VOLUME:
        path = ((props.get("spec") or {}).get("hostPath") or {}).get("path")
        if path is not None:
            name = (props.get("metadata") or {}).get("name") or args.name
            yield f"PersistentVolume {name} is a host path ({path}): pods that claim it mount the node"
        return
    workload = identity(props, args.name)
    if allowed(workload, config["nodeAgents"]):
        return
    for where, pod in pod_specs(args.resource_type, props):
        for volume in items(pod.get("volumes")):
            if volume.get("hostPath"):
                path = volume["hostPath"].get("path")
                yield f"{workload} {where}: volume {volume.get('name')} mounts host path {path}"


RULE = ResourceRule(
    description="Pods must not mount hostPath volumes unless they are listed node agents; no hostPath "
    "PersistentVolumes.",
    severity="high",
    references={
        "baseline": "Kubernetes Pod Security Standards (baseline): HostPath Volumes",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Use emptyDir, a ConfigMap or a PersistentVolumeClaim; "
    "list a node agent that needs the host in nodeAgents.",
    url="https://kubernetes.io/docs/concepts/security/pod-security-standards/",
    config={"nodeAgents": AGENT_CONFIG},
    types=(*WORKLOAD_TYPES, PERSISTENT_VOLUME),
    check=check,
)
