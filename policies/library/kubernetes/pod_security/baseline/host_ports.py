"""Containers bind no host ports (PSS baseline "Host Ports"): a hostPort exposes the pod on the node's address.

pod-security-admission check_hostPorts.go: every containers[*].ports[*].hostPort must be unset or 0.
"""

from ....props import items
from ...pss import containers, control_rule, named


def check(metadata, pod):
    for container in containers(pod):
        ports = [p.get("hostPort") for p in items(container.get("ports")) if p.get("hostPort") not in (None, 0)]
        if ports:
            yield f"{named(container)} uses hostPort {', '.join(str(p) for p in ports)}"


RULE = control_rule(
    "baseline",
    "Host Ports",
    check,
    description="Containers must not bind host ports.",
    severity="medium",
    remediation="Drop hostPort and publish the port through a Service (ClusterIP, or a LoadBalancer).",
)
