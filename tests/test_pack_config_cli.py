"""Issue 23 item 11: the HIPAA pack judges billing configuration as holding no PHI, so a HIPAA stack can activate
its cost allocation tag; and `plan` takes `--policy-pack-config` files as `pulumi preview` does."""

from __future__ import annotations

import json

import pytest

from blueprints.offline.plan import make_plan
from conftest import shipped_cluster, write_stack
from test_bad_input import assert_one_line, run_cli, variant

RULE = "stack-hipaa-eligible-services"


def _tagged(c):
    c.setdefault("budget", {})["activateCostAllocationTag"] = True


def test_hipaa_stack_with_the_cost_allocation_tag_exits_0(capsys, tmp_path, monkeypatch):
    argv = variant(tmp_path, _tagged, "enterprise-h100")
    code, out, _ = run_cli(capsys, *argv, "--format", "json")
    plan = json.loads(out)
    assert "hipaa" in plan["policyPacks"] and code == 0
    assert any(r["type"] == "aws:costexplorer/costAllocationTag:CostAllocationTag" for r in plan["resources"])
    assert not [f for f in plan["findings"] if f["policy"] == RULE]
    assert not [f for f in plan["readiness"] if f["check"] == "budget-tag"]  # the readiness fix holds too
    # the rule as it was (billing configuration not accepted): a mandatory finding and exit 1, for good
    from policies.library.stack import hipaa_eligible_services as rule

    monkeypatch.setattr(rule, "CONFIGURATION_ONLY", ("iam", "budgets", "organizations"))
    code, out, _ = run_cli(capsys, *argv, "--format", "json")
    [finding] = [f for f in json.loads(out)["findings"] if f["policy"] == RULE]
    assert "costexplorer" in finding["message"] and code == 1


def _stack(tmp_path, days=180):
    cluster = shipped_cluster("research-a100")
    cluster["encryption"] = {"keyRotationDays": days}
    write_stack(tmp_path, "rot", cluster)
    return ["plan", "--stack", "rot", "--stacks-dir", str(tmp_path)]


def test_a_pack_config_file_configures_the_pack_it_is_named_after(capsys, tmp_path):
    assert run_cli(capsys, *_stack(tmp_path))[0] == 1  # 180 days: the baseline rule's default maximum is 90
    config = tmp_path / "baseline.json"
    config.write_text(json.dumps({"aws-kms-key-rotation-enabled": {"maxRotationDays": 180}}))
    assert run_cli(capsys, *_stack(tmp_path), "--policy-pack-config", str(config))[0] == 0
    # a level alone, and "all", as the Pulumi CLI reads them
    config.write_text(json.dumps({"aws-kms-key-rotation-enabled": "advisory"}))
    plan = make_plan("rot", tmp_path, pack_config_paths=[config])
    [finding] = [f for f in plan.findings if f["policy"] == "aws-kms-key-rotation-enabled"]
    assert finding["enforcementLevel"] == "advisory" and plan.exit_code == 0
    config.write_text(json.dumps({"all": "disabled"}))
    assert not make_plan("rot", tmp_path, pack_config_paths=[config]).findings
    # a file for a pack this stack does not run (one set of files for --all-stacks) changes nothing here
    other = tmp_path / "hipaa.json"
    other.write_text(json.dumps({"all": "disabled"}))
    assert make_plan("rot", tmp_path, pack_config_paths=[other]).exit_code == 1


def test_with_policy_pack_the_nth_file_configures_the_nth_pack(capsys, tmp_path):
    config = tmp_path / "anything.json"
    config.write_text(json.dumps({"aws-kms-key-rotation-enabled": {"maxRotationDays": 365}}))
    argv = _stack(tmp_path)
    assert run_cli(capsys, *argv, "--policy-pack", "baseline", "--policy-pack-config", str(config))[0] == 0
    code, _, err = run_cli(
        capsys, *argv, "--policy-pack", "baseline", "--policy-pack", "cost", "--policy-pack-config", str(config)
    )
    assert_one_line(code, err, "--policy-pack-config", "must be specified for each --policy-pack")


@pytest.mark.parametrize(
    "name,content,fragments",
    [
        ("baseline.json", "{not json", ("baseline.json", "not JSON")),
        ("baseline.json", '{"aws-kms-key-rotation-enabled": "sometimes"}', ("'sometimes' is not one of",)),
        ("baseline.json", '{"no-such-policy": {}}', ("no policy no-such-policy in this pack",)),
        ("nosuchpack.json", "{}", ("names no pack (baseline, cost",)),
    ],
)
def test_a_bad_pack_config_is_one_line(capsys, tmp_path, name, content, fragments):
    config = tmp_path / name
    config.write_text(content)
    code, _, err = run_cli(capsys, *_stack(tmp_path), "--policy-pack-config", str(config))
    assert_one_line(code, err, *fragments)
