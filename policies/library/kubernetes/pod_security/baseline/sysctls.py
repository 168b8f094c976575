"""Pods set only the namespaced "safe" sysctls (PSS baseline "Sysctls"): others change the whole node.

pod-security-admission check_sysctls.go (1.32+): spec.securityContext.sysctls[*].name in the safe set.
"""

from ....props import items
from ...pss import SAFE_SYSCTLS, control_rule, pod_context


def check(metadata, pod):
    for sysctl in items(pod_context(pod).get("sysctls")):
        if sysctl.get("name") not in SAFE_SYSCTLS:
            yield f"pod sets sysctl {sysctl.get('name')}, not one of the safe set"


RULE = control_rule(
    "baseline",
    "Sysctls",
    check,
    description="Pods must set only safe sysctls.",
    severity="medium",
    remediation="Remove the sysctl, or set it on the node (a node group's bootstrap or launch template).",
)
