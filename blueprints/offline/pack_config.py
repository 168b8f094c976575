"""Rule settings a stack's spec implies, per pack: what the offline plan sends and `--policy-pack-config` files hold.

The same values reach the packs both ways, so the real `pulumi preview --policy-pack` judges a stack as
the offline plan does: the hourly cost ceiling is the monthly budget over the month's hours, and data
residency follows `compliance.allowedRegions` when the stack sets it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence

from catalog.prices import flat_overrides
from catalog.service_prices import service_prices

from ..resolver import ResolvedPlan
from ..spec import ClusterSpec
from .cost import CostEstimate


def stack_policy_config(
    spec: ClusterSpec, resolved: Optional[ResolvedPlan] = None, cost: Optional[CostEstimate] = None
) -> dict[str, dict[str, Any]]:
    """``resolved`` gives the rates the stack pays in its region; ``cost`` the plan's estimate of what is not
    a node group (storage, networking, control plane, logs) for the budget rule."""
    hours = service_prices()["hours_per_month"]
    if resolved is None:
        from ..resolver import resolve

        resolved = resolve(spec)
    # What the stack pays per instance-hour: its region's price for how it buys (spot, capacity block), or its
    # own override; the cost rules fall back to the catalog's list price for anything else.
    # The resolved rates already hold the stack's overrides for the option each group is bought as.
    rates = {k: v for k, v in resolved.instance_prices().items() if v is not None}
    config: dict[str, dict[str, Any]] = {
        "stack-max-hourly-cost": {
            "maxUsdPerHour": round(spec.budget.monthly_limit_usd / hours, 2),
            "prices": {**flat_overrides(spec.prices), **rates},
        },
    }
    nodes = ("gpu-nodes", "system-nodes")
    other = 0.0 if cost is None else sum(v for k, v in cost.by_component().items() if k not in nodes) * hours
    # The advisory rule that lists unpriced accelerated groups reads the same rates.
    config["stack-unpriced-node-groups"] = {"prices": {**flat_overrides(spec.prices), **rates}}
    config["stack-expected-cost-within-budget"] = {
        "monthlyBudgetUsd": spec.budget.monthly_limit_usd,
        "prices": {**flat_overrides(spec.prices), **rates},
        "hoursPerMonth": hours,
        "otherMonthlyUsd": round(other, 2),
    }
    if spec.account_services.audit_trail == "existing":
        config["stack-audit-trail"] = {"existing": True}
    if spec.account_services.threat_detection == "existing":
        config["stack-threat-detection"] = {"existing": True}
    if spec.compliance.allowed_regions:
        config["stack-data-residency"] = {"allowedRegions": list(spec.compliance.allowed_regions)}
    return config


def pack_config_files(
    spec: ClusterSpec, resolved: Optional[ResolvedPlan] = None, cost: Optional[CostEstimate] = None
) -> dict[str, dict[str, dict[str, Any]]]:
    """For each pack the stack declares: {policy: settings}, the pack's own defaults then the stack's values."""
    from policies.library.packs import PACKS

    stack = stack_policy_config(spec, resolved, cost)
    files = {}
    for pack_name in spec.compliance.frameworks:
        pack = PACKS[pack_name]
        names = {r.name for r in pack.rules()}
        merged = {k: dict(v) for k, v in pack.initial_config.items()}
        for policy, values in stack.items():
            if policy in names:
                merged[policy] = {**merged.get(policy, {}), **values}
        files[pack_name] = merged
    return files


def write_pack_configs(
    spec: ClusterSpec, folder: Path, resolved: Optional[ResolvedPlan] = None, cost: Optional[CostEstimate] = None
) -> list[Path]:
    """One <pack>.json a pack, each written like `--output` (atomically, with the user's umask)."""
    from ..output import prepare_folder, write_output

    prepare_folder(folder)
    written = []
    for pack, config in pack_config_files(spec, resolved, cost).items():
        path = folder / f"{pack}.json"
        write_output(json.dumps(config, indent=2, sort_keys=True) + "\n", path, option="--output-dir")
        written.append(path)
    return written


LEVEL_NAMES = ("advisory", "mandatory", "remediate", "disabled")


def read_pack_config_file(path: Path) -> dict[str, dict[str, Any]]:
    """A `pulumi preview --policy-pack-config` file: {policy: level} or {policy: {enforcementLevel?, setting: value}},
    with "all" setting every policy's level, as the Pulumi CLI parses it (pulumi/pulumi
    pkg/resource/analyzer/config.go, parsePolicyPackConfig). Bad input is a BlueprintError naming the file."""
    from ..errors import BlueprintError
    from ..inputs import PACK_CONFIG_BYTES, parse_json, read_text

    what = "JSON policy pack config (`policy-config` writes them)"
    text = read_text(path, PACK_CONFIG_BYTES, str(path), what)  # bounded: /dev/zero is refused, not read
    if not text.strip():
        return {}  # the CLI allows an empty file
    data = parse_json(text, str(path), what)
    if not isinstance(data, dict):
        raise BlueprintError(str(path), "a policy pack config is a JSON object: {policy: level or {settings}}")
    config: dict[str, dict[str, Any]] = {}
    for policy, value in data.items():
        values = {"enforcementLevel": value} if isinstance(value, str) else value
        if not isinstance(values, dict):
            raise BlueprintError(str(path), f"{policy}: a level ({', '.join(LEVEL_NAMES)}) or an object of settings")
        level = values.get("enforcementLevel")
        if level is not None and level not in LEVEL_NAMES:
            raise BlueprintError(
                str(path), f"{policy}: enforcementLevel {level!r} is not one of {', '.join(LEVEL_NAMES)}"
            )
        config[str(policy)] = dict(values)
    return config


def pack_configs(
    paths: Sequence[Path], packs: Optional[Sequence[str]], frameworks: Sequence[str]
) -> dict[str, tuple[str, dict[str, dict[str, Any]]]]:
    """pack -> (file, config). With --policy-pack, the n-th file configures the n-th pack, as the Pulumi CLI pairs
    them; without, a file configures the pack it is named after (`<pack>.json`, as `policy-config` writes), when the
    stack runs that pack (so one set of files serves --all-stacks)."""
    from ..errors import BlueprintError
    from .policy import available_packs

    if not paths:
        return {}
    if packs is not None:
        if len(paths) != len(packs):
            raise BlueprintError(
                "--policy-pack-config",
                f"must be specified for each --policy-pack ({len(packs)} packs, {len(paths)} files)",
            )
        return {pack: (str(path), read_pack_config_file(path)) for pack, path in zip(packs, paths)}
    out = {}
    for path in paths:
        pack = Path(path).stem
        if pack not in available_packs():
            raise BlueprintError(
                str(path),
                f"names no pack ({', '.join(available_packs())}): name the file "
                "<pack>.json, or pair it with --policy-pack",
            )
        config = read_pack_config_file(path)
        if pack in frameworks:
            out[pack] = (str(path), config)
    return out
