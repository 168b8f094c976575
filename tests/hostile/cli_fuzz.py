"""Property-based tests of the CLI's contract with its user (issue #36, item 4), run as their own process.

Three generators: a valid stack file with one field mutated (wrong type, boundary, huge, unicode, tags, anchors and
aliases, deletion, unknown field), argument vectors for every subcommand, and plan JSON with one value mutated for
`diff`. For every example:

- the exit code is 0, 1 or 2: never 3 (a bug) and never a traceback;
- exit 2 prints exactly one line, `error: ...`, naming the file or the field (an option, `cluster.`, a path);
- it finishes within EXAMPLE_SECONDS (an alarm) and within the address-space limit the process runs under;
- no file in the working folder changes except the ones named as output (hashed before and after).

The CLI runs in this process (`blueprints.cli.main`), which sets RLIMIT_AS on itself first, as yaml_fuzz.py does:
a MemoryError anywhere is a failure, not a swapping machine. `pin-images` is left out: it asks public registries.

    python tests/hostile/cli_fuzz.py --profile ci              # the short run tests/test_fuzz.py starts
    python tests/hostile/cli_fuzz.py --seconds 600 --seed 42   # `make fuzz` (FUZZ_SECONDS, SEED)

The seed is printed first; a failure prints the falsifying example, which belongs in the @example list below.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import gc
import hashlib
import io
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("BLUEPRINTS_TODAY", "2026-11-24")

import yaml  # noqa: E402
from hypothesis import HealthCheck, Phase, example, given, settings  # noqa: E402
from hypothesis import seed as seed_of  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

MEMORY_LIMIT = 3 * 1024**3  # a plan in this process peaks near 1 GiB of address space (gRPC threads, the SDKs)
EXAMPLE_SECONDS = 60  # one plan is ~3 s on a quiet machine; a hang is what this catches
SHIPPED = ("startup-t4", "research-a100", "research-a100-aliyun", "startup-serving", "enterprise-aliyun")
CLUSTER = "gpu-cluster-blueprints:cluster"

settings.register_profile(
    "ci",  # part of the normal test suite: about a minute on a 2-core machine
    max_examples=15,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)
settings.register_profile(
    "long",  # `make fuzz`: rounds of these until the time is spent
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
)


class Hang(BaseException):
    """Raised by the alarm: not an Exception, so the CLI's own handler cannot turn it into exit 3."""


def _alarm(signum, frame):
    raise Hang(f"no answer within {EXAMPLE_SECONDS} s")


# --- the working folder, and what the CLI printed ---


class Workdir:
    """A folder with a copy of a shipped stack, a plan of it, a pack config, a usage history and odd nodes."""

    def __init__(self, base: Path, plan_text: str):
        self.path = base
        self.stacks = base / "stacks"
        self.stacks.mkdir()
        shutil.copy(ROOT / "stacks/Pulumi.startup-t4.yaml", self.stacks / "Pulumi.s.yaml")
        (base / "plan.json").write_text(plan_text)
        (base / "baseline.json").write_text('{"all": "advisory"}\n')
        rows = [f"2026-{m:02d},p4d.24xlarge,{100 * m}" for m in range(1, 7)]
        (base / "usage.csv").write_text("month,instance_type,gpu_hours\n" + "\n".join(rows) + "\n")
        rows[1] = "2026-02,p4d.24xlarge,1e308"  # the forecaster ran for minutes on it before issue #36
        (base / "usage-huge.csv").write_text("month,instance_type,gpu_hours\n" + "\n".join(rows) + "\n")
        (base / "changed.txt").write_text("stacks/Pulumi.startup-t4.yaml\n")
        (base / "adir").mkdir()
        os.mkfifo(base / "fifo")  # nobody writes: a reader must give up, not wait for ever
        self.outputs = base / "out"

    def hashes(self) -> dict[str, str]:
        out = {}
        for path in sorted(self.path.rglob("*")):
            if path.is_file() and not path.is_symlink() and self.outputs not in path.parents:
                out[str(path.relative_to(self.path))] = hashlib.sha256(path.read_bytes()).hexdigest()
        return out

    def fresh_outputs(self) -> None:
        shutil.rmtree(self.outputs, ignore_errors=True)
        self.outputs.mkdir()


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    from blueprints.cli import main

    out, err = io.StringIO(), io.StringIO()
    signal.alarm(EXAMPLE_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        signal.alarm(0)
    return code, out.getvalue(), err.getvalue()


def check_contract(argv: list[str], code: int, err: str, one_problem: bool = True) -> None:
    assert "Traceback" not in err, f"traceback for {argv!r}:\n{err[-3000:]}"
    assert code in (0, 1, 2), f"exit {code} for {argv!r}:\n{err[-3000:]}"
    if code != 2:
        return
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines and all(line.startswith("error: ") for line in lines), f"{argv!r}: {lines!r}"
    if one_problem:
        assert len(lines) == 1, f"exit 2 with {len(lines)} lines for {argv!r}: {lines!r}"
    for line in lines:
        assert _names_something(line, argv), f"{argv!r}: the line names no file or field: {line!r}"


def _names_something(line: str, argv: list[str]) -> bool:
    body = line.removeprefix("error: ")
    if body.startswith(("usage:", "--", "-s", "cluster.", "Pulumi.")) or "Pulumi." in body:
        return True
    names = {Path(a).name for a in argv if a and not a.startswith("-")} | {a for a in argv if a.startswith("--")}
    head = body.split(": ", 1)[0]
    return any(name and (name in head or head.endswith(name)) for name in names) or bool(re.match(r"^\S+: ", body))


def named_outputs(work: Workdir, argv: list[str]) -> set[str]:
    """The files `--output` names that are no other argument (and, for `plan`, no stack file it reads): those alone
    may change. `schema --output stacks/Pulumi.s.yaml` is the user's choice, as `schema > ...` would be."""
    argv = [_unabbreviated(argv[0], a) for a in argv]
    outputs = {os.path.realpath(b) for a, b in zip(argv, argv[1:]) if a == "--output"}
    others = {os.path.realpath(a) for a, b in zip([""] + argv, argv) if a != "--output" and not b.startswith("-")}
    ours = os.path.realpath(work.stacks)
    folders = [os.path.realpath(b) for a, b in zip(argv, argv[1:]) if a == "--stacks-dir"]
    reads_stacks = argv[0] == "plan" and (folders or [ours])[-1] == ours
    stacks = {os.path.realpath(p) for p in work.stacks.glob("*")} if reads_stacks else set()
    folders = [os.path.realpath(b) for a, b in zip(argv, argv[1:]) if a == "--output-dir"]  # policy-config
    if argv[0] == "size" and "--write-stack" in argv:  # the stack it writes, into its --stacks-dir
        at = argv.index("--write-stack") + 1
        name = argv[at] if at < len(argv) else ""
        outputs.add(os.path.realpath(Path(_last(argv, "--stacks-dir")) / f"Pulumi.{name}.yaml"))
    written = {p for p in outputs - others - stacks if p.startswith(str(work.path))}
    written |= {str(p) for f in folders for p in Path(f).rglob("*") if str(p).startswith(str(work.path))}
    return {str(Path(p).relative_to(work.path)) for p in written}


def _unabbreviated(command: str, token: str) -> str:
    """argparse takes a unique prefix of an option (the CLI keeps that): `policy-config --output x` is --output-dir."""
    whole = "--output-dir" if command == "policy-config" else "--output"
    return whole if len(token) > 4 and token.startswith("--") and whole.startswith(token) else token


def _last(argv: list[str], option: str) -> str:
    values = [b for a, b in zip(argv, argv[1:]) if a == option]
    return values[-1] if values else "."


def exercise(work: Workdir, argv: list[str], one_problem: bool = True) -> int:
    work.fresh_outputs()
    before = work.hashes()
    code, _, err = run_cli(argv)
    check_contract(argv, code, err, one_problem)
    after = work.hashes()
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    changed = [k for k in changed if k not in named_outputs(work, argv)]
    assert not changed, f"{argv!r} changed {changed} (only --output may change)"
    return code


# --- 1. the stack schema: a valid document, one field mutated ---

HOSTILE_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, -1, 2, 31, 32, 63, 64, 65535, 65536, 2**31, 2**63, -(2**63), 10**30]),
    st.sampled_from([0.5, -0.0, 1e308, -1e308, 1e-320, math.inf, -math.inf, math.nan]),
    st.sampled_from(["", " ", "x" * 2000, "1.35", "null", "~", "yes", "aws", "alicloud", "p4d.24xlarge", "0x10"]),
    st.text(max_size=40),
    st.lists(st.integers(-5, 5) | st.text(max_size=5), max_size=4),
    st.dictionaries(st.text(max_size=8), st.integers(-2, 2) | st.text(max_size=8), max_size=4),
)
TAGS = st.dictionaries(
    st.text(max_size=140) | st.sampled_from(["aws:x", "acs:x", "Name", "environment", ""]),
    st.text(max_size=300) | st.integers() | st.none(),
    max_size=60,
)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


def _schema_paths() -> list[tuple]:
    """Property paths the published stack schema names (fields a shipped stack may not set)."""
    from blueprints.schema import stack_config_schema

    schema = stack_config_schema()
    defs = schema["$defs"]
    cluster = schema["properties"]["config"]["properties"][CLUSTER]
    out: list[tuple] = []

    def walk(node: dict, prefix: tuple, depth: int) -> None:
        if "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        for option in node.get("anyOf", []):
            walk(option, prefix, depth)
        for key, sub in (node.get("properties") or {}).items():
            out.append((*prefix, key))
            if depth < 4:
                walk(sub, (*prefix, key), depth + 1)

    walk(cluster, (), 0)
    return sorted(set(out))


SCHEMA_PATHS: list[tuple] = []


def _set(document: dict, path: tuple, value: Any) -> None:
    node = document
    for key in path[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(key, {}) if not isinstance(node.get(key), (dict, list)) else node[key]
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return
        if not isinstance(node, (dict, list)):
            return
    last = path[-1]
    if isinstance(node, dict):
        node[last] = value
    elif isinstance(node, list) and isinstance(last, int) and last < len(node):
        node[last] = value


def _delete(document: dict, path: tuple) -> None:
    node: Any = document
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]


@st.composite
def mutated_stacks(draw) -> tuple[str, str]:
    """(stack file text, what was done): a shipped stack with one field changed."""
    stack = draw(st.sampled_from(SHIPPED))
    document = yaml.safe_load((ROOT / f"stacks/Pulumi.{stack}.yaml").read_text())
    cluster = document["config"][CLUSTER]
    kind = draw(st.sampled_from(["value", "schema", "delete", "unknown", "tags", "alias", "text"]))
    if kind == "value":
        path = draw(st.sampled_from(_paths(cluster)))
        _set(cluster, path, draw(HOSTILE_VALUES))
    elif kind == "schema":
        path = draw(st.sampled_from(SCHEMA_PATHS))
        _set(cluster, path, draw(HOSTILE_VALUES))
    elif kind == "delete":
        path = draw(st.sampled_from(_paths(cluster)))
        _delete(cluster, path)
    elif kind == "unknown":
        path = draw(st.sampled_from([p for p in _paths(cluster) if isinstance(_at(cluster, p), dict)] or [()]))
        _set(cluster, (*path, draw(st.text(min_size=1, max_size=12))), draw(HOSTILE_VALUES))
    elif kind == "tags":
        cluster["tags"] = draw(TAGS)
    text = yaml.safe_dump(document, allow_unicode=draw(st.booleans()))
    if kind == "alias":  # an anchor on one mapping, an alias to it elsewhere (merge key or plain)
        target = draw(st.sampled_from(["budget", "networking", "logging", "tags", "nodeGroups"]))
        text = text.replace(f"    {target}:", f"    {target}: &a", 1)
        use = draw(st.sampled_from(["    extra: *a\n", "    nodeGroups2: *a\n", "    budget:\n      <<: *a\n"]))
        text += use if "&a" in text else ""
    if kind == "text":  # raw YAML (a tag, a flow collection, an odd scalar) where a string is expected
        where = draw(st.sampled_from(["tags", "environment"]))
        cluster.pop(where, None)
        text = yaml.safe_dump(document)
        raw = draw(
            st.sampled_from(
                ["!!binary aGk=", "!!python/object:os.system x", "!custom x", "{a: [b", "&x [*x]", "2026-01-01"]
                + ["'\x00'", "!!set {a}"]
            )
        )
        line = f"tags: {{team: {raw}}}" if where == "tags" else f"environment: {raw}"
        text = text.replace(f"  {CLUSTER}:\n", f"  {CLUSTER}:\n    {line}\n", 1)
    return text, f"{stack}: {kind}"


def _at(document: Any, path: tuple) -> Any:
    for key in path:
        document = document[key]
    return document


def _shipped_with(line: str, drop: str = "tags") -> str:
    """startup-t4's stack file with ``line`` added to its cluster object (and its own ``drop`` field removed)."""
    document = yaml.safe_load((ROOT / "stacks/Pulumi.startup-t4.yaml").read_text())
    document["config"][CLUSTER].pop(drop, None)
    return yaml.safe_dump(document).replace(f"  {CLUSTER}:\n", f"  {CLUSTER}:\n    {line}\n", 1)


# Examples that failed before the fixes of issue #36 (a crash, a hang), kept as explicit cases.
BINARY_TAG_STACK = _shipped_with("tags: {team: !!binary aGk=}")  # bytes reached the program's JSON config: exit 3
TEN_THOUSAND_TAGS = _shipped_with("tags: {" + ", ".join(f"k{i}: v" for i in range(10_000)) + "}")  # minutes
NESTED_STACK = _shipped_with("x: " + "[" * 5000 + "]" * 5000)


def stack_property(work: Workdir) -> Callable:
    @example((BINARY_TAG_STACK, "binary"), "json", True)
    @example((TEN_THOUSAND_TAGS, "tags"), "json", True)
    @example((NESTED_STACK, "nested"), "text", True)
    @given(mutated_stacks(), st.sampled_from(["text", "json", "markdown", "sarif"]), st.booleans())
    def a_mutated_stack_plans_or_is_refused_in_one_line(case, fmt, no_packs):
        text, _ = case
        (work.stacks / "Pulumi.fuzz.yaml").write_text(text)
        argv = ["plan", "--stack", "fuzz", "--stacks-dir", str(work.stacks), "--format", fmt]
        argv += ["--output", str(work.outputs / "plan.out")] + (["--policy-pack", "none"] if no_packs else [])
        exercise(work, argv, one_problem=False)  # a file's problems are each reported (all at once, by design)
        (work.stacks / "Pulumi.fuzz.yaml").unlink()

    return a_mutated_stack_plans_or_is_refused_in_one_line


# --- 2. argument vectors for every subcommand ---

NUMBERS = st.sampled_from(["0", "-1", "1", "7B", "1T", "1e400", "nan", "inf", "-inf", "1e308", "0.5", "", "abc", "1x"])


def argv_strategy(work: Workdir) -> st.SearchStrategy:
    from blueprints.cli import _parser

    files = [
        str(work.path / name)
        for name in ("plan.json", "baseline.json", "usage.csv", "usage-huge.csv", "changed.txt", "adir", "fifo")
        + ("missing", "stacks")
    ] + ["/dev/zero", "/dev/null", str(work.stacks / "Pulumi.s.yaml")]
    outputs = [str(work.outputs / "o.txt"), "-", str(work.path / "adir"), str(work.outputs / "no/such/o.txt")]
    outputs += [str(work.path / "plan.json"), str(work.path / "usage.csv"), str(work.stacks / "Pulumi.s.yaml")]
    values = st.one_of(st.sampled_from(files), NUMBERS, st.text(max_size=12), st.sampled_from(["s", "startup-t4"]))
    parser = _parser()
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    commands = sorted(c for c in subparsers if c != "pin-images")

    @st.composite
    def vectors(draw) -> list[str]:
        command = draw(st.sampled_from(commands + ["pin-images"]))
        if command == "pin-images":  # its options only, never a run (it asks public registries)
            return ["pin-images", draw(st.sampled_from(["--chek", "--check=1", "extra", "--help-me"]))]
        options = sorted(o for o in subparsers[command]._option_string_actions if o not in ("-h", "--help"))
        argv = [command]
        for _ in range(draw(st.integers(0, 5))):
            option = draw(st.sampled_from(options + ["--bogus", "-x", "--stak"]))
            if option == "--output":
                argv += [option, draw(st.sampled_from(outputs))]
            elif option in ("--output-dir",):
                argv += [option, str(work.outputs / draw(st.sampled_from(["d", "e/f"])))]
            elif option in ("--write-stack",):
                argv += [option, draw(st.sampled_from(["w", "Bad_Name", "s", ""]))]
            elif draw(st.integers(0, 4)):
                argv += [option, draw(values)]
            else:
                argv.append(option)
        if command == "diff":
            argv[1:1] = draw(st.lists(values, min_size=0, max_size=3))
        return argv

    @st.composite
    def near_valid(draw) -> list[str]:
        """A working command line with one argument replaced and up to two options added: what reaches the work."""
        command = draw(st.sampled_from(sorted(WORKING)))
        argv = [command, *draw(st.sampled_from(WORKING[command]))]
        if len(argv) > 1 and draw(st.booleans()):
            argv[draw(st.integers(1, len(argv) - 1))] = draw(values)
        if draw(st.booleans()):
            argv += ["--output", draw(st.sampled_from(outputs))]
        options = sorted(o for o in subparsers[command]._option_string_actions if o not in ("-h", "--help"))
        for _ in range(draw(st.integers(0, 1))):
            option = draw(st.sampled_from(options))  # an output that is a FIFO waits for its reader, as `>` does
            argv += [option, draw(st.sampled_from(outputs) if option == "--output" else values)]
        return argv

    return st.one_of(vectors(), near_valid())


# Command lines that work (placeholders: _placeholder), the starting points of near_valid.
WORKING = {
    "plan": [["--stack", "s"], ["--all-stacks", "--format", "json"], ["--stack", "s", "--policy-pack", "none"]],
    "diff": [["PLAN", "PLAN"], ["PLAN", "PLAN", "--format", "sarif"]],
    "size": [
        ["--params", "7B", "--tokens", "1T"],
        ["--usage-history", "USAGE"],
        ["--model", "llama-2-7b", "--tokens", "1T", "--cloud", "aws", "--write-stack", "w"],
        ["--mode", "inference", "--model", "llama-3-8b", "--rps", "5"],
    ],
    "schema": [[], ["--plan"]],
    "ci-matrix": [[], ["--changed-files", "CHANGED"], ["--stacks", "startup-t4"]],
    "policy-config": [["--stack", "startup-t4", "--output-dir", "OUTDIR"]],
}


def argv_property(work: Workdir) -> Callable:
    @example(["diff", "/dev/zero", "PLAN"])
    @example(["plan", "--stack", "s", "--output", "STACK"])
    @example(["size", "--usage-history", "USAGE", "--output", "USAGE"])
    @example(["size", "--usage-history", "HUGE"])
    @example(["plan", "--stack", "s", "--policy-pack", "baseline", "--policy-pack-config", "/dev/zero"])
    @example(["diff", "FIFO", "PLAN"])
    @example(["size", "--model", "llama-2-7b", "--tokens", "1T", "--write-stack", "w", "--output", "ADIR"])
    @example(["schema", "--output", "o\x00.json"])  # ValueError from os.stat, exit 3, before the fix
    @given(argv_strategy(work))
    def any_argument_vector_ends_in_0_1_or_2(argv):
        argv = [_placeholder(work, a) for a in argv]
        if argv[0] in ("plan", "size") and "--stacks-dir" not in argv:  # never the repository's stacks/
            argv += ["--stacks-dir", str(work.stacks if argv[0] == "plan" else work.outputs)]
        exercise(work, argv)

    return any_argument_vector_ends_in_0_1_or_2


def _placeholder(work: Workdir, arg: str) -> str:
    names = {
        "PLAN": work.path / "plan.json",
        "STACK": work.stacks / "Pulumi.s.yaml",
        "USAGE": work.path / "usage.csv",
        "HUGE": work.path / "usage-huge.csv",
        "FIFO": work.path / "fifo",
        "CHANGED": work.path / "changed.txt",
        "OUTDIR": work.outputs / "configs",
        "ADIR": work.path / "adir",
    }
    return str(names[arg]) if arg in names else arg


# --- 3. plan JSON for diff, one value mutated ---

JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from([[], {}, [None], {"": None}, "[" * 3000, "{" * 3000]),
)


@st.composite
def mutated_plans(draw, plan: dict) -> str:
    document = copy.deepcopy(plan)
    paths = _paths(document)
    kind = draw(st.sampled_from(["value", "delete", "deep", "wrap", "text", "bundle"]))
    if kind in ("value", "delete", "wrap") and paths:
        path = draw(st.sampled_from(paths))
        if kind == "value":
            _set(document, path, draw(JSON_VALUES))
        elif kind == "delete":
            _delete(document, path)
        else:
            _set(document, path, [_at(document, path)])
    text = json.dumps(document)
    if kind == "deep":
        depth = draw(st.integers(1, 200_000))
        return "[" * depth + "]" * depth
    if kind == "text":
        cut = draw(st.integers(0, len(text)))
        return text[:cut] + draw(st.sampled_from(["", "NaN", "\x00", "\ufffd", "}", ",", "1e999"])) + text[cut:]
    if kind == "bundle":
        return json.dumps({"plans": [document, draw(JSON_VALUES)], "failures": draw(st.lists(JSON_VALUES, max_size=2))})
    return text


def diff_property(work: Workdir, plan: dict) -> Callable:
    @example('{"resources": 5, "stack": "x"}', False, "text")
    @example('{"stack": "x", "resources": [], "findings": []}', True, "text")
    @example('{"plans": [null]}', False, "markdown")
    @example("[" * 100_000 + "]" * 100_000, False, "sarif")
    @given(mutated_plans(plan), st.booleans(), st.sampled_from(["text", "markdown", "sarif"]))
    def a_mutated_plan_diffs_or_is_refused_in_one_line(text, as_head, fmt):
        mutated = work.path / "mutated.json"
        mutated.write_text(text)
        good = str(work.path / "plan.json")
        pair = [good, str(mutated)] if as_head else [str(mutated), good]
        exercise(work, ["diff", *pair, "--format", fmt, "--output", str(work.outputs / "diff.out")])
        mutated.unlink()

    return a_mutated_plan_diffs_or_is_refused_in_one_line


# --- the run ---


def _tree_hash(*folders: Path) -> str:
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                digest.update(str(path).encode() + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def main() -> int:
    cli = argparse.ArgumentParser()
    cli.add_argument("--profile", default="long", choices=("ci", "long"))
    cli.add_argument("--seconds", type=float, default=0, help="repeat rounds until this much time is spent")
    cli.add_argument("--seed", type=int, default=None)
    cli.add_argument("--memory", type=int, default=MEMORY_LIMIT)
    cli.add_argument("--generated-only", action="store_true", help="skip the explicit examples (what generation finds)")
    cli.add_argument("--keep-going", action="store_true", help="more rounds after a failure, until the time is spent")
    options = cli.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (options.memory, options.memory))
    signal.signal(signal.SIGALRM, _alarm)
    # Plans run in this process: collect cyclic garbage less often, as the test suite does (tests/conftest.py).
    gc.set_threshold(50_000, 20, 10)
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    if options.profile == "ci":
        print("fuzz seed: none (profile ci is derandomized: the same examples every run)", flush=True)
    else:
        print(f"fuzz seed: {seed} (reproduce: make fuzz SEED={seed})", flush=True)
    settings.load_profile(options.profile)
    if options.generated_only:
        settings.register_profile("generated", settings(phases=[Phase.generate, Phase.shrink]))
        settings.load_profile("generated")

    from blueprints import inputs
    from blueprints.offline.plan import make_plan
    from blueprints.offline.render import render_json

    inputs.IDLE_SECONDS = 0.2  # the FIFO nobody writes to
    SCHEMA_PATHS.extend(_schema_paths())
    repository = _tree_hash(ROOT / "stacks", ROOT / "catalog", ROOT / "policies")
    top = set(os.listdir(ROOT))
    plan_text = render_json(make_plan("startup-t4"))
    start, rounds, failures = time.monotonic(), 0, 0
    with tempfile.TemporaryDirectory(prefix="bp-fuzz-") as folder:
        work = Workdir(Path(folder), plan_text)
        os.chdir(work.path)  # a relative --output or --output-dir lands here, never in the checkout
        properties = [stack_property(work), argv_property(work), diff_property(work, json.loads(plan_text))]
        while True:
            for prop in properties:
                if options.profile == "long":
                    seed_of(seed + rounds)(prop)
                try:
                    prop()
                except KeyboardInterrupt:
                    raise
                except BaseException:  # noqa: BLE001 - a Hang too; Hypothesis printed the falsifying example above
                    import traceback

                    traceback.print_exc()
                    failures += 1
            rounds += 1
            stop = failures and not options.keep_going
            if options.profile == "ci" or stop or time.monotonic() - start >= options.seconds:
                break
        os.chdir(ROOT)
    assert _tree_hash(ROOT / "stacks", ROOT / "catalog", ROOT / "policies") == repository, "the repository changed"
    assert set(os.listdir(ROOT)) <= top, f"files left in the checkout: {sorted(set(os.listdir(ROOT)) - top)}"
    elapsed = time.monotonic() - start
    print(f"fuzz: {rounds} rounds in {elapsed:.0f} s, seed {seed}: {'FAILED' if failures else 'ok'}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
