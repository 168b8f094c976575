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
    """A PolicyResource that records the type of every resource whose properties, links or name were read (its type
    and URN are how a check tells resources apart)."""

    read: set[str] = set()

    def __getattribute__(self, attribute):
        if attribute not in ("resource_type", "urn", "__class__", "__dict__") and not attribute.startswith("__"):
            Watched.read.add(object.__getattribute__(self, "resource_type"))
        return super().__getattribute__(attribute)


class LinkedByName(dict):
    """property_dependencies linking each property to every resource whose type is named in it (``launchTemplate``:
    the LaunchTemplates, ``targetBucket``: the Buckets), so a check that follows a link is seen reading whatever
    type it leads to."""

    def __init__(self, stack: list[PolicyResource]):
        super().__init__()
        self.stack = stack

    def get(self, key, default=None):
        return [r for r in self.stack if r.resource_type.rsplit(":", 1)[-1].lower() in key.lower()]

    def __getitem__(self, key):
        return self.get(key)

    def __bool__(self):
        return True


def stack_of(types) -> list[PolicyResource]:
    """One resource of each type, linked among themselves only (as the SDK links only resources in the request)."""
    stack: list[PolicyResource] = []
    for type_ in types:
        name = f"r{EVERY_TYPE.index(type_)}"  # the same name and URN in every stack it is part of
        stack.append(
            Watched(
                type_, {}, f"urn:pulumi:test::test::{type_}::{name}", name, None, None, None, [], LinkedByName(stack)
            )
        )
    return stack


def test_some_stack_rules_declare_their_types():
    assert len(TYPED) >= 20 and len(EVERY_TYPE) > 100


@pytest.mark.parametrize("name", TYPED)
def test_a_typed_stack_rule_reads_only_resources_of_its_types(name):
    rule = RULES[name]
    Watched.read = set()
    everything = list(rule.check(stack_of(EVERY_TYPE), rule.settings(None)))
    assert Watched.read - set(rule.types) == set(), f"{name} reads types it does not declare"
    # and whether other types exist at all does not change what it finds (a check that asks "any AWS resource?")
    assert list(rule.check(stack_of([t for t in EVERY_TYPE if t in rule.types]), rule.settings(None))) == everything
