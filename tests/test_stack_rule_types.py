"""A stack rule that declares its types is handed only the resources of those types (policies.library.hosting:
the SDK deserializes every resource it is given once per stack policy, so the router narrows the request). Such a
rule must therefore read nothing of a resource of any other type, or it judges less when served than the SDK's own
servicer would. Checked on a stack holding one resource of every type any rule names, whatever the shipped stacks
hold (a rule that forgets a type its check reads fails here even where every stack is compliant)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pulumi_policy import PolicyResource

from policies.library.packs import PACKS
from policies.library.rule import StackRule

LIBRARY = Path(__file__).resolve().parents[1] / "policies" / "library"
RULES = {rule.name: rule for pack in PACKS.values() for rule in pack.rules()}
TYPED = sorted(name for name, rule in RULES.items() if isinstance(rule, StackRule) and rule.types)
# Every type token written anywhere in the library's source: whatever a check could look for.
EVERY_TYPE = sorted(
    {
        token
        for source in LIBRARY.rglob("*.py")
        for token in re.findall(r"[\"']((?:aws|alicloud|kubernetes):[\w./-]+:\w+)[\"']", source.read_text())
    }
)


class Watched(PolicyResource):
    """A PolicyResource that records the type of every resource whose properties, links or name were read."""

    read: set[str] = set()

    def __getattribute__(self, attribute):
        if attribute not in ("resource_type", "__class__", "__dict__") and not attribute.startswith("__"):
            Watched.read.add(object.__getattribute__(self, "resource_type"))
        return super().__getattribute__(attribute)


def one_of_each() -> list[PolicyResource]:
    return [
        Watched(type_, {}, f"urn:pulumi:test::test::{type_}::r{i}", f"r{i}", None, None, None, [], {})
        for i, type_ in enumerate(EVERY_TYPE)
    ]


def test_some_stack_rules_declare_their_types():
    assert len(TYPED) >= 20 and len(EVERY_TYPE) > 100


@pytest.mark.parametrize("name", TYPED)
def test_a_typed_stack_rule_reads_only_resources_of_its_types(name):
    rule = RULES[name]
    Watched.read = set()
    list(rule.check(one_of_each(), rule.settings(None)))
    assert Watched.read - set(rule.types) == set(), f"{name} reads types it does not declare"
