"""The plan's registrations indexed once by type and by name, so a check looks objects up instead of scanning.

Readiness runs a dozen checks, several of them once per node group or served model; scanning every registration
inside such a loop made a 50-model plan quadratic (issue #42). ``index(regs)`` builds the index once (readiness's
``check`` passes it to every topic) and returns the same object when given one, so a check called alone with a
plain list still works.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

from .engine import Registration

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"


class RegistrationIndex(tuple):
    """A tuple of registrations (iterate it as before) with lookups by type and by name."""

    _by_type: dict[str, tuple[Registration, ...]]
    _positions: dict[str, list[tuple[int, Registration]]]  # type -> (place in the plan, registration)
    _releases: Optional[frozenset[str]]
    _by_name: Optional[dict[tuple[str, Any, Any], list[Registration]]]

    def __new__(cls, registrations: Iterable[Registration]) -> "RegistrationIndex":
        index = super().__new__(cls, registrations)
        by_type: dict[str, list[tuple[int, Registration]]] = {}
        for i, r in enumerate(index):
            by_type.setdefault(r.type, []).append((i, r))
        index._positions = by_type
        index._by_type = {t: tuple(r for _, r in rs) for t, rs in by_type.items()}
        index._by_name = None  # built at the first lookup by name
        index._releases = None
        return index

    def types(self) -> Iterable[str]:
        """The types registered, in the order of their first registration."""
        return self._by_type.keys()

    def of_type(self, *types: str) -> tuple[Registration, ...]:
        """The registrations of these types, in plan order."""
        if len(types) == 1:
            return self._by_type.get(types[0], ())
        found = [(i, r) for t in dict.fromkeys(types) for i, r in self._positions.get(t, ())]
        return tuple(r for _, r in sorted(found, key=lambda pair: pair[0]))

    def named(self, type_: str, namespace: Any, name: Any) -> tuple[Registration, ...]:
        """Kubernetes objects of ``type_`` whose metadata has this namespace and name (None: the field is absent)."""
        if self._by_name is None:
            self._by_name = {}
            for t, regs in self._by_type.items():
                for r in regs if t.startswith("kubernetes:") else ():
                    meta = r.inputs.get("metadata") or {}
                    key = (t, _key(meta.get("namespace")), _key(meta.get("name")))
                    self._by_name.setdefault(key, []).append(r)
        return tuple(self._by_name.get((type_, _key(namespace), _key(name)), ()))

    def release_names(self) -> frozenset[str]:
        """The names of the Helm releases the plan installs."""
        if self._releases is None:
            self._releases = frozenset(r.inputs.get("name") for r in self.of_type(HELM_RELEASE))
        return self._releases


def _key(value: Any) -> Any:
    """A metadata field as a dictionary key: strings and None as they are, anything else (an unknown output as a
    dict) tagged with its repr, which no string lookup matches, as no string equals it."""
    return value if value is None or isinstance(value, str) else ("repr", repr(value))


def index(regs: Sequence[Registration]) -> RegistrationIndex:
    """``regs`` indexed: the same object when it already is an index."""
    return regs if isinstance(regs, RegistrationIndex) else RegistrationIndex(regs)
