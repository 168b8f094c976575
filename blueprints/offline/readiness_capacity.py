"""Readiness: capacity-block node groups as EKS accepts them, and no scheduled action beside EKS's own.

Facts: catalog/capacity_blocks.py (EKS capacity-blocks-mng guide). A group whose launch template misses a
field EKS requires is rejected at create; a scale-to-zero action of ours on a block's group doubles the one EKS
schedules itself 40 minutes before the block ends, and Auto Scaling refuses two actions at one time.
"""

from __future__ import annotations

from typing import Any, Iterable

from catalog.capacity_blocks import EKS_SCALEDOWN_MINUTES_BEFORE_END, LAUNCH_TEMPLATE_FIELDS, SOURCE
from catalog.clouds import type_of

from .engine import Registration
from .readiness import BLOCKING, NODE_GROUP, Finding

LAUNCH_TEMPLATE = type_of("aws", "launch_template")
SCHEDULE = type_of("aws", "autoscaling_schedule")


def _at(inputs: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        inputs = inputs.get(key) if isinstance(inputs, dict) else None
    return inputs


def check(regs: Iterable[Registration]) -> list[Finding]:
    regs = list(regs)
    templates = {r.id: r for r in regs if r.type == LAUNCH_TEMPLATE}
    blocks = {r.urn: r for r in regs if r.type == NODE_GROUP and r.inputs.get("capacityType") == "CAPACITY_BLOCK"}
    findings = []
    for group in blocks.values():
        template = templates.get((group.inputs.get("launchTemplate") or {}).get("id"))
        inputs = template.inputs if template else {}
        for path, want in LAUNCH_TEMPLATE_FIELDS:
            got = _at(inputs, path)
            if got is None or (want is not None and got != want):
                findings.append(
                    Finding(
                        "capacity-block-launch-template",
                        BLOCKING,
                        group.name,
                        f"capacity-block group's launch template lacks {'.'.join(path)}"
                        + (f" = {want!r}" if want else "")
                        + f"; EKS rejects the node group ({SOURCE})",
                        f"set {'.'.join(path)} in the group's launch template",
                    )
                )
        if group.inputs.get("instanceTypes"):
            findings.append(
                Finding(
                    "capacity-block-launch-template",
                    BLOCKING,
                    group.name,
                    f"capacity-block group names instanceTypes on the node group; EKS takes the block's instance type "
                    f"from the launch template only ({SOURCE})",
                    "move the instance type into the launch template and leave the node group's instanceTypes unset",
                )
            )
    for schedule in (r for r in regs if r.type == SCHEDULE):
        group = next((blocks[d] for d in schedule.dependencies if d in blocks), None)
        if group is None:
            continue
        s = schedule.inputs
        if s.get("desiredCapacity") == 0 or s.get("maxSize") == 0:
            findings.append(
                Finding(
                    "capacity-block-schedule-collision",
                    BLOCKING,
                    schedule.name,
                    f"scheduled scale-down on capacity-block group {group.name}: EKS schedules its own scale to zero "
                    f"{EKS_SCALEDOWN_MINUTES_BEFORE_END} minutes before the block ends, and Auto Scaling refuses a "
                    f"second action at one time ({SOURCE})",
                    "remove the scheduled scale-down; keep EKS's (schedule only the scale-up at the block's start)",
                )
            )
    return findings
