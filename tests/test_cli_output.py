"""Issue #27, item 1: `--output` never replaces what is not a regular file, and files get the user's umask.

Each case runs the real CLI in a child process, bounded in time as the hostile-input tests are, and checks
what is at the path afterwards: the same node (inode and type), nothing left beside it. The umask case runs the
CLI's `main` in this process under the umask instead: a child would add only its start-up.
"""

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from blueprints.stackconfig import ROOT

TIMEOUT = 180  # three plans in a row on a loaded machine


def run(*argv: str, umask: int = 0o022) -> subprocess.CompletedProcess:
    # `umask=` is applied by subprocess's C code between fork and exec; no Python runs in the child (see
    # conftest.blueprints_argv for why that matters).
    return subprocess.run(
        [sys.executable, "-m", "blueprints", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        umask=umask,
    )


def in_process(*argv: str, umask: int) -> int:
    """The CLI's `main` in this process under ``umask`` (process state, put back after): for the mode test a child
    process adds only its start-up (two plans and a schema per umask)."""
    from blueprints.cli import main

    previous = os.umask(umask)
    try:
        return main(list(argv))
    finally:
        os.umask(previous)


def one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    return line


def test_fifo_is_written_in_place_while_its_reader_waits(tmp_path):
    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)
    before = os.stat(fifo)
    received: list[bytes] = []

    def reader():
        with open(fifo, "rb") as handle:  # blocks until the CLI opens the FIFO for writing
            received.append(handle.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    result = run("schema", "--output", str(fifo))
    thread.join(timeout=TIMEOUT)
    assert not thread.is_alive(), "the reader still waits: the FIFO was not written"
    assert result.returncode == 0, result.stderr
    assert json.loads(received[0])["$schema"].startswith("https://json-schema.org/")
    after = os.stat(fifo)
    assert stat.S_ISFIFO(after.st_mode) and after.st_ino == before.st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.fifo"]


def null_device(tmp_path: Path) -> Path:
    """/dev/null itself, or where we may create device nodes (root) a twin of it in tmp_path.

    As root, a regression (renaming over the path) would replace the machine's own /dev/null with a regular
    file and break every process on it, so root tests a node with /dev/null's device number instead.
    """
    twin = tmp_path / "null"
    try:
        os.mknod(twin, stat.S_IFCHR | 0o666, os.stat("/dev/null").st_rdev)
    except (PermissionError, OSError):
        return Path("/dev/null")  # not root: /dev is not writable, so nothing can replace it
    return twin


def test_plan_to_a_null_device_leaves_the_device_alone(tmp_path):
    null = null_device(tmp_path)
    before = os.stat(null)
    result = run("plan", "--stack", "startup-t4", "--format", "json", "--output", str(null))
    assert result.returncode == 0, result.stderr
    after = os.stat(null)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino and after.st_rdev == before.st_rdev
    assert result.stdout == "" and sorted(p.name for p in tmp_path.iterdir()) == (
        ["null"] if null.parent == tmp_path else []
    )


def test_a_full_device_is_written_in_place_and_its_error_is_one_line(tmp_path):
    full = tmp_path / "full"
    try:
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # /dev/full: every write fails with ENOSPC
    except (PermissionError, OSError):
        pytest.skip("cannot create a device node here (needs CAP_MKNOD)")
    before = os.stat(full)
    line = one_line(run("schema", "--output", str(full)))
    assert line.startswith("error: --output: cannot write ") and "No space left on device" in line
    after = os.stat(full)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def test_a_socket_is_refused_with_one_line_and_kept(tmp_path):
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        before = os.stat(path)
        line = one_line(run("schema", "--output", str(path)))
        assert line == f"error: --output: {path} is a socket; name a regular file, a FIFO, a device or '-'"
        after = os.stat(path)
        assert stat.S_ISSOCK(after.st_mode) and after.st_ino == before.st_ino
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sock"]
    finally:
        server.close()


@pytest.mark.parametrize("target", ["-", "/dev/stdout"])
def test_dash_and_dev_stdout_write_to_standard_output(target):
    result = run("schema", "--output", target)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["title"]


def test_a_directory_is_refused_and_nothing_is_left_in_it(tmp_path):
    line = one_line(run("schema", "--output", str(tmp_path)))
    assert f"{tmp_path} is a directory" in line
    assert list(tmp_path.iterdir()) == []


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_plan_schema_and_policy_config_files_get_the_same_mode_from_the_umask(tmp_path, capsys, umask, expected):
    assert in_process("schema", "--output", str(tmp_path / "schema.json"), umask=umask) == 0
    assert in_process(
        "plan",
        "--stack",
        "startup-t4",
        "--format",
        "json",
        "--policy-pack",
        "none",
        "--output",
        str(tmp_path / "plan.json"),
        umask=umask,
    ) in (0, 1)
    folder = tmp_path / "policy-config"
    code = in_process("policy-config", "--stack", "startup-t4", "--output-dir", str(folder), umask=umask)
    assert code == 0, capsys.readouterr().err
    written = [tmp_path / "schema.json", tmp_path / "plan.json", *folder.iterdir()]
    assert len(written) > 2 and {p.name: mode(p) for p in written} == {p.name: expected for p in written}
    assert not [p for p in tmp_path.rglob(".*") if p.is_file()]  # no temporary file left behind


def test_a_regular_file_is_replaced_atomically_through_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert run("schema", "--output", str(link)).returncode == 0
    assert link.is_symlink() and json.loads(real.read_text())["title"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_policy_config_output_dir_naming_a_file_is_one_line_and_the_file_is_kept(tmp_path):
    existing = tmp_path / "taken"
    existing.write_text("keep me\n")
    line = one_line(run("policy-config", "--stack", "enterprise-h100", "--output-dir", str(existing)))
    assert line == f"error: --output-dir: {existing} exists and is not a directory; name a folder (it is created)"
    assert existing.read_text() == "keep me\n" and sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
