"""Issue #17, item 3: findings say which stack-file field to edit, in text, Markdown and JSON alike."""

import json
from pathlib import Path

import pytest

from blueprints.offline.fixes import controls, fix_for
from blueprints.offline.render import render_json, render_markdown, render_text
from conftest import data_plan

STACKS = Path(__file__).resolve().parent / "data" / "stacks"
SOURCE = "stacks/Pulumi.noncompliant-gdpr.yaml"


@pytest.fixture(scope="module")
def plan():
    return data_plan("noncompliant-gdpr")


def by_policy(findings, policy):
    return [f for f in findings if f["policy"] == policy]


def test_json_findings_name_the_stack_file_field(plan):
    findings = json.loads(render_json(plan))["findings"]
    for retention in by_policy(findings, "aws-cloudwatch-log-group-retention"):
        assert retention["fix"] == {"field": "logging.retentionDays: 365", "in": SOURCE}
    [scale] = by_policy(findings, "stack-gpu-scale-to-zero")
    assert scale["fix"] == {"field": "nodeGroups.gpu.minNodes: 0", "in": SOURCE}
    [cost] = by_policy(findings, "stack-max-hourly-cost")
    assert cost["fix"]["field"].startswith("nodeGroups.<group>.desiredNodes")
    # a rule no field is known for keeps its remediation and says nothing it cannot back up
    assert all(f["fix"] is None for f in by_policy(findings, "data-store-processing-tags"))


def test_text_and_markdown_carry_the_field_and_name_the_framework_once(plan):
    text, markdown = render_text(plan), render_markdown(plan)
    assert f"edit: logging.retentionDays: 365  ({SOURCE})" in text
    assert f"`logging.retentionDays: 365` ({SOURCE})" in markdown
    assert "controls: GDPR Art. 44" in text
    assert "GDPR GDPR" not in text and "GDPR GDPR" not in markdown


def test_resources_outside_our_components_get_the_resource_input():
    finding = {
        "policy": "aws-cloudwatch-log-group-retention",
        "resourceType": "aws:cloudwatch/logGroup:LogGroup",
        "resourceName": "mine",
        "urn": "urn:pulumi:dev::their-project::aws:cloudwatch/logGroup:LogGroup::mine",
    }
    assert fix_for(finding, "dev", SOURCE) == {
        "field": "retentionInDays",
        "in": "resource input of aws:cloudwatch/logGroup:LogGroup",
    }
    ours = dict(finding, urn="urn:pulumi:dev::p::gpu-blueprints:aws:AuditTrail$aws:cloudwatch/logGroup:LogGroup::mine")
    assert fix_for(ours, "dev", SOURCE)["field"] == "logging.retentionDays: 365"


@pytest.mark.parametrize(
    "framework, shown",
    [
        ({"name": "GDPR", "reference": "GDPR Art. 44 (Chapter V transfers)"}, "GDPR Art. 44 (Chapter V transfers)"),
        ({"name": "HIPAA", "reference": "45 CFR 164.312(b)"}, "HIPAA 45 CFR 164.312(b)"),
    ],
)
def test_framework_names_are_not_repeated(framework, shown):
    assert controls(framework) == shown


def test_every_fix_names_a_rule_the_library_has():
    """Rule names come from their paths; a renamed rule must take its fix along."""
    from blueprints.offline.fixes import FIXES
    from policies.library.registry import all_rules

    assert set(FIXES) - {rule.name for rule in all_rules()} == set()
