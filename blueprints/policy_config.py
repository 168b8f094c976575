"""Rule settings a stack's spec implies, per pack: what the offline plan sends and `--policy-pack-config` files hold.

The same values reach the packs both ways, so the real `pulumi preview --policy-pack` judges a stack as
the offline plan does: the hourly cost ceiling is the monthly budget over the month's hours, and data
residency follows `compliance.allowedRegions` when the stack sets it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .offline.cost import service_prices
from .spec import ClusterSpec


def stack_policy_config(spec: ClusterSpec) -> dict[str, dict[str, Any]]:
    hours = service_prices()["hours_per_month"]
    config: dict[str, dict[str, Any]] = {
        "stack-max-hourly-cost": {"maxUsdPerHour": round(spec.budget.monthly_limit_usd / hours, 2),
                            "prices": dict(spec.prices)},
    }
    # The advisory rule that lists unpriced accelerated groups reads the same negotiated prices.
    config["stack-unpriced-node-groups"] = {"prices": dict(spec.prices)}
    if spec.compliance.allowed_regions:
        config["stack-data-residency"] = {"allowedRegions": list(spec.compliance.allowed_regions)}
    return config


def pack_config_files(spec: ClusterSpec) -> dict[str, dict[str, dict[str, Any]]]:
    """For each pack the stack declares: {policy: settings}, the pack's own defaults then the stack's values."""
    from policies.library.packs import PACKS

    stack = stack_policy_config(spec)
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


def write_pack_configs(spec: ClusterSpec, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for pack, config in pack_config_files(spec).items():
        path = folder / f"{pack}.json"
        path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        written.append(path)
    return written
