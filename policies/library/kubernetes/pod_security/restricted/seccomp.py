"""Every container runs under a seccomp profile (PSS restricted "Seccomp"): unset means the runtime may use none.

pod-security-admission check_seccompProfile_restricted.go: the pod, or each container, sets
seccompProfile.type RuntimeDefault or Localhost; Windows pods are exempt.
"""

from ...pss import CONFINED_PROFILES, containers, context, control_rule, named, pod_context


def check(metadata, pod):
    if (pod.get("os") or {}).get("name") == "windows":
        return
    pod_confined = (pod_context(pod).get("seccompProfile") or {}).get("type") in CONFINED_PROFILES
    for container in containers(pod):
        profile = context(container).get("seccompProfile")
        if profile is None and not pod_confined:
            yield f"{named(container)} has no seccompProfile (set RuntimeDefault on the pod or container)"


RULE = control_rule(
    "restricted",
    "Seccomp",
    check,
    description="Pods should set seccompProfile RuntimeDefault or Localhost.",
    severity="medium",
    remediation="Set spec.securityContext.seccompProfile.type: RuntimeDefault.",
)
