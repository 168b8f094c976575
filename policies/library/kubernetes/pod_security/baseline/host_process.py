"""Pods run no Windows HostProcess containers (PSS baseline "HostProcess"): they have the node's privileges.

pod-security-admission check_windowsHostProcess.go: spec.securityContext.windowsOptions.hostProcess and each
container's must be unset or false.
"""

from ...pss import containers, context, control_rule, named, pod_context


def check(metadata, pod):
    if (pod_context(pod).get("windowsOptions") or {}).get("hostProcess") is True:
        yield "pod sets windowsOptions.hostProcess"
    for container in containers(pod):
        if (context(container).get("windowsOptions") or {}).get("hostProcess") is True:
            yield f"{named(container)} sets windowsOptions.hostProcess"


RULE = control_rule(
    "baseline",
    "HostProcess",
    check,
    description="Pods must not run Windows HostProcess containers.",
    severity="high",
    remediation="Remove securityContext.windowsOptions.hostProcess (or set it false); a node agent that needs it "
    "goes on nodeAgents with its reason.",
)
