"""Issue #17, item 5: every subcommand's --help shows examples and exit codes; progress only on a TTY."""

import json
import os
import pty
import subprocess
import sys
import threading

import pytest

from blueprints import progress
from blueprints.cli import main
from blueprints.stackconfig import ROOT, STACKS_DIR


@pytest.mark.parametrize("command", ["plan", "diff", "ci-matrix", "policy-config", "schema"])
def test_every_subcommand_help_shows_examples_and_exit_codes(capsys, command):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "examples:\n  python -m blueprints " + command in out or f"examples:\n  git diff" in out
    assert "exit codes:" in out and "2  bad input" in out
    # 1 is a verdict (findings, a change that must not merge): only the commands that give one list it
    assert ("\n  1  the result blocks" in out) == (command in ("plan", "diff"))


def test_progress_is_silent_when_standard_error_is_not_a_terminal(capsys):
    assert not progress.enabled()  # pytest captures stderr
    assert list(progress.progress(["a", "b", "c"], "planning")) == ["a", "b", "c"]
    assert capsys.readouterr().err == ""


def test_all_stacks_shows_progress_on_a_terminal_and_keeps_stdout_clean(tmp_path):
    for stack in ("startup-t4", "startup-t4-aliyun"):
        (tmp_path / f"Pulumi.{stack}.yaml").write_text((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text())
    leader, follower = pty.openpty()  # standard error is a terminal, standard output a pipe
    shown = bytearray()

    def drain():  # the terminal must be read while the bar redraws, or the child blocks on it
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        run = subprocess.run([sys.executable, "-m", "blueprints", "plan", "--all-stacks", "--stacks-dir", str(tmp_path),
                              "--format", "json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=follower, timeout=300,
                             env=dict(os.environ, COLUMNS="100"))
    finally:
        os.close(follower)
        reader.join(timeout=10)
        os.close(leader)
    # the worst of the two: startup-t4-aliyun is flagged until its system shape has a price (conftest)
    assert run.returncode == 1
    assert [p["stack"] for p in json.loads(run.stdout)["plans"]] == ["startup-t4", "startup-t4-aliyun"]
    assert b"planning startup-t4" in bytes(shown)
