"""Find every rule module in the library; a pack is a selection of them."""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path

from .rule import Rule

LIBRARY = Path(__file__).resolve().parent
RULE_DIRS = ("aws", "alicloud", "kubernetes", "common", "stack")


def rule_modules() -> list[str]:
    """Dotted names of the modules that define a RULE, in a stable order."""
    names = []
    for folder in RULE_DIRS:
        for path in sorted((LIBRARY / folder).rglob("*.py")):
            if "RULE = " in path.read_text(encoding="utf-8"):
                relative = path.relative_to(LIBRARY).with_suffix("")
                names.append(".".join((__package__,) + relative.parts))
    return names


@lru_cache(maxsize=1)
def all_rules() -> tuple[Rule, ...]:
    rules = tuple(importlib.import_module(name).RULE for name in rule_modules())
    seen: set[str] = set()
    for rule in rules:
        if rule.name in seen:
            raise ValueError(f"two rules are named {rule.name}")
        seen.add(rule.name)
    return rules
