"""Pods set no custom SELinux user, role or type (PSS baseline "SELinux"): they could leave the container domain.

pod-security-admission check_seLinuxOptions.go (1.31+): seLinuxOptions.type (pod and containers) must be unset
or a container type; user and role must be unset.
"""

from ...pss import SELINUX_TYPES, containers, context, control_rule, named, pod_context


def problems(options):
    if options.get("type", "") not in SELINUX_TYPES:
        yield f"type {options.get('type')}"
    for field in ("user", "role"):
        if options.get(field):
            yield f"{field} {options.get(field)}"


def check(metadata, pod):
    for what in problems(pod_context(pod).get("seLinuxOptions") or {}):
        yield f"pod sets SELinux {what}"
    for container in containers(pod):
        for what in problems(context(container).get("seLinuxOptions") or {}):
            yield f"{named(container)} sets SELinux {what}"


RULE = control_rule(
    "baseline",
    "SELinux",
    check,
    description="Pods must not set a custom SELinux user, role or type.",
    severity="medium",
    remediation="Remove seLinuxOptions user and role; use a container_t-family type or leave it unset.",
)
