"""Readiness: EKS node auto repair has the agent whose reports it acts on.

Node auto repair replaces nodes on the node conditions the EKS node monitoring agent sets (GPU/accelerator, kernel,
network, storage faults); without the agent it acts only on the kubelet's NotReady, so a GPU that fails under a job
is never repaired. https://docs.aws.amazon.com/eks/latest/userguide/node-health.html (read 2026-11-24).
"""

from __future__ import annotations

from typing import Iterable

from catalog.clouds import type_of

from .engine import Registration
from .readiness import NODE_GROUP, WARNING, Finding

ADDON = type_of("aws", "addon")
AGENT = "eks-node-monitoring-agent"
SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/node-health.html"


def check(regs: Iterable[Registration]) -> list[Finding]:
    regs = list(regs)
    if any(r.type == ADDON and r.inputs.get("addonName") == AGENT for r in regs):
        return []
    return [
        Finding(
            "node-repair-without-monitoring-agent",
            WARNING,
            r.name,
            f"node auto repair is on but the {AGENT} add-on is not installed: repair acts only on NotReady "
            f"nodes, never on the GPU faults the agent reports ({SOURCE})",
            f"install the {AGENT} managed add-on (catalog/addons.yaml pins it per Kubernetes version)",
        )
        for r in regs
        if r.type == NODE_GROUP and (r.inputs.get("nodeRepairConfig") or {}).get("enabled")
    ]
