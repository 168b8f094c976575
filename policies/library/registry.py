"""Find every rule module in the library by importing it; a pack is a selection of the rules found.

A rule module is any module under the rule folders whose ``RULE`` attribute is a ``Rule``: found with
``pkgutil.walk_packages`` and ``importlib``, so how the assignment is written (``RULE = ...``,
``RULE: Rule = ...``, built by a helper) does not matter. A rule's name is its module path below the
library, dashed (``aws/ec2/instance/imdsv2_required.py`` -> ``aws-ec2-instance-imdsv2-required``),
so every finding leads to its file (the convention of Pulumi's compliance-policies, where the rule's
name is its path).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from .rule import Rule

LIBRARY = Path(__file__).resolve().parent
RULE_DIRS = ("aws", "alicloud", "kubernetes", "common", "stack")


def rule_name(module: str) -> str:
    """``policies.library.aws.kms.key.rotation_enabled`` -> ``aws-kms-key-rotation-enabled``."""
    relative = module[len(__package__) + 1 :] if module.startswith(__package__ + ".") else module
    return relative.replace(".", "-").replace("_", "-")


def _modules(folder: Path, dotted: str) -> Iterator[str]:
    """Every module below ``folder``; rule folders are namespace packages (no ``__init__.py``), which
    ``pkgutil.walk_packages`` does not descend into, so each folder is listed with ``iter_modules``."""
    for info in pkgutil.iter_modules([str(folder)], prefix=dotted + "."):
        if not info.ispkg:
            yield info.name
    for child in sorted(p for p in folder.iterdir() if p.is_dir() and p.name.isidentifier()):
        yield from _modules(child, f"{dotted}.{child.name}")


def discover(folder: Path, dotted: str) -> list[tuple[str, Rule]]:
    """(module, RULE) for every module below ``folder`` (importable as ``dotted``) that defines a Rule."""
    found = []
    for module in _modules(folder, dotted):
        rule = getattr(importlib.import_module(module), "RULE", None)
        if isinstance(rule, Rule):
            found.append((module, rule))
    return found


def _walk() -> list[tuple[str, Rule]]:
    return sorted(pair for folder in RULE_DIRS for pair in discover(LIBRARY / folder, f"{__package__}.{folder}"))


@lru_cache(maxsize=1)
def _rules_by_module() -> tuple[tuple[str, Rule], ...]:
    named = []
    for module, rule in _walk():
        name = rule_name(module)
        if rule.name and rule.name != name:
            raise ValueError(f"{module}: a rule's name is its path ({name}), not {rule.name}")
        named.append((module, dataclasses.replace(rule, name=name)))
    return tuple(named)


def rule_modules() -> list[str]:
    """Dotted names of the modules that define a RULE, in a stable order."""
    return [module for module, _ in _rules_by_module()]


def all_rules() -> tuple[Rule, ...]:
    return tuple(rule for _, rule in _rules_by_module())
