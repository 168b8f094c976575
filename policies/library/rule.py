"""What a rule is: metadata a reviewer needs, plus a check that yields violation messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from pulumi_policy import PolicyResource, ResourceValidationArgs

FRAMEWORKS = ("baseline", "hipaa", "gdpr", "mlps", "cost")

# A resource check gets the resource's properties (the SDK's proxy), the rule's config with
# defaults filled in, and the SDK's args (provider, name); it yields what is wrong.
ResourceCheck = Callable[[Mapping[str, Any], Mapping[str, Any], ResourceValidationArgs], Iterable[str]]
# A stack check yields (message, urn or None for the stack as a whole).
StackCheck = Callable[[Sequence[PolicyResource], Mapping[str, Any]], Iterable[tuple[str, Optional[str]]]]


LEVELS = ("advisory", "mandatory")


@dataclass(frozen=True, kw_only=True)
class Rule:
    description: str
    severity: str  # low | medium | high | critical
    references: Mapping[str, str]  # framework -> the clause or control it implements
    remediation: str
    url: str
    config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # JSON-schema properties with defaults
    # Mandatory findings fail the plan; advisory ones are reported for a person to weigh.
    level: str = "mandatory"
    # Set by the registry from the module path (registry.rule_name); a rule file leaves it out.
    name: str = ""

    def __post_init__(self) -> None:
        unknown = set(self.references) - set(FRAMEWORKS)
        if unknown or not self.references:
            raise ValueError(f"{self.name}: references must name frameworks from {FRAMEWORKS}, got {sorted(unknown)}")
        if self.level not in LEVELS:
            raise ValueError(f"{self.name}: level {self.level!r}, not one of {LEVELS}")
        if self.severity not in ("low", "medium", "high", "critical"):
            raise ValueError(f"{self.name}: severity {self.severity!r}")
        for key, schema in self.config.items():
            if "default" not in schema:
                raise ValueError(f"{self.name}: config {key!r} needs a default")

    def settings(self, given: Optional[Mapping[str, Any]]) -> dict[str, Any]:
        """The rule's config: schema defaults, overridden by what the pack or user configured."""
        values = {k: s["default"] for k, s in self.config.items()}
        values.update({k: v for k, v in (given or {}).items() if k in self.config})
        return values


@dataclass(frozen=True, kw_only=True)
class ResourceRule(Rule):
    types: tuple[str, ...] = ()
    check: Optional[ResourceCheck] = None


@dataclass(frozen=True, kw_only=True)
class StackRule(Rule):
    check: Optional[StackCheck] = None
    # The resource types the check reads; the pack then hands it only those (the SDK deserializes every
    # resource it is given once per stack policy). Empty: every resource of the stack.
    types: tuple[str, ...] = ()
