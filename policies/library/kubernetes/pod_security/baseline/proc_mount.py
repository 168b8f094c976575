"""Containers keep the default /proc mask (PSS baseline "/proc Mount Type"): Unmasked exposes the host's /proc.

pod-security-admission check_procMount_baseline.go: securityContext.procMount must be unset or Default; from
1.35 a pod with its own user namespace (hostUsers: false) may use another type.
"""

from ...pss import containers, context, control_rule, named


def check(metadata, pod):
    if pod.get("hostUsers") is False:
        return
    for container in containers(pod):
        mount = context(container).get("procMount")
        if mount not in (None, "Default"):
            yield f"{named(container)} sets procMount {mount}"


RULE = control_rule(
    "baseline",
    "/proc Mount Type",
    check,
    description="Containers must keep the default /proc mount type.",
    severity="high",
    remediation="Remove securityContext.procMount (or set Default); Unmasked needs hostUsers: false.",
)
