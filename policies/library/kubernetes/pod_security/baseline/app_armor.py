"""Pods keep an AppArmor profile (PSS baseline "AppArmor"): Unconfined removes the runtime's confinement.

pod-security-admission check_appArmorProfile.go: securityContext.appArmorProfile.type (pod and containers)
must be RuntimeDefault or Localhost; the deprecated container.apparmor.security.beta.kubernetes.io/*
annotations must be runtime/default or localhost/*.
"""

from ...pss import CONFINED_PROFILES, containers, context, control_rule, named, pod_context

ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"


def check(metadata, pod):
    profile = pod_context(pod).get("appArmorProfile") or {}
    if profile and profile.get("type") not in CONFINED_PROFILES:
        yield f"pod sets AppArmor profile type {profile.get('type')}"
    for container in containers(pod):
        profile = context(container).get("appArmorProfile") or {}
        if profile and profile.get("type") not in CONFINED_PROFILES:
            yield f"{named(container)} sets AppArmor profile type {profile.get('type')}"
    for key, value in sorted((metadata.get("annotations") or {}).items()):
        if key.startswith(ANNOTATION) and value and value != "runtime/default" and not value.startswith("localhost/"):
            yield f"annotation {key}={value} disables AppArmor"


RULE = control_rule(
    "baseline",
    "AppArmor",
    check,
    description="Pods must not disable or override AppArmor (Unconfined).",
    severity="medium",
    remediation="Leave appArmorProfile unset or use type RuntimeDefault (or a Localhost profile).",
)
