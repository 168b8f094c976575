"""`make plan`: JSON alone on standard output, and the plan's real exit status said, not hidden.

GNU make exits 2 whenever a recipe fails (any status): the Makefile cannot pass 1 through, so it
names the status on standard error. These run make itself; `-o .venv/.installed` keeps make from
reinstalling the shared virtual environment (and `-o .venv/.runtime`, the runtime-only stamp
`make plan` may depend on instead).
"""

import json
import shutil
import subprocess

import pytest

from blueprints.stackconfig import ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.installed", "-o", ".venv/.runtime", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_make_plan_json_is_valid_json_on_stdout():
    result = make("plan", "STACK=startup-t4", "FORMAT=json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["stack"] == "startup-t4"  # no echoed command before the JSON


@pytest.mark.parametrize("status, meaning", [(1, "1 = mandatory findings"), (2, "2 = bad input")])
def test_make_plan_names_the_plans_exit_status(tmp_path, status, meaning):
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\necho '{{\"partial\": true}}'\nexit {status}\n")
    fake.chmod(0o755)
    result = make("plan", f"PY={fake}")
    assert result.returncode == 2  # GNU make's only failure status
    assert f"make plan: blueprints plan exited {status} (" in result.stderr and meaning in result.stderr
    assert result.stdout == '{"partial": true}\n'


def test_make_test_lints_and_checks_the_format_before_the_tests_and_make_fmt_applies_both():
    """CI runs `make test` (.ci/run): ruff's lint and format check come first, with the pinned ruff."""
    test = [line for line in make("-n", "test").stdout.splitlines() if line.startswith(".venv/bin/python -m ")]
    assert [line.split(" -m ", 1)[1] for line in test[-3:]] == [
        "ruff check .",
        "ruff format --check .",
        # two workers on the 2-core machine, whole files in collection order (long ones first; issue #42)
        "pytest -q -n 2 --dist loadfile --no-loadscope-reorder",
    ]
    serial = [line for line in make("-n", "test", "TEST_WORKERS=0").stdout.splitlines() if " -m pytest" in line]
    assert [line.split(" -m ", 1)[1].rstrip() for line in serial] == ["pytest -q"]
    fmt = make("-n", "fmt").stdout.splitlines()
    assert fmt[-2:] == [".venv/bin/python -m ruff check --fix .", ".venv/bin/python -m ruff format ."]
    assert "ruff==" in (ROOT / "requirements-dev.txt").read_text()
    assert "ruff" not in (ROOT / "requirements.txt").read_text()  # `make plan` stays light
