"""Which inputs force a replacement, per resource type, as the providers' schemas say (see the YAML)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from .yamlfile import load_yaml

PATH = Path(__file__).with_name("replacements.yaml")


@dataclass(frozen=True)
class ReplacementRules:
    type: str
    source: str
    replaces: tuple[str, ...]
    data_store: bool = False
    replaces_when_shrinking: Optional[str] = None
    fixed_name: Optional[str] = None
    # the input path of a name the provider itself deletes before replacing when it stays the same
    # (pulumi-kubernetes: a named object), so no create-before-delete clash and no option needed
    deletes_first_when_named: Optional[str] = None

    def forcing(self, path: str) -> Optional[str]:
        """The schema entry a changed input path falls under (itself or a parent), if any."""
        return next((r for r in self.replaces if path == r or path.startswith(r + ".")), None)


@lru_cache(maxsize=1)
def replacement_rules() -> dict[str, ReplacementRules]:
    data = load_yaml(PATH)
    sources = data["sources"]
    rules = {}
    for type_, entry in data["types"].items():
        key, _, detail = entry["source"].partition(" ")
        origin = sources[key].split()[0] if sources[key].startswith("https://") else " ".join(sources[key].split())
        rules[type_] = ReplacementRules(
            type=type_,
            source=" ".join(p for p in (origin, detail) if p),
            replaces=tuple(entry["replaces"]),
            data_store=bool(entry.get("dataStore")),
            replaces_when_shrinking=entry.get("replacesWhenShrinking"),
            fixed_name=entry.get("fixedName"),
            deletes_first_when_named=entry.get("deletesFirstWhenNamed"),
        )
    return rules
