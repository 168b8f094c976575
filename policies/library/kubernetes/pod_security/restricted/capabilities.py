"""Containers drop every capability and add back at most NET_BIND_SERVICE (PSS restricted "Capabilities").

pod-security-admission check_capabilities_restricted.go: capabilities.drop includes ALL and capabilities.add
holds only NET_BIND_SERVICE; Windows pods are exempt.
"""

from ...pss import containers, context, control_rule, named


def check(metadata, pod):
    if (pod.get("os") or {}).get("name") == "windows":
        return
    for container in containers(pod):
        capabilities = context(container).get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            yield f"{named(container)} does not drop ALL capabilities"
        added = [c for c in capabilities.get("add") or [] if c != "NET_BIND_SERVICE"]
        if added:
            yield f"{named(container)} adds {', '.join(added)}"


RULE = control_rule(
    "restricted",
    "Capabilities",
    check,
    description="Containers should drop ALL capabilities and add back only NET_BIND_SERVICE.",
    severity="medium",
    remediation='Set securityContext.capabilities.drop: ["ALL"] (add: ["NET_BIND_SERVICE"] if it binds a low port).',
)
