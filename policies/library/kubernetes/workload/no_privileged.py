"""Workloads run unprivileged and in their own namespaces; host access is for listed node agents only.

A privileged container or one sharing the host's network, PID or IPC namespace can take over its node
(Kubernetes Pod Security Standards, baseline profile: "Privileged Containers", "Host Namespaces"). Added
capabilities are the "Capabilities" control, kubernetes/pod_security/baseline/capabilities.py.
"""

from ...refs import HIPAA, MLPS
from ...rule import ResourceRule
from ..pods import AGENT_CONFIG, WORKLOAD_TYPES, allowed, containers, identity, pod_specs


def check(props, config, args):
    workload = identity(props, args.name)
    if allowed(workload, config["nodeAgents"]):
        return
    for where, pod in pod_specs(args.resource_type, props):
        for field in ("hostNetwork", "hostPID", "hostIPC"):
            if pod.get(field) is True:
                yield f"{workload} {where}: {field} shares the node's namespace"
        for container in containers(pod):
            context = container.get("securityContext") or {}
            name = container.get("name", "?")
            if context.get("privileged") is True:
                yield f"{workload} {where}: container {name} is privileged"


RULE = ResourceRule(
    description="Pods must not be privileged or share host namespaces unless they are listed node agents.",
    severity="high",
    references={
        "baseline": "Kubernetes Pod Security Standards (baseline): Privileged Containers, Host Namespaces",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Drop privileged and hostNetwork/hostPID/hostIPC; a node agent that needs "
    "them goes on the rule's nodeAgents list with its reason.",
    url="https://kubernetes.io/docs/concepts/security/pod-security-standards/",
    config={"nodeAgents": AGENT_CONFIG},
    types=WORKLOAD_TYPES,
    check=check,
)
