"""Nothing runs as UID 0 (PSS restricted "Running as Non-root user").

pod-security-admission check_runAsUser.go: runAsUser (pod and containers) must not be 0; from 1.35 a pod
with its own user namespace (hostUsers: false) is exempt. "Running as Non-root" (runAsNonRoot) is
kubernetes/workload/run_as_non_root.py.
"""

from ...pss import containers, context, control_rule, named, pod_context


def check(metadata, pod):
    if pod.get("hostUsers") is False:
        return
    if pod_context(pod).get("runAsUser") in (0, "0"):
        yield "pod sets runAsUser: 0"
    for container in containers(pod):
        if context(container).get("runAsUser") in (0, "0"):
            yield f"{named(container)} sets runAsUser: 0"


RULE = control_rule(
    "restricted",
    "Running as Non-root user",
    check,
    description="Pods and containers should not set runAsUser: 0.",
    severity="medium",
    remediation="Set runAsUser to a non-zero UID the image's files allow (or hostUsers: false).",
)
