"""Pods do not turn seccomp off (PSS baseline "Seccomp"): Unconfined lets a container make any system call.

pod-security-admission check_seccompProfile_baseline.go: seccompProfile.type (pod and containers) must be
unset, RuntimeDefault or Localhost.
"""

from ...pss import CONFINED_PROFILES, containers, context, control_rule, named, pod_context


def check(metadata, pod):
    profile = pod_context(pod).get("seccompProfile") or {}
    if profile and profile.get("type") not in CONFINED_PROFILES:
        yield f"pod sets seccompProfile type {profile.get('type')}"
    for container in containers(pod):
        profile = context(container).get("seccompProfile") or {}
        if profile and profile.get("type") not in CONFINED_PROFILES:
            yield f"{named(container)} sets seccompProfile type {profile.get('type')}"


RULE = control_rule(
    "baseline",
    "Seccomp",
    check,
    description="Pods must not set the Unconfined seccomp profile.",
    severity="high",
    remediation="Use seccompProfile type RuntimeDefault (or a Localhost profile), or leave it unset.",
)
