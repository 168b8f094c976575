"""In-place changes a service refuses (a file system that only grows), with their sources (see the YAML)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from .yamlfile import load_yaml

PATH = Path(__file__).with_name("impossible_changes.yaml")


@dataclass(frozen=True)
class OneWay:
    """An input the service lets move one way only."""

    type: str
    input: str
    only: str  # increase
    what: str
    source: str
    when: Mapping[str, Any]

    def applies(self, inputs: Mapping[str, Any]) -> bool:
        return all(inputs.get(k) == v for k, v in self.when.items())

    def refused(self, before: Any, after: Any) -> bool:
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (before, after))
        return numbers and (after < before if self.only == "increase" else after > before)


@lru_cache(maxsize=1)
def one_way_inputs() -> dict[str, tuple[OneWay, ...]]:
    data = load_yaml(PATH)["types"]
    return {
        t: tuple(
            OneWay(t, e["input"], e["only"], e["what"], " ".join(e["source"].split()), e.get("when") or {})
            for e in entries
        )
        for t, entries in data.items()
    }
