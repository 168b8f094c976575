"""The files the Pulumi CLI reads are in the shape it expects."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from blueprints.schema import stack_config_schema
from blueprints.stackconfig import ROOT, STACKS_DIR
from conftest import SHIPPED

PROJECT_SCHEMA = Path(__file__).with_name("data") / "pulumi-project.schema.json"  # its source: the .SOURCE.md beside it


def test_pulumi_yaml_validates_against_the_published_project_schema():
    schema = json.loads(PROJECT_SCHEMA.read_text())
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    jsonschema.validate(project, schema)
    assert project["stackConfigDir"] == "stacks"
    assert project["runtime"]["name"] == "python"
    assert project["runtime"]["options"]["virtualenv"] == ".venv"


def test_the_six_issue_stacks_ship():
    for stack in (
        "startup-t4",
        "research-a100",
        "enterprise-h100",
        "startup-t4-aliyun",
        "research-a100-aliyun",
        "enterprise-aliyun",
    ):
        assert stack in SHIPPED


@pytest.mark.parametrize("stack", SHIPPED)
def test_stack_files_validate_against_the_exported_config_schema(stack):
    document = yaml.safe_load((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text())
    jsonschema.Draft202012Validator(stack_config_schema()).validate(document)


def test_the_exported_schema_rejects_an_unknown_field_and_describes_every_field():
    schema = stack_config_schema()
    bad = {"config": {"gpu-cluster-blueprints:cluster": {"cloud": "aws", "gpuz": 3}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(bad)
    undocumented = [
        f"{model}.{name}"
        for model, body in schema["$defs"].items()
        for name, prop in body.get("properties", {}).items()
        if not prop.get("description")
    ]
    assert undocumented == []


def test_main_program_stays_a_few_lines():
    lines = [line for line in (ROOT / "__main__.py").read_text().splitlines() if line.strip()]
    assert len(lines) <= 12


def test_make_plan_installs_only_the_runtime_requirements():
    """On a fresh machine `make plan` creates the virtualenv from requirements.txt alone: no test toolchain,
    no PyTorch. (`make -n` prints the commands make would run, for a virtualenv that does not exist yet.)"""
    import subprocess

    commands = subprocess.run(
        ["make", "-n", "plan", "VENV=/nonexistent/venv"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    installs = [line for line in commands.splitlines() if "pip install" in line and " -r " in line]
    assert installs and all(line.split(" -r ")[1].split()[0] == "requirements.txt" for line in installs), installs
    runtime = (ROOT / "requirements.txt").read_text()
    assert "pytest" not in runtime and "torch" not in runtime and "-r " not in runtime


def test_local_toolchains_are_never_tracked():
    """.venv, node_modules and tools are built on each machine; a worktree that links them must not commit the links
    (a checkout would then replace the real folders with links to themselves)."""
    import subprocess

    tracked = subprocess.run(
        ["git", "ls-files", ".venv", "node_modules", "tools"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked == []
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", ".venv", "node_modules", "tools"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert ignored == [".venv", "node_modules", "tools"]
