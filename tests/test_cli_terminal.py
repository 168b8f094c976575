"""Issue #27, item 6: colour on a terminal (off with NO_COLOR or when piped), tables that fit COLUMNS."""

import os
import subprocess
import sys

import pytest

from blueprints.stackconfig import ROOT
from conftest import run_on_terminal

TIMEOUT = 120
ESC = "\x1b["


def plan_on_a_terminal(env_extra: dict) -> str:
    """`plan` with standard output a pseudo-terminal, as a person runs it; what the terminal received."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")} | {"TERM": "xterm"} | env_extra
    result, shown = run_on_terminal(["plan", "-s", "startup-t4"], "stdout", env, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    return shown.decode("utf-8", "replace")


def test_a_terminal_gets_colour():
    shown = plan_on_a_terminal({})
    assert ESC in shown and "[warning]" in shown


def test_no_color_turns_it_off_on_a_terminal():
    shown = plan_on_a_terminal({"NO_COLOR": "1"})
    assert ESC not in shown and "[warning]" in shown


def test_a_pipe_gets_plain_text():
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm"}
    result = subprocess.run(
        [sys.executable, "-m", "blueprints", "plan", "-s", "startup-t4"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0 and ESC not in result.stdout and "[warning]" in result.stdout


@pytest.mark.parametrize("columns", [80, 120])
def test_the_size_table_fits_columns(columns):
    env = dict(os.environ, COLUMNS=str(columns))
    result = subprocess.run(
        [sys.executable, "-m", "blueprints", "size", "--params", "7B", "--tokens", "1T"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if "│" in line or "┃" in line]
    assert rows and max(len(line) for line in rows) <= columns
