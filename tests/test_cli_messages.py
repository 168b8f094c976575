"""Issue #27, item 5: one meaning per exit code, epilogs that fit their command, messages that say what is wrong.

Each refusal leaves nothing at its --output path. The CLI's `main` runs in this process (a child adds only its
start-up), except where the process is what is checked: a FIFO or device as the stack file (in a child with a
timeout, so a reader that blocked or read for ever fails instead of hanging the suite), `--version` and `--help`.
"""

import json
import os

import pytest

from blueprints.cli import EXIT_MEANINGS, main
from blueprints.offline.render import render_json
from blueprints.stackconfig import STACKS_DIR
from conftest import one_line, run_cli, run_cli_process, shipped_cluster, shipped_plan, write_stack


def plan_bad(tmp_path, *extra, runner=run_cli):
    out = tmp_path / "out" / "plan.json"
    out.parent.mkdir()
    result = runner("plan", "--stack", "bad", "--stacks-dir", str(tmp_path), "--output", str(out), *extra)
    assert not out.exists()
    return one_line(result)


@pytest.mark.parametrize(
    "make, kind",
    [
        (lambda p: p.mkdir(), "a directory"),
        (lambda p: os.mkfifo(p), "a FIFO (named pipe)"),
        (lambda p: p.symlink_to("/dev/zero"), "a device"),
    ],
)
def test_a_stack_file_that_is_not_a_regular_file_is_named_for_what_it_is(tmp_path, make, kind):
    make(tmp_path / "Pulumi.bad.yaml")
    assert plan_bad(tmp_path, runner=run_cli_process) == (
        f"error: {tmp_path.name}/Pulumi.bad.yaml: is {kind}, not a stack file; a stack file is a regular YAML file"
    )


@pytest.mark.parametrize("argv", [["--stack", "x"], ["--all-stacks"]])
def test_a_missing_stacks_dir_is_named(tmp_path, argv):
    missing = tmp_path / "nonexistent"
    line = one_line(run_cli("plan", *argv, "--stacks-dir", str(missing)))
    assert line == (
        f"error: --stacks-dir: {missing} is not a directory; name the folder that holds "
        "Pulumi.<stack>.yaml files (default: stacks/)"
    )


def test_a_valid_yaml_tag_is_named_not_called_malformed(tmp_path):
    text = (STACKS_DIR / "Pulumi.startup-t4.yaml").read_text().replace("region: us-east-1", "region: !Ref Region")
    (tmp_path / "Pulumi.bad.yaml").write_text(text)
    line = plan_bad(tmp_path)
    assert "malformed" not in line
    assert "the YAML tag !Ref at line" in line and "a stack file holds plain values" in line


def test_a_look_alike_letter_is_named_with_the_word_it_mimics(tmp_path):
    cluster = shipped_cluster("startup-t4")
    cluster["cloud"] = "\u0430ws"  # Cyrillic small a
    write_stack(tmp_path, "bad", cluster)
    line = plan_bad(tmp_path)
    assert line.endswith(
        "cluster.cloud: Input should be 'aws' or 'alicloud' (got 'аws'); did you mean aws? "
        "('аws' contains U+0430 CYRILLIC SMALL LETTER A, which only looks like ASCII)"
    )


def test_a_near_miss_gpu_model_gets_a_suggestion(tmp_path):
    cluster = shipped_cluster("startup-t4")
    cluster["nodeGroups"] = {"gpu": {"gpuModel": "h100", "gpusPerNode": 8}}
    write_stack(tmp_path, "bad", cluster)
    line = plan_bad(tmp_path)
    assert "cluster.nodeGroups.gpu.gpuModel: unknown GPU model 'h100' on aws" in line
    assert line.endswith("; did you mean H100?")


@pytest.mark.parametrize(
    "argv, line",
    [
        (["plan", "--stak", "research-a100"], "error: usage: unknown option --stak; did you mean --stack?"),
        (
            ["plan", "-s", "research-a100", "--fromat", "json"],
            "error: usage: unknown option --fromat; did you mean --format?",
        ),
        (
            ["policy-config", "-s", "x", "--output-dri", "d"],
            "error: usage: unknown option --output-dri; did you mean --output-dir?",
        ),
    ],
)
def test_a_mistyped_option_is_unknown_with_a_suggestion_not_a_missing_one(argv, line):
    assert one_line(run_cli(*argv)) == line


def test_version_and_short_stack():
    result = run_cli_process("--version")  # the process as a user starts it: its name in the version line
    assert result.returncode == 0 and result.stdout.startswith("python -m blueprints 0.")
    result = run_cli("plan", "-s", "startup-t4", "--format", "json", "--policy-pack", "none")
    assert result.returncode == 0 and json.loads(result.stdout)["stack"] == "startup-t4"


def test_each_epilog_lists_only_the_codes_its_command_returns():
    for command, codes in [
        ("plan", "0123"),
        ("diff", "0123"),
        ("schema", "023"),
        ("size", "023"),
        ("ci-matrix", "023"),
        ("policy-config", "023"),
        ("pin-images", "01234"),  # 1: --check found a difference; 4: a registry could not be read
    ]:
        text = run_cli_process(command, "--help").stdout  # help wraps to the width of a child's pipe
        listed = "".join(line.strip()[0] for line in text.split("exit codes:\n", 1)[1].splitlines() if line.strip())
        assert listed == codes, (command, text)
        assert "1 mandatory compliance findings" not in text or command == "plan"
    assert set(EXIT_MEANINGS) == {0, 1, 2, 3, 4}


def test_diff_exit_follows_its_own_verdict(tmp_path, capsys):
    """A head with mandatory findings: the comment says the check fails, so diff exits 1 (it exited 0).

    The CLI's `main` runs in this process (a child would add only its start-up); the clean plan is the suite's
    shared plan of startup-t4 as `--format json` writes it."""
    cluster = shipped_cluster("startup-t4")
    cluster["budget"]["monthlyLimitUsd"] = 100  # far over budget: the cost pack's mandatory rule fires
    write_stack(tmp_path, "over", cluster)
    head = tmp_path / "head.json"
    planned = main(["plan", "-s", "over", "--stacks-dir", str(tmp_path), "--format", "json", "--output", str(head)])
    assert planned == 1, capsys.readouterr().err
    comment = tmp_path / "comment.md"
    result = main(["diff", str(head), str(head), "--format", "markdown", "--output", str(comment)])
    assert "(the check fails)" in comment.read_text()
    assert result == 1, capsys.readouterr().err
    clean = tmp_path / "clean.json"
    clean.write_text(render_json(shipped_plan("startup-t4")))
    assert shipped_plan("startup-t4").exit_code == 0
    assert main(["diff", str(clean), str(clean)]) == 0
