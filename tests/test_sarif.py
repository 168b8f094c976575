"""Issue #27, item 6: `plan` and `diff` findings as SARIF 2.1.0, valid against the published schema.

The schema is the OASIS one kept in tests/data/sarif (SOURCE.md says where from). The CLI's main runs in this
process (tests/conftest.py run_cli) from the repository root, as a workflow runs it, so stack-file URIs are
repository-relative.
"""

import contextlib
import json
from pathlib import Path

import jsonschema
import pytest

from blueprints.stackconfig import ROOT, STACKS_DIR, available_stacks
from conftest import run_cli, shipped_plan

SCHEMA = json.loads((ROOT / "tests/data/sarif/sarif-schema-2.1.0.json").read_text())
TEST_STACKS = ROOT / "tests/data/stacks"


def sarif(*argv: str, expect=(0, 1)) -> dict:
    with contextlib.chdir(ROOT):
        result = run_cli(*argv, "--format", "sarif")
    assert result.returncode in expect, result.stderr
    doc = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(doc)  # the schema declares draft-04
    return doc


@pytest.fixture(scope="module")
def shipped():
    """`plan --all-stacks --format sarif`, the CLI planning each shipped stack through the plans this test process
    shares (tests/conftest.py shipped_plan: the same make_plan, computed once): what this module checks is the SARIF
    the CLI writes of them; tests/test_all_stacks.py plans --all-stacks afresh and compares."""

    def shared(stack, stacks_dir, packs=None, pack_config_paths=None):
        assert packs is None and not pack_config_paths and Path(stacks_dir) == STACKS_DIR
        return shipped_plan(stack)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("blueprints.offline.plan.make_plan", shared)
        return sarif("plan", "--all-stacks")


def test_every_shipped_stack_is_valid_sarif_with_its_findings(shipped):
    [run] = shipped["runs"]
    assert shipped["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "gpu-cluster-blueprints"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    # every shipped stack has at least one finding or readiness gap (the private-API warning at least)
    assert uris == {f"stacks/Pulumi.{s}.yaml" for s in available_stacks()}
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note") and result["message"]["text"]


def test_the_noncompliant_stack_gives_errors_located_at_the_field_to_fix():
    doc = sarif("plan", "--stack", "noncompliant-gdpr", "--stacks-dir", str(TEST_STACKS), expect=(1,))
    results = doc["runs"][0]["results"]
    errors = [r for r in results if r["level"] == "error"]
    assert errors, "a non-compliant stack has mandatory findings"
    source = "tests/data/stacks/Pulumi.noncompliant-gdpr.yaml"
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == source for r in results)
    lines = (TEST_STACKS / "Pulumi.noncompliant-gdpr.yaml").read_text().splitlines()
    located = [r for r in results if "region" in r["locations"][0]["physicalLocation"]]
    assert located, "findings whose fix is a stack-file field point at its line"
    for r in located:
        member = next(
            loc["fullyQualifiedName"] for loc in r["locations"][0]["logicalLocations"] if loc["kind"] == "member"
        )
        line = lines[r["locations"][0]["physicalLocation"]["region"]["startLine"] - 1]
        # the line holds the deepest part of the field the file has (or the cluster key itself)
        parts = [p for p in member.split(".")[1:] if not p.startswith("<")]
        assert any(line.strip().startswith(f"{p}:") for p in parts + ["gpu-cluster-blueprints:cluster"]), (member, line)


def test_diff_sarif_is_valid_and_carries_the_heads_findings(tmp_path):
    head = tmp_path / "head.json"
    with contextlib.chdir(ROOT):
        planned = run_cli(
            "plan",
            "--stack",
            "noncompliant-gdpr",
            "--stacks-dir",
            str(TEST_STACKS),
            "--format",
            "json",
            "--output",
            str(head),
        )
    assert planned.returncode == 1, planned.stderr
    doc = sarif("diff", str(head), str(head), expect=(1,))
    results = doc["runs"][0]["results"]
    findings = json.loads(head.read_text())["findings"]
    assert sorted(r["ruleId"] for r in results) == sorted(f["policy"] for f in findings)


def test_sarif_levels_follow_enforcement():
    from blueprints.offline.sarif import SarifLog

    log = SarifLog("0")
    finding = {"policy": "p", "message": "m", "description": "d"}
    log.add_stack(
        "s",
        Path("stacks/Pulumi.s.yaml"),
        [dict(finding, enforcementLevel="mandatory"), dict(finding, policy="q", enforcementLevel="advisory")],
        [{"check": "c", "level": "blocking", "message": "m", "fix": "f", "resource": "s"}],
    )
    levels = {r["ruleId"]: r["level"] for r in log.to_json()["runs"][0]["results"]}
    assert levels == {"p": "error", "q": "warning", "readiness/c": "error"}
