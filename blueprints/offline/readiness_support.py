"""Readiness: no registered chart or add-on pin is past its vendor's end of support (issue #23 item 13).

A pin past its end of support gets no fixes, CVEs included (the GPU Operator pin v25.10.x was). The pins read are those
the plan registers (Helm release chart + version, EKS/ACK add-on name + version), matched by release line to
catalog/lifecycle.yaml; "today" is blueprints.clock.today() so a reviewed plan is reproducible.
"""

from __future__ import annotations

from typing import Iterable

from catalog import lifecycle
from catalog.clouds import type_of

from ..clock import today
from .engine import Registration
from .readiness import HELM_RELEASE, WARNING, Finding

ADDONS = {
    type_of("aws", "addon"): ("aws", "addonName", "addonVersion"),
    type_of("alicloud", "addon"): ("alibaba", "name", "version"),
}


def _pins(regs: Iterable[Registration]) -> Iterable[tuple[Registration, str, str, str]]:
    for r in regs:
        if r.type == HELM_RELEASE:
            chart = str(r.inputs.get("chart") or "").rstrip("/").rsplit("/", 1)[-1]
            yield r, "charts", chart, str(r.inputs.get("version") or "")
        elif r.type in ADDONS:
            cloud, name_key, version_key = ADDONS[r.type]
            yield r, f"addons/{cloud}", str(r.inputs.get(name_key) or ""), str(r.inputs.get(version_key) or "")


def check(regs: Iterable[Registration]) -> list[Finding]:
    now, findings = today(), []
    for r, kind, name, version in _pins(regs):
        ends, src = lifecycle.end_of_support(kind, name, version)
        if ends is not None and ends < now:
            findings.append(
                Finding(
                    "pin-past-end-of-support",
                    WARNING,
                    r.name,
                    f"{name} {version} reached end of support on {ends.isoformat()} (today {now.isoformat()}): no more "
                    f"fixes or CVE patches ({lifecycle.source(src)})",
                    "move the pin to a supported release (components/kubernetes/charts.yaml or catalog/"
                    "addons.yaml), re-read its chart facts, and record its end of support in "
                    "catalog/lifecycle.yaml",
                )
            )
    return findings
