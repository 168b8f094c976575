"""Every container requests CPU and memory, directly or through its namespace's LimitRange defaults.

Without requests the scheduler packs pods blindly onto (expensive) GPU nodes and evicts them first under
pressure (Kubernetes docs, "Resource Management for Pods and Containers"). A LimitRange with
``defaultRequest`` in the namespace fills requests in at admission, so such containers pass.
"""

from ...props import items, of_type
from ...refs import HIPAA
from ...rule import StackRule
from ..pods import WORKLOAD_TYPES, containers, identity, pod_specs

LIMIT_RANGE = "kubernetes:core/v1:LimitRange"


def defaulted(resources) -> dict[str, set[str]]:
    """namespace -> resources a LimitRange there requests by default for containers."""
    found: dict[str, set[str]] = {}
    for limit_range in of_type(resources, LIMIT_RANGE):
        namespace = (limit_range.props.get("metadata") or {}).get("namespace") or "default"
        for limit in items((limit_range.props.get("spec") or {}).get("limits")):
            if limit.get("type") == "Container":
                found.setdefault(namespace, set()).update((limit.get("defaultRequest") or {}).keys())
    return found


def check(resources, config):
    defaults = defaulted(resources)
    for workload in of_type(resources, *WORKLOAD_TYPES):
        name = identity(workload.props, workload.name)
        namespace = name.split("/", 1)[0]
        for where, pod in pod_specs(workload.resource_type, workload.props):
            for container in containers(pod):
                requests = set(((container.get("resources") or {}).get("requests") or {}).keys())
                missing = [r for r in ("cpu", "memory") if r not in requests | defaults.get(namespace, set())]
                if missing:
                    yield (
                        (f"{name} {where}: container {container.get('name', '?')} requests no {' or '.join(missing)}"),
                        workload.urn,
                    )


RULE = StackRule(
    description="Containers must request CPU and memory, or run where a LimitRange defaults them.",
    severity="medium",
    references={
        "baseline": "Kubernetes: Resource Management for Pods and Containers",
        "hipaa": HIPAA.format("164.308(a)(7)(ii)(E)"),
    },
    remediation="Set resources.requests.cpu and .memory on every container, or a LimitRange defaultRequest.",
    url="https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
    types=(*WORKLOAD_TYPES, LIMIT_RANGE),
    check=check,
)
