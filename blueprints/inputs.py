"""Every file the CLI reads is read through here: bounded before it is parsed (issue #36, item 2).

A regular file larger than its cap is refused from its size, before a byte is read, and the read stops at the cap
(a file that grows while it is read is refused too). Devices (/dev/zero, /dev/urandom, a terminal) are refused
without reading: none of them is a file a user means. A pipe or FIFO (`diff <(...) <(...)`, `/dev/stdin` in a
pipeline) is read as it arrives, up to the cap, and refused when its writer sends nothing for IDLE_SECONDS, so an
endless or a silent stream ends in one line, in bounded time and memory. Failures are BlueprintErrors naming the
file: one line, exit 2.
"""

from __future__ import annotations

import json
import os
import re
import select
import stat
from itertools import accumulate
from pathlib import Path
from typing import Any

from .errors import BlueprintError

KiB, MiB = 1024, 1024 * 1024
# Caps, each well above what the project writes: a plan of the largest shipped stack is ~0.6 MiB and an
# --all-stacks bundle of the nine shipped stacks ~4.6 MiB (2026-11-27).
PLAN_JSON_BYTES = 64 * MiB
PACK_CONFIG_BYTES = 1 * MiB  # `policy-config` writes a few KiB per pack
USAGE_HISTORY_BYTES = 8 * MiB  # one row per shape and month: ~40 bytes a row
CHANGED_FILES_BYTES = 4 * MiB  # one path a line
# A silent pipe: how long to wait for its next bytes (a plan feeding `diff <(plan ...)` writes within seconds).
IDLE_SECONDS = 60.0
# JSON nesting: the shipped stacks' plans nest 22 levels (resource inputs included); Python's json and every
# recursive walk of the result would fail near 1,000.
MAX_JSON_DEPTH = 100


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bounded(path: Path | str, cap: int, where: str | None = None, what: str = "file") -> bytes:
    """The bytes of ``path``, at most ``cap``; a BlueprintError naming ``where`` (the path) otherwise."""
    where = where or str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise BlueprintError(where, f"no such file; pass a {what}") from None
    except OSError as error:
        raise BlueprintError(where, f"cannot read it: {error.strerror}") from None
    fifo = stat.S_ISFIFO(info.st_mode)
    if not (stat.S_ISREG(info.st_mode) or fifo):
        raise BlueprintError(where, f"is {_kind(info.st_mode)}; pass a {what}: a regular file or a pipe")
    if not fifo and info.st_size > cap:
        raise BlueprintError(where, f"{info.st_size} bytes; a {what} may have at most {cap}")
    try:
        fd = os.open(path, os.O_RDONLY | (os.O_NONBLOCK if fifo else 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise BlueprintError(where, f"cannot read it: {error.strerror}") from None
    try:
        data = _read_pipe(fd, cap, where) if fifo else _read_file(fd, cap, where)
    except OSError as error:
        raise BlueprintError(where, f"cannot read it: {error.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > cap:
        raise BlueprintError(where, f"more than {cap} bytes; a {what} may have at most {cap}")
    return data


def _read_file(fd: int, cap: int, where: str) -> bytes:
    chunks, size = [], 0
    while size <= cap:
        chunk = os.read(fd, min(MiB, cap + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _read_pipe(fd: int, cap: int, where: str) -> bytes:
    """A FIFO opened without blocking: poll for data (Linux reports no hang-up before a first writer), read what
    arrives, stop at the cap, at the end of the stream, or after IDLE_SECONDS of silence."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    chunks, size = [], 0
    while size <= cap:
        if not poller.poll(IDLE_SECONDS * 1000):
            raise BlueprintError(where, f"a pipe that sent nothing for {IDLE_SECONDS:g} s; pass a file")
        try:
            chunk = os.read(fd, min(MiB, cap + 1 - size))
        except BlockingIOError:
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_text(path: Path | str, cap: int, where: str | None = None, what: str = "file") -> str:
    """``read_bounded`` decoded as UTF-8 (a BOM-less text file), or one line saying it is not text."""
    data = read_bounded(path, cap, where, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BlueprintError(where or str(path), f"not UTF-8 text (byte {error.start}); pass a {what}") from None


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deep the arrays and objects of ``text`` nest, counted without recursion (strings skipped)."""
    skeleton = _NOT_BRACKETS.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, skeleton)), default=0)


def parse_json(text: str, where: str, what: str) -> Any:
    """JSON within MAX_JSON_DEPTH, or one line naming the file and what is wrong."""
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise BlueprintError(where, f"nested {depth} levels deep; a {what} nests at most {MAX_JSON_DEPTH}")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as error:
        raise BlueprintError(where, f"not JSON ({error}); pass a {what}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
