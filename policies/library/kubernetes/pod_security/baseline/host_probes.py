"""Probes and lifecycle hooks target the pod itself (PSS baseline "Host Probes / Lifecycle Hooks", 1.34+).

A host in an httpGet or tcpSocket probe or hook makes the kubelet connect to another address on the pod's
behalf. pod-security-admission check_hostProbesAndhostLifecycle.go: .host must be unset.
"""

from ...pss import containers, control_rule, named

PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
HOOKS = ("postStart", "preStop")


def hosts(handler):
    for kind in ("httpGet", "tcpSocket"):
        host = ((handler or {}).get(kind) or {}).get("host")
        if host:
            yield kind, host


def check(metadata, pod):
    for container in containers(pod):
        handlers = [(p, container.get(p)) for p in PROBES]
        handlers += [(h, (container.get("lifecycle") or {}).get(h)) for h in HOOKS]
        for where, handler in handlers:
            for kind, host in hosts(handler):
                yield f"{named(container)} {where} {kind} targets host {host}"


RULE = control_rule(
    "baseline",
    "Host Probes / Lifecycle Hooks",
    check,
    description="Probes and lifecycle hooks must not name a host.",
    severity="medium",
    remediation="Remove .host from the probe or hook; the kubelet then connects to the pod's own IP.",
)
