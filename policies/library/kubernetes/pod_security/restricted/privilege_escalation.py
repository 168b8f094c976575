"""Containers cannot gain privileges through setuid binaries (PSS restricted "Privilege Escalation").

pod-security-admission check_allowPrivilegeEscalation.go: every container sets
securityContext.allowPrivilegeEscalation: false (unset counts as allowed); Windows pods are exempt.
"""

from ...pss import containers, context, control_rule, named


def check(metadata, pod):
    if (pod.get("os") or {}).get("name") == "windows":
        return
    for container in containers(pod):
        if context(container).get("allowPrivilegeEscalation") is not False:
            yield f"{named(container)} does not set allowPrivilegeEscalation: false"


RULE = control_rule(
    "restricted",
    "Privilege Escalation",
    check,
    description="Containers should set allowPrivilegeEscalation: false.",
    severity="medium",
    remediation="Set securityContext.allowPrivilegeEscalation: false on every container.",
)
