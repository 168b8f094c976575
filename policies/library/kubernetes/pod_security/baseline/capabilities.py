"""Containers add no Linux capability beyond the runtime's default set (PSS baseline "Capabilities").

NET_RAW, SYS_ADMIN, NET_ADMIN, SYS_PTRACE and the rest give a container powers over the node's network,
kernel or other processes. pod-security-admission check_capabilities_baseline.go: capabilities.add must be
a subset of the default set.
"""

from ...pss import BASELINE_CAPABILITIES, containers, context, control_rule, named


def check(metadata, pod):
    for container in containers(pod):
        added = (context(container).get("capabilities") or {}).get("add") or []
        added = [c for c in added if c not in BASELINE_CAPABILITIES]
        if added:
            yield f"{named(container)} adds {', '.join(added)}"


RULE = control_rule(
    "baseline",
    "Capabilities",
    check,
    description="Containers must not add capabilities beyond the default set.",
    severity="high",
    remediation="Remove the capability from securityContext.capabilities.add; a node agent that needs it goes on "
    "nodeAgents with its reason.",
)
