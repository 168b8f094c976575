"""Readiness: tags a provider feature requires and names that must be unique across every customer of the cloud.

Facts (which feature needs which tag on which resource; which names are global) come from
catalog/cluster_network.yaml with their sources.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from catalog.cluster_network import network_facts

from .engine import Registration
from .readiness import BLOCKING, Finding


def _stack(urn: str) -> str:
    """urn:pulumi:<stack>::<project>::<type>::<name> -> <stack>."""
    return urn.split(":", 3)[-1].split("::")[0] if urn.startswith("urn:pulumi:") else ""


def _required_tags(regs: Sequence[Registration]) -> list[Finding]:
    findings = []
    for fact in network_facts()["required_tags"]:
        targets = [r for r in regs if r.type == fact["target"]]
        for r in regs:
            if r.type != fact["type"]:
                continue
            wanted = str(r.inputs.get(fact["via"]) or "").split("://", 1)[-1].strip("/")
            for t in targets:
                if t.inputs.get("bucket") != wanted:
                    continue
                tags: dict[str, Any] = t.inputs.get("tags") or {}
                if str(tags.get(fact["tag"], "")).lower() != fact["value"]:
                    findings.append(
                        Finding(
                            "required-tag",
                            BLOCKING,
                            t.name,
                            f"{r.name} ({fact['type'].rsplit(':', 1)[-1]}) reads {wanted}, which lacks the tag "
                            f"{fact['tag']}: {fact['value']} the service requires, so it cannot read the bucket",
                            f'tag the bucket {fact["tag"]}: "{fact["value"]}" '
                            f"(source: {network_facts()['sources'][fact['source']].split()[0]})",
                        )
                    )
    return findings


def _global_names(regs: Sequence[Registration]) -> list[Finding]:
    findings = []
    for fact in network_facts()["global_names"]:
        for r in regs:
            if r.type != fact["type"]:
                continue
            value = r.inputs.get(fact["field"])
            if not isinstance(value, str):
                continue
            if value in (r.name, _stack(getattr(r, "urn", ""))):
                findings.append(
                    Finding(
                        "global-name",
                        BLOCKING,
                        r.name,
                        f"{fact['field']} {value!r} is made of the stack's name only, but {fact['type']} names are "
                        "shared by every customer: anyone who deployed this stack before holds it and `pulumi up` "
                        "fails",
                        "add a suffix unique to the deployment (the account and stack, hashed) "
                        f"(source: {network_facts()['sources'][fact['source']].split()[0]})",
                    )
                )
    return findings


def check(registrations: Iterable[Registration]) -> list[Finding]:
    regs = list(registrations)
    return _required_tags(regs) + _global_names(regs)
