"""Where `--output` and `--output-dir` write: never replace what is not a regular file (issue #27, item 1).

A regular file (or a path not there yet) is written atomically: a temporary file beside it, given the mode
any other tool would create (0666 less the user's umask, not mkstemp's 0600), renamed into place. `-` and
`/dev/stdout` are standard output. A FIFO or a character device (a pipe a reader waits on, /dev/null) is
opened and written in place, as a shell's `>` would; renaming over it would replace the node and leave the
reader waiting. A socket cannot be opened for writing, so it is refused with one line.

Issue #36, item 1: `--output` never destroys what the user did not name as output. Before any work, a path
that is (same file: device and inode, or the same real path) one of the command's inputs is refused, and a
regular file the caller may not write is refused as a shell's `plan > ro.json` would refuse it, instead of
being replaced by the rename (which needs only the folder's permission).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

from .errors import BlueprintError

STDOUT_NAMES = ("-", "/dev/stdout")


def _umask() -> int:
    # The only portable way to read the umask is to set it; put it back at once (a CLI process, one thread).
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode a new file gets from open(): 0666 less the umask (what `plan > f` would give)."""
    return 0o666 & ~_umask()


def write_output(text: str, output: Optional[Path], option: str = "--output") -> None:
    """Write all of ``text`` to ``output`` (None, `-` or /dev/stdout: standard output), never replacing a node."""
    if output is None or str(output) in STDOUT_NAMES:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        info = os.stat(output)  # follows links: a link to /dev/null is a device
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise BlueprintError(option, f"cannot write {output}: {error.strerror}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise BlueprintError(option, f"{output} is a directory; name a file, for example {output}/plan.json")
    if info is not None and not stat.S_ISREG(info.st_mode):
        _write_in_place(text, output, info, option)
        return
    _write_atomically(text, output, option)


def check_output(output: Optional[Path], inputs: Sequence[tuple[str, Path]], option: str = "--output") -> None:
    """Refuse, before any work, an output that is one of ``inputs`` ((what, path) pairs) or that `>` could not
    write."""
    if output is None or str(output) in STDOUT_NAMES:
        return
    for what, path in inputs:
        if _same_file(output, path):
            raise BlueprintError(
                option, f"{output} is the {what} this command reads ({path}); name another file for the output"
            )
    try:
        info = os.stat(output)
    except OSError:
        info = None
    if info is not None and stat.S_ISDIR(info.st_mode):  # refused now, not after a stack was written (size)
        raise BlueprintError(option, f"{output} is a directory; name a file, for example {output}/plan.json")
    if info is None or stat.S_ISREG(info.st_mode):
        _check_writable(output, option)


def _same_file(output: Path, path: Path) -> bool:
    try:
        a, b = os.stat(output), os.stat(path)
    except OSError:  # not there (yet): only the same real path names the same file
        return os.path.realpath(output) == os.path.realpath(path)
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _check_writable(output: Path, option: str) -> None:
    """What `>` would judge: an existing file must open for writing (opened, not truncated); a new one needs a
    folder the caller may write in."""
    target = Path(os.path.realpath(output))
    if target.exists():
        try:
            os.close(os.open(target, os.O_WRONLY | getattr(os, "O_NOCTTY", 0)))
        except OSError as error:
            raise BlueprintError(option, f"cannot write {output}: {error.strerror}") from None
        return
    if not target.parent.is_dir():
        raise BlueprintError(option, f"directory {target.parent} does not exist")
    if not os.access(target.parent, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        raise BlueprintError(option, f"cannot write in {target.parent}: Permission denied")


def _write_in_place(text: str, output: Path, info: os.stat_result, option: str) -> None:
    if stat.S_ISSOCK(info.st_mode):
        raise BlueprintError(option, f"{output} is a socket; name a regular file, a FIFO, a device or '-'")
    try:
        # No O_CREAT, no O_TRUNC: the node stays what it is; a FIFO's open waits for its reader, as `>` does.
        fd = os.open(output, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise BlueprintError(option, f"cannot write {output}: {error.strerror}") from None


def _write_atomically(text: str, output: Path, option: str) -> None:
    target = Path(os.path.realpath(output))  # a link to a file: replace the file, keep the link
    _check_writable(output, option)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    except OSError as error:
        raise BlueprintError(option, f"cannot write in {target.parent}: {error.strerror}") from None
    try:
        os.fchmod(fd, file_mode())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        raise BlueprintError(option, f"cannot write {output}: {error.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_folder(folder: Path, option: str = "--output-dir") -> None:
    """Refuse with one line when something other than a folder is at the path (checked before any work)."""
    if os.path.lexists(folder) and not folder.is_dir():
        raise BlueprintError(option, f"{folder} exists and is not a directory; name a folder (it is created)")


def prepare_folder(folder: Path, option: str = "--output-dir") -> None:
    """Create ``folder`` (and parents) or refuse with one line when something else is at the path."""
    check_folder(folder, option)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BlueprintError(option, f"cannot create {folder}: {error.strerror}") from None
