"""Every rule, judged through its pack's analyzer process: a compliant and a violating fixture each."""

from __future__ import annotations

import pytest

from policies.library.registry import all_rules, rule_modules

from .harness import STACK, case_file, load_case, pack_for, registrations

RULES = list(zip(rule_modules(), all_rules()))


def _variants(kind: str):
    for module, rule in RULES:
        if not case_file(module).is_file():
            continue
        for index, variant in enumerate(load_case(module)[kind]):
            yield pytest.param(module, rule, variant, id=f"{rule.name}-{index}")


def _judge(pack_sessions, module, rule, variant):
    case = load_case(module)
    config = {rule.name: variant.get("config", case.get("config", {}))}
    session = pack_sessions(pack_for(rule, {**case, **variant}))
    return [f for f in session.judge(STACK, registrations(variant["resources"]), config) if f["policy"] == rule.name]


@pytest.mark.parametrize("module", [m for m, _ in RULES], ids=[r.name for _, r in RULES])
def test_every_rule_has_fixtures_at_its_mirrored_path(module):
    case = load_case(module)
    assert case["compliant"] and case["violating"], f"{case_file(module)} needs compliant and violating variants"


@pytest.mark.parametrize("module, rule, variant", list(_variants("compliant")))
def test_compliant_fixture_passes(pack_sessions, module, rule, variant):
    assert _judge(pack_sessions, module, rule, variant) == []


@pytest.mark.parametrize("module, rule, variant", list(_variants("violating")))
def test_violating_fixture_is_reported(pack_sessions, module, rule, variant):
    findings = _judge(pack_sessions, module, rule, variant)
    assert findings, f"{rule.name} did not fire"
    assert any(variant["expect"] in f["message"] for f in findings), [f["message"] for f in findings]
    assert all(f["enforcementLevel"] == rule.level and f["severity"] == rule.severity for f in findings)
    assert all(f["remediation"] == rule.remediation and f["framework"]["reference"] for f in findings)
