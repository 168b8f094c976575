"""Issue #17, item 5: every subcommand's --help shows examples and exit codes; progress only on a TTY."""

import json
import os

import pytest

from blueprints import progress
from blueprints.cli import main
from blueprints.stackconfig import STACKS_DIR
from conftest import run_on_terminal


@pytest.mark.parametrize("command", ["plan", "diff", "ci-matrix", "policy-config", "schema", "pin-images"])
def test_every_subcommand_help_shows_examples_and_exit_codes(capsys, command):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "examples:\n  python -m blueprints " + command in out or "examples:\n  git diff" in out
    assert "exit codes:" in out and "2  bad input" in out
    # 1 is a verdict (findings, a change that must not merge): only the commands that give one list it
    assert ("\n  1  the result blocks" in out) == (command in ("plan", "diff", "pin-images"))


def test_progress_is_silent_when_standard_error_is_not_a_terminal(capsys):
    assert not progress.enabled()  # pytest captures stderr
    assert list(progress.progress(["a", "b", "c"], "planning")) == ["a", "b", "c"]
    assert capsys.readouterr().err == ""


def test_all_stacks_shows_progress_on_a_terminal_and_keeps_stdout_clean(tmp_path):
    for stack in ("startup-t4", "startup-t4-aliyun"):
        (tmp_path / f"Pulumi.{stack}.yaml").write_text((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text())
    # standard error is a terminal, standard output a pipe
    run, shown = run_on_terminal(
        ["plan", "--all-stacks", "--stacks-dir", str(tmp_path), "--format", "json"],
        "stderr",
        dict(os.environ, COLUMNS="100"),
        timeout=300,
    )
    # the worst of the two: startup-t4-aliyun is flagged until its system shape has a price (conftest)
    assert run.returncode == 1
    assert [p["stack"] for p in json.loads(run.stdout)["plans"]] == ["startup-t4", "startup-t4-aliyun"]
    assert b"planning startup-t4" in bytes(shown)
