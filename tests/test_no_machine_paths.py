"""No committed file names a path on one machine (a checkout, a home folder, a scratch copy): what works here must
work on a fresh clone. Paths the code itself uses (inside a container image, a script's default on the node it
runs on) and documented examples are allowed one by one below, each with its reason."""

import re
import subprocess

import pytest

from blueprints.stackconfig import ROOT

# An absolute path starting at a word boundary (not `tools/.deb/root/usr`): a workspace or home folder, macOS's
# per-user temp folder, a Windows drive, or a scratch folder in /tmp.
ROOTS = ("work", "home", "root", "Users", "private/var", "var/folders")
MACHINE_PATH = re.compile(
    rf"(?<![\w.~\\/-])(?:/(?:{'|'.join(ROOTS)})/|[A-Z]:\\{{1,2}}[A-Za-z])[^\s\"'`)\],;]*"
    r"|(?<![\w.~\\-])/tmp/[A-Za-z][^\s\"'`)\],;]*"
)
# file -> {path as written: why it is not a machine path}
ALLOWED = {
    "acceptance/fabric_check.py": {"/tmp/nccl/*.log": "default NCCL log glob inside the fabric check's pod"},
    "components/kubernetes/fabric.py": {
        "/tmp/nccl": "folder created inside the fabric check's container",
        "/tmp/report.json": "report written inside the fabric check's container",
        "/tmp/nccl/%h.%p.log": "NCCL_DEBUG_FILE inside the container",
    },
    "components/kubernetes/acceptance.py": {"/tmp/report.json": "report written inside the acceptance container"},
    "examples/first-training-job/train.py": {"/tmp/checkpoints": "default checkpoint URI (file://) of a local dry run"},
    "examples/first-training-job/README.md": {"/tmp/ckpt": "documented local dry-run command (file:// URI)"},
    "benchmarks/plan_time.py": {"/tmp/base": "documented example: where to put a worktree of the older commit"},
    "benchmarks/versus_checkov.py": {"/tmp/checkov-venv": "the script's documented default (tempfile.gettempdir())"},
    "docs/benchmarks.md": {"/tmp/base": "documented example command (a worktree of the older commit)"},
}


def _machine_paths(text: str) -> list[str]:
    return [m.group(0) for m in MACHINE_PATH.finditer(text)]


def _committed_files() -> list[str]:
    run = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [name for name in run.stdout.decode().split("\0") if name]


def test_the_pattern_finds_machine_paths_and_nothing_else():
    home, work, drive = "/" + "home/alice/src", "/" + "work/main/catalog/x.yaml", "C:" + "\\Users\\alice"
    scratch, mac = "/" + "tmp/ruffscratch", "/" + "var/folders/xy/T/tmp1"
    text = f"a {home} b '{work}' ({drive}) x={scratch} {mac}"
    assert _machine_paths(text) == [home, work, drive, scratch, mac]
    assert _machine_paths("cp tools/.deb/root/usr/bin/promtool $@; see a/tmp/b and /tmp or ./work/x") == []


@pytest.mark.parametrize("name, text", [(n, p) for n, paths in ALLOWED.items() for p in paths])
def test_every_allowed_path_is_still_there(name, text):
    """An allowance whose path is gone is removed, not kept: the list stays exactly what the code does."""
    assert text in (ROOT / name).read_text(encoding="utf-8")


def test_no_committed_file_names_a_machine_path():
    own = "tests/" + __name__.rsplit(".", 1)[-1] + ".py"
    allowed_here = {p for paths in ALLOWED.values() for p in paths}  # this file spells the allowed ones
    found = []
    for name in _committed_files():
        data = (ROOT / name).read_bytes() if (ROOT / name).is_file() else b""
        if b"\0" in data:
            continue  # binary
        allowed = allowed_here if name == own else set(ALLOWED.get(name, ()))
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            found += [f"{name}:{number}: {p}" for p in _machine_paths(line) if p not in allowed]
    assert not found, "machine paths in committed files:\n" + "\n".join(found)
