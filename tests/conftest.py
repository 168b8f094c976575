"""Shared helpers: plan shipped stacks (cached) or variants written to a temporary stacks folder."""

from __future__ import annotations

import contextlib
import copy
import gc
import io
import json
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Optional

import pytest
import yaml

from blueprints.offline.plan import Plan, make_plan
from blueprints.stackconfig import FULL_CONFIG_KEY, ROOT, STACKS_DIR, available_stacks

# Dated checks (capacity-block ends, end of support) judge against a fixed day, so results do not drift with time.
os.environ.setdefault("BLUEPRINTS_TODAY", "2026-11-24")
# Output is judged as a pipe gets it (tables 160 columns wide): pytest-xdist starts its workers with COLUMNS=80 in
# their environment, which made the size tables narrower under `pytest -n 2` than in a plain run. A test about
# widths sets COLUMNS itself.
for _variable in ("COLUMNS", "LINES"):
    os.environ.pop(_variable, None)
# The cyclic garbage collector, at CPython's default thresholds (700, 10, 10), walked the test process's large heap
# (the SDKs, every test module, the shared plans) so often that it took about half of an in-process plan's CPU
# (4.2 s -> 2.2 s for four warm plans beside four held ones, issue #42). The CLI turns it off in its own process
# (blueprints.cli.quiet_collector); the test process keeps it on, collecting less often: the oldest generation
# still every few plans, so memory stays bounded (peak RSS +16% in that measurement).
gc.set_threshold(50_000, 20, 10)
SHIPPED = available_stacks()
# Files whose few tests run long (processes started per case, every stack planned) go first: pytest-xdist hands out
# whole files (`make test` passes --dist loadfile --no-loadscope-reorder, so this order holds), and one of these
# last would leave the other worker idle for its whole length (measured: 11 s of a 187 s run, issue #42).
LONG_FILES_FIRST = (
    "test_example_job.py",
    "test_fuzz.py",
    "test_all_stacks.py",
    "test_provider_imports.py",
    "test_fabric_check.py",
    "test_gpu_check.py",
    "test_crd_schemas.py",
    "test_rendered_config.py",
)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection imported (the SDKs, every test module) lives as long as the process: frozen, the collector's
    full passes (and pytest's last one, at exit) no longer walk it, only what the tests create."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name not in LONG_FILES_FIRST)  # stable: every other file keeps its place


DATA_STACKS = ROOT / "tests/data/stacks"
# Plans computed once per test process and shared read-only by every test that only reads them (planning a stack
# costs a second or more); a test that changes a plan plans its own copy (plan_variant) or edits copies.
_CACHE: dict[tuple[str, Path], Plan] = {}


def shipped_plan(stack: str, stacks_dir: Path = STACKS_DIR) -> Plan:
    """The plan of a shipped stack (or of a test stack in ``stacks_dir``), computed once for the whole test run."""
    key = (stack, Path(stacks_dir).resolve())
    if key not in _CACHE:
        _CACHE[key] = make_plan(stack, stacks_dir)
    return _CACHE[key]


def data_plan(stack: str) -> Plan:
    """The plan of a test stack in tests/data/stacks, computed once for the whole test run."""
    return shipped_plan(stack, DATA_STACKS)


@pytest.fixture(scope="session", autouse=True)
def shared_plans_stay_unchanged():
    """The shared plans are read-only: a registration's inputs are decoded once and handed to every reader, so a
    test that edited them in place would change what later tests see. Checked once, when the session ends."""
    yield
    from blueprints.offline.engine import plain_struct

    changed = [
        f"{stack}: {r.urn}"
        for (stack, _), plan in _CACHE.items()
        for r in plan.registrations
        if "inputs" in r.__dict__ and r.inputs != plain_struct(r.properties)
    ]
    assert not changed, f"tests changed shared plans in place (copy before editing): {changed[:5]}"


@pytest.fixture(scope="session")
def pack_sessions():
    """Each pack in a process of its own, as the CLI starts it (``python -m pulumi.policy``), started on first use
    and shared by every test of this test process: a PackSession judges any number of stacks, configured anew
    for each, so the rule fixtures, the hosting comparison and the start-up check pay one start per pack."""
    from blueprints.offline.policy import PackSession

    sessions: dict[str, PackSession] = {}

    def get(name: str) -> PackSession:
        if name not in sessions:
            sessions[name] = PackSession(name)
        return sessions[name]

    yield get
    for session in sessions.values():
        session.close()


def unpriced_system_shape(stack: str) -> Optional[str]:
    """The system shape of a shipped stack that has no sourced list price in its region, if any.

    Alibaba's ecs.g7.xlarge has none in the catalog (README: prices), so such a stack is flagged by the budget rule
    until its owner gives a price: its plan exits 1 with that one mandatory finding."""
    system = shipped_plan(stack).resolved.system
    return system.instance_type if system is not None and system.usd_per_hour is None else None


# A stack price for that shape, as a user gives one (`prices:`), for tests about other behaviour of those stacks.
TEST_SYSTEM_PRICES = {"ecs.g7.xlarge": 0.2}


def with_system_price(cluster: dict[str, Any]) -> dict[str, Any]:
    """The test price for the system shape of the cluster's cloud (a price for another cloud's shape is refused)."""
    from catalog.system_shapes import load_system_shapes

    shapes = {s.instance_type: s.cloud for s in load_system_shapes().shapes}
    ours = {t: p for t, p in TEST_SYSTEM_PRICES.items() if shapes.get(t) == cluster.get("cloud")}
    if ours:
        cluster.setdefault("prices", {}).update(ours)
    return cluster


# CPFS takes no customer key at CreateFileSystem (#35 item 7, tests/test_nas_encryption.py): a stack with CPFS carries
# this rule's mandatory finding under its packs, whatever else it does.
CPFS_ENCRYPTION_RULE = "alicloud-nas-file-system-encrypted-with-cmk"


def uses_cpfs(stack: str) -> bool:
    return shipped_plan(stack).resolved.spec.storage.parallel_fs.type == "cpfs"


def fails_besides_cpfs(plan: Plan) -> list[str]:
    """What would make the plan exit 1 other than CPFS's encryption finding: mandatory policies, blocking checks."""
    mandatory = [
        f["policy"]
        for f in plan.findings
        if f.get("enforcementLevel") == "mandatory" and f["policy"] != CPFS_ENCRYPTION_RULE
    ]
    return mandatory + [f.check for f in plan.readiness_blocking()]


def shipped_cluster(stack: str) -> dict[str, Any]:
    config = yaml.safe_load((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text())["config"]
    return copy.deepcopy(config[FULL_CONFIG_KEY])


def write_stack(folder: Path, stack: str, cluster: dict[str, Any]) -> Path:
    path = folder / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump({"config": {FULL_CONFIG_KEY: cluster}}))
    return path


@pytest.fixture
def plan_variant(tmp_path: Path) -> Callable[..., Plan]:
    """Plan a copy of a shipped stack with some fields changed."""

    def run(base: str, change: Callable[[dict[str, Any]], None]) -> Plan:
        cluster = shipped_cluster(base)
        change(cluster)
        write_stack(tmp_path, f"{base}-variant", cluster)
        return make_plan(f"{base}-variant", tmp_path)

    return run


def resources(plan: Plan, type_: str) -> list[dict[str, Any]]:
    return [r.inputs for r in plan.registrations if r.type == type_]


def policy_documents(plan: Plan, types: tuple[str, ...], key: str = "policy") -> list[dict[str, Any]]:
    return [json.loads(r.inputs[key]) for r in plan.registrations if r.type in types and key in r.inputs]


NODE_GROUP_TYPES = ("aws:eks/nodeGroup:NodeGroup", "alicloud:cs/nodePool:NodePool")


def group_label(inputs: dict[str, Any]) -> str | None:
    labels = inputs.get("labels") or {}
    if isinstance(labels, list):  # ACK spells labels as [{key, value}]
        labels = {label["key"]: label["value"] for label in labels}
    return labels.get("gpu-blueprints/node-group")


def gpu_groups(plan: Plan) -> list[dict[str, Any]]:
    """Node groups / pools other than the system group."""
    return [r.inputs for r in plan.registrations if r.type in NODE_GROUP_TYPES and group_label(r.inputs) != "system"]


def system_groups(plan: Plan) -> list[dict[str, Any]]:
    return [r.inputs for r in plan.registrations if r.type in NODE_GROUP_TYPES and group_label(r.inputs) == "system"]


def gpu_templates(plan: Plan) -> list[dict[str, Any]]:
    return [
        r.inputs
        for r in plan.registrations
        if r.type == "aws:ec2/launchTemplate:LaunchTemplate" and not r.name.endswith("-system")
    ]


def helm(plan: Plan, name: str) -> dict[str, Any]:
    """The inputs of the plan's Helm release called ``name``."""
    [release] = [r for r in resources(plan, "kubernetes:helm.sh/v3:Release") if r["name"] == name]
    return release


def validate_crd(obj: dict[str, Any], schema: dict[str, Any]) -> None:
    """Validate against a CRD version's openAPIV3Schema as the API server would on create (kube_schema: structure,
    the unknown fields it would prune, formats, defaults, then the x-kubernetes-validations CEL rules); every failure
    in one jsonschema.ValidationError. Patterns are Go's, checked with RE2 (PrometheusRule's uses `(?i)`)."""
    import jsonschema

    from kube_schema import validate_custom

    failures = validate_custom(obj, schema).failures
    if failures:
        raise jsonschema.ValidationError("; ".join(failures))


CLI_TIMEOUT = 60  # a hang fails through the timeout; no wall-clock assertion on a shared machine


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    """The CLI's `main` in this process, what it prints captured: its exit code, standard output and error, as
    `python -m blueprints ...` gives them where the child process adds only its start-up (a bug still shows as a
    traceback and exit 3: `main` prints it). Tests about the process itself use run_cli_process."""
    from blueprints.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as stop:  # argparse: --help, --version, usage errors
            code = stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 2
    return subprocess.CompletedProcess(["python", "-m", "blueprints", *argv], code, out.getvalue(), err.getvalue())


def run_cli_process(*argv: str) -> subprocess.CompletedProcess:
    """`python -m blueprints ...` in a child process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "blueprints", *argv], cwd=ROOT, capture_output=True, text=True, timeout=CLI_TIMEOUT
    )


def blueprints_argv(*argv: str, memory_limit: Optional[int] = None) -> list[str]:
    """`python -m blueprints ...`, under an address-space limit when one is given.

    The limit is set by a fresh interpreter that then execs the CLI (the limit survives exec), never by a
    `preexec_fn`: that runs Python in the forked child of a test process whose gRPC threads (the Pulumi mocks)
    did not survive the fork, and gRPC aborts the child now and then (CI, 2026-11-25: exit -6, "epoll_wait
    error: Bad file descriptor").
    """
    if memory_limit is None:
        return [sys.executable, "-m", "blueprints", *argv]
    prelude = (
        "import os, resource, sys; "
        f"resource.setrlimit(resource.RLIMIT_AS, ({memory_limit}, {memory_limit})); "
        "os.execv(sys.executable, [sys.executable, '-m', 'blueprints', *sys.argv[1:]])"
    )
    return [sys.executable, "-c", prelude, *argv]


def one_line(result: subprocess.CompletedProcess) -> str:
    """The bad-input contract: exit 2, nothing on standard output, one line on standard error, no traceback."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    return line


def run_on_terminal(
    argv: list[str], terminal: str, env: dict, timeout: int = CLI_TIMEOUT
) -> tuple[subprocess.CompletedProcess, bytes]:
    """Run the CLI with `terminal` ("stdout" or "stderr") a pseudo-terminal and the other stream a pipe; return the
    result and what the terminal received (read while the child writes, or it blocks on a full terminal)."""
    leader, follower = pty.openpty()
    shown = bytearray()

    def drain():
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
    streams = (
        {"stdout": follower, "stderr": subprocess.PIPE}
        if terminal == "stdout"
        else {"stdout": subprocess.PIPE, "stderr": follower}
    )
    try:
        result = subprocess.run(
            [sys.executable, "-m", "blueprints", *argv], cwd=ROOT, env=env, timeout=timeout, **streams
        )
    finally:
        os.close(follower)
        reader.join(timeout=10)
        os.close(leader)
    return result, bytes(shown)


def source_rows(source_md: Path) -> dict[str, dict[str, str]]:
    """The rows of a SOURCE.md table, keyed by their `chart` column (tests/data/charts and its values/ folder)."""
    lines = [line for line in source_md.read_text().splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return {
        row["chart"]: row
        for row in (dict(zip(header, (c.strip() for c in line.strip("|").split("|")))) for line in lines[2:])
    }
