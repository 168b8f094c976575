"""The registry finds rules by importing modules, whatever the assignment looks like, and names them by path."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from policies.library.registry import all_rules, discover, rule_modules, rule_name

RULE_TEXT = """
from policies.library.rule import ResourceRule, Rule

def check(props, config, args):
    yield from ()

RULE{annotation} = ResourceRule(
    description="A rule for the registry test.", severity="low", references={{"baseline": "test"}},
    remediation="None.", url="https://example.org/", types=("aws:s3/bucket:Bucket",), check=check)
"""


@pytest.fixture
def rule_package(tmp_path, monkeypatch):
    root = tmp_path / "registry_probe"
    (root / "aws" / "thing").mkdir(parents=True)
    (root / "aws" / "thing" / "annotated.py").write_text(textwrap.dedent(RULE_TEXT.format(annotation=": Rule")))
    (root / "aws" / "thing" / "plain.py").write_text(textwrap.dedent(RULE_TEXT.format(annotation="")))
    (root / "aws" / "thing" / "helper.py").write_text("RULE_COUNT = 3  # not a rule\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [m for m in sys.modules if m.startswith("registry_probe")]:
        del sys.modules[name]
    importlib.invalidate_caches()


def test_a_rule_declared_with_a_type_annotation_is_found(rule_package):
    found = dict(discover(rule_package, "registry_probe"))
    assert set(found) == {"registry_probe.aws.thing.annotated", "registry_probe.aws.thing.plain"}


def test_rule_names_are_module_paths():
    assert (
        rule_name("policies.library.aws.ec2.launch_template.imdsv2_required")
        == "aws-ec2-launch-template-imdsv2-required"
    )
    for module, rule in zip(rule_modules(), all_rules()):
        assert rule.name == rule_name(module)


def test_every_rule_file_in_the_library_is_loaded():
    """No rule file is skipped: each module under the rule folders that names RULE is registered."""
    from policies.library.registry import LIBRARY, RULE_DIRS

    files = {p for d in RULE_DIRS for p in (LIBRARY / d).rglob("*.py") if "RULE" in p.read_text()}
    loaded = {LIBRARY.joinpath(*m.split(".")[2:]).with_suffix(".py") for m in rule_modules()}
    assert files == loaded


def test_docs_catalogue_lists_every_rule_as_the_registry_has_it():
    from policies.library.catalogue import render
    from policies.library.registry import LIBRARY

    text = (LIBRARY.parents[1] / "docs" / "policies.md").read_text(encoding="utf-8")
    assert text == render(), "docs/policies.md is stale: python -m policies.library.catalogue > docs/policies.md"
    assert all(f"`{rule.name}`" in text for rule in all_rules())
