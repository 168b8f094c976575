"""Bad input: one line naming the field and what is allowed, exit 2, no traceback, nothing half-written."""

import subprocess
import sys

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blueprints.cli import main
from blueprints.stackconfig import ROOT
from conftest import shipped_cluster, write_stack


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line(code, err, *fragments):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0]


def variant(tmp_path, mutate, base="research-a100"):
    cluster = shipped_cluster(base)
    mutate(cluster)
    write_stack(tmp_path, "bad", cluster)
    return ["plan", "--stack", "bad", "--stacks-dir", str(tmp_path)]


def test_unknown_stack_lists_the_stacks(capsys):
    code, _, err = run_cli(capsys, "plan", "--stack", "no-such-stack")
    assert_one_line(code, err, "unknown stack 'no-such-stack'", "research-a100")


def test_malformed_yaml_names_the_line(capsys, tmp_path):
    (tmp_path / "Pulumi.bad.yaml").write_text("config:\n  gpu-cluster-blueprints:cluster: {cloud: aws\n   region: [\n")
    code, _, err = run_cli(capsys, "plan", "--stack", "bad", "--stacks-dir", str(tmp_path))
    assert_one_line(code, err, "malformed YAML at line")


@pytest.mark.parametrize(
    "mutate, fragments",
    [
        (
            lambda c: c.setdefault("nodeGroups", {}).update({"gpu": {"gpuModel": "MI300X"}}),
            ("gpuModel", "unknown GPU model 'MI300X'", "H100"),
        ),
        (
            lambda c: c.setdefault("nodeGroups", {}).update({"gpu": {"gpusPerNode": 0}}),
            ("nodeGroups.gpu.gpusPerNode", "greater than 0"),
        ),
        (
            lambda c: c.setdefault("nodeGroups", {}).update({"gpu": {"maxNodes": -3}}),
            ("nodeGroups.gpu.maxNodes", "greater than 0"),
        ),
        (
            lambda c: c.setdefault("nodeGroups", {}).update({"gpu": {"gpusPerNode": 12}}),
            ("gpusPerNode", "shapes have 8"),
        ),
        (
            lambda c: (
                c.setdefault("nodeGroups", {}).update({"gpu": {"instanceType": "p4de.24xlarge"}})
                or c.update(region="eu-west-1")
            ),
            ("instanceType", "not sold in eu-west-1", "us-east-1"),
        ),
        (
            lambda c: c.setdefault("storage", {}).update({"parallelFs": {"sizeGib": 10000}}),
            ("multiple of 2400", "10000"),
        ),
        (lambda c: c.update(cloud="gcp"), ("cluster.cloud", "'aws' or 'alicloud'")),
        (lambda c: c.update(gpuz=1), ("unknown field; allowed here:", "nodeGroups")),
        (lambda c: c.update(preset="huge"), ("unknown preset 'huge'", "research")),
    ],
)
def test_each_kind_of_bad_field_is_one_clear_line(capsys, tmp_path, mutate, fragments):
    code, out, err = run_cli(capsys, *variant(tmp_path, mutate))
    assert out == ""
    assert_one_line(code, err, *fragments)


def test_failed_plan_leaves_no_output_file(capsys, tmp_path):
    target = tmp_path / "plan.json"
    argv = variant(tmp_path, lambda c: c.update(cloud="gcp")) + ["--output", str(target)]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and not target.exists() and list(tmp_path.glob(".plan.json*")) == []


def test_the_real_process_prints_one_line_and_exits_2():
    result = subprocess.run(
        [sys.executable, "-m", "blueprints", "plan", "--stack", "nope", "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
FIELDS = [
    "cloud",
    "region",
    "preset",
    "nodeGroups",
    "networking",
    "storage",
    "budget",
    "logging",
    "tags",
    "prices",
    "compliance",
    "environment",
    "kubernetesVersion",
]


@st.composite
def hostile_stack_files(draw):
    kind = draw(st.sampled_from(["text", "cluster", "mutated"]))
    if kind == "text":
        return draw(st.text(max_size=200))
    if kind == "cluster":
        return yaml.safe_dump({"config": {"gpu-cluster-blueprints:cluster": draw(json_values)}})
    cluster = shipped_cluster(draw(st.sampled_from(["startup-t4", "research-a100-aliyun"])))
    for _ in range(draw(st.integers(1, 3))):
        cluster[draw(st.sampled_from(FIELDS))] = draw(json_values)
    return yaml.safe_dump({"config": {"gpu-cluster-blueprints:cluster": cluster}})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=hostile_stack_files())
def test_hostile_stack_files_never_raise_a_traceback(capsys, tmp_path, document):
    (tmp_path / "Pulumi.fuzz.yaml").write_text(document)
    code, _, err = run_cli(capsys, "plan", "--stack", "fuzz", "--stacks-dir", str(tmp_path), "--format", "json")
    assert code in (0, 1, 2)
    if code == 2:  # every problem of the file, each on its own line naming the file
        lines = err.strip().splitlines()
        assert 1 <= len(lines) <= 21 and "Traceback" not in err
        assert all(line.startswith("error: ") and "Pulumi.fuzz.yaml: " in line for line in lines), err


def test_a_crash_in_the_program_is_exit_3_not_the_findings_code(monkeypatch, capsys):
    """1 means mandatory findings; a bug must not read as that."""
    from blueprints import cli
    from blueprints.offline import plan as plan_module

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(plan_module, "make_plan", broken)
    assert cli.main(["plan", "--stack", "startup-t4"]) == 3
    assert "exit 3" in capsys.readouterr().err
