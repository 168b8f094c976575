"""Issues #27 (item 2) and #36: inputs that crashed, hung, destroyed a file or were accepted as nonsense are one line
naming the file or field, exit 2.

The CLI's main runs in this process (run_cli, or with capsys) where the child process adds nothing; cases about
bounded time or memory run the real CLI in a child process, bounded as the hostile-input tests are. A `--output`
path is given so each case also shows nothing is written when the input is refused.
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from blueprints import inputs
from blueprints.cli import main
from blueprints.offline.plan import make_plan
from blueprints.stackconfig import ROOT, STACKS_DIR
from catalog import image_digests
from conftest import (
    CLI_TIMEOUT,
    blueprints_argv,
    one_line,
    run_cli,
    shipped_cluster,
    shipped_plan,
    with_system_price,
    write_stack,
)


@pytest.mark.parametrize(
    "price, fragment",
    [
        (math.inf, "cluster.prices: price for p4d.24xlarge must be a positive, finite USD amount per hour (got inf)"),
        (math.nan, "cluster.prices: price for p4d.24xlarge must be a positive, finite USD amount per hour (got nan)"),
        (-1.0, "cluster.prices: price for p4d.24xlarge must be a positive, finite USD amount per hour (got -1.0)"),
    ],
)
def test_a_price_that_is_not_a_positive_finite_amount_is_one_line(tmp_path, price, fragment):
    cluster = shipped_cluster("research-a100")
    cluster["prices"] = {"p4d.24xlarge": price}  # yaml.safe_dump writes .inf / .nan, as a user would
    write_stack(tmp_path, "bad", cluster)
    assert (".inf" if price == math.inf else ".nan" if price != price else "-1.0") in (
        tmp_path / "Pulumi.bad.yaml"
    ).read_text()
    out = tmp_path / "plan.json"
    line = one_line(run_cli("plan", "--stack", "bad", "--stacks-dir", str(tmp_path), "--output", str(out)))
    assert line == f"error: {tmp_path.name}/Pulumi.bad.yaml: {fragment}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Pulumi.bad.yaml"]


def test_an_infinite_budget_is_one_line(tmp_path):
    cluster = shipped_cluster("research-a100")
    cluster["budget"]["monthlyLimitUsd"] = math.inf
    write_stack(tmp_path, "bad", cluster)
    line = one_line(run_cli("plan", "--stack", "bad", "--stacks-dir", str(tmp_path)))
    assert line.endswith("cluster.budget.monthlyLimitUsd: Input should be a finite number (got inf)")


UNITS_ALLOWED = "K, M, B (or G), T, e.g. 110M, 7B, 1.5T"


@pytest.mark.parametrize(
    "argv, line",
    [
        (["--params", "1e400", "--tokens", "1T"], f"error: --params: '1e400' is not a finite number; {UNITS_ALLOWED}"),
        (["--params", "7B", "--tokens", "1e400"], f"error: --tokens: '1e400' is not a finite number; {UNITS_ALLOWED}"),
        (["--params", "7B", "--tokens", "1T", "--mfu", "nan"], "error: --mfu: Input should be a finite number"),
        (
            ["--params", "7B", "--tokens", "1T", "--target-days", "inf"],
            "error: --target-days: Input should be a finite number",
        ),
        (
            ["--params", "7B", "--tokens", "1T", "--budget-margin", "inf"],
            "error: --budget-margin: must be a finite number, 0 or more (got inf)",
        ),
    ],
)
def test_size_with_infinite_or_nan_numbers_is_one_line(tmp_path, argv, line):
    out = tmp_path / "size.txt"
    assert one_line(run_cli("size", *argv, "--output", str(out))) == line
    assert list(tmp_path.iterdir()) == []


# --- Issue #36: each failure a new user found, reproduced; every one failed on the code before the fix. ---

MEMORY_LIMIT = 512 * 1024**2  # refusing any of these takes ~100 MiB; the unbounded reads wanted 22 GB


def limited(*argv: str) -> subprocess.CompletedProcess:
    """The real CLI under an address-space limit and the shared timeout (a hang fails the test)."""
    return subprocess.run(
        blueprints_argv(*argv, memory_limit=MEMORY_LIMIT), cwd=ROOT, capture_output=True, text=True, timeout=CLI_TIMEOUT
    )


def as_unprivileged(*argv: str) -> subprocess.CompletedProcess:
    """The CLI as a user the file permissions apply to: as root, through setpriv as nobody (root may write a 0444
    file, so `>` would too); as anyone else, as they are."""
    prefix = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: permissions cannot be exercised")
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "blueprints", *argv], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def open_dir():
    """A folder anyone may enter and write in (the unprivileged runs need to reach it); removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="bp-issue36-"))
    folder.chmod(0o777)
    yield folder
    for path in folder.iterdir():
        path.chmod(0o755) if path.is_dir() else path.chmod(0o644)
    shutil.rmtree(folder)


@pytest.fixture(scope="module")
def plan_json(tmp_path_factory) -> Path:
    """The JSON plan of a shipped stack, as `plan --format json` writes it."""
    from blueprints.offline.render import render_json

    path = tmp_path_factory.mktemp("plans") / "startup-t4.json"
    path.write_text(render_json(shipped_plan("startup-t4")))
    return path


def cli(capsys, *argv: str) -> tuple[int, str, list[str]]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err.strip().splitlines()


def refused(capsys, *argv: str) -> str:
    """The bad-input contract in process: exit 2, nothing on standard output, exactly one line."""
    code, out, lines = cli(capsys, *argv)
    assert code == 2 and out == "" and len(lines) == 1, (code, lines)
    assert "Traceback" not in lines[0]
    return lines[0]


# Destroyed: `--output` naming an input of the same command.


def test_plan_output_naming_the_stack_file_is_refused_and_the_stack_is_kept(capsys, tmp_path):
    stack = tmp_path / "Pulumi.s.yaml"
    stack.write_text((STACKS_DIR / "Pulumi.startup-t4.yaml").read_text())
    before = stack.read_bytes()
    line = refused(capsys, "plan", "--stack", "s", "--stacks-dir", str(tmp_path), "--output", str(stack))
    assert line.startswith(f"error: --output: {stack} is the stack file this command reads")
    assert stack.read_bytes() == before


def test_output_through_a_link_to_an_input_is_refused(capsys, tmp_path, plan_json):
    base = tmp_path / "base.json"
    base.write_bytes(plan_json.read_bytes())
    (tmp_path / "link.json").symlink_to(base)
    line = refused(capsys, "diff", str(base), str(plan_json), "--output", str(tmp_path / "link.json"))
    assert "is the base plan this command reads" in line
    assert base.read_bytes() == plan_json.read_bytes()


def test_diff_output_naming_the_head_plan_is_refused(capsys, tmp_path, plan_json):
    head = tmp_path / "head.json"
    head.write_bytes(plan_json.read_bytes())
    line = refused(capsys, "diff", str(plan_json), str(head), "--output", str(head))
    assert "is the head plan this command reads" in line and head.read_bytes() == plan_json.read_bytes()


def test_plan_output_naming_its_pack_config_is_refused(capsys, tmp_path):
    config = tmp_path / "baseline.json"
    config.write_text("{}\n")
    argv = ["plan", "--stack", "startup-t4", "--policy-pack", "baseline", "--policy-pack-config", str(config)]
    line = refused(capsys, *argv, "--output", str(config))
    assert "is the policy pack config this command reads" in line and config.read_text() == "{}\n"


def test_size_output_naming_its_usage_history_is_refused(capsys, tmp_path):
    history = tmp_path / "usage.csv"
    history.write_text("month,instance_type,gpu_hours\n2026-01,p4d.24xlarge,100\n")
    before = history.read_bytes()
    line = refused(capsys, "size", "--usage-history", str(history), "--output", str(history))
    assert "is the usage history this command reads" in line and history.read_bytes() == before


def test_size_output_naming_its_prices_file_is_refused(capsys, tmp_path):
    """`size --prices` (issue #37) is an input too: --output naming it replaced the account's rates with the table."""
    prices = tmp_path / "prices.yaml"
    prices.write_text("prices: {m6i.xlarge: 0.2}\n")
    before = prices.read_bytes()
    argv = ["size", "--params", "7B", "--tokens", "1T", "--target-days", "30", "--prices", str(prices)]
    line = refused(capsys, *argv, "--output", str(prices))
    assert "is the prices file this command reads" in line and prices.read_bytes() == before


def test_plan_output_naming_the_image_digest_catalog_is_refused(capsys, tmp_path, monkeypatch):
    catalog = tmp_path / "image_digests.yaml"
    catalog.write_text(image_digests.DIGESTS_FILE.read_text())
    monkeypatch.setattr(image_digests, "DIGESTS_FILE", catalog)
    line = refused(capsys, "plan", "--stack", "startup-t4", "--output", str(catalog))
    assert "is the image digest catalog this command reads" in line
    assert catalog.read_text() == image_digests.DIGESTS_FILE.read_text()


def test_a_read_only_output_file_is_refused_not_replaced(open_dir):
    target = open_dir / "ro.json"
    target.write_text("keep\n")
    target.chmod(0o444)
    line = one_line(as_unprivileged("schema", "--output", str(target)))
    assert line == f"error: --output: cannot write {target}: Permission denied"
    assert target.read_text() == "keep\n" and sorted(p.name for p in open_dir.iterdir()) == ["ro.json"]


# Unbounded reads: devices and endless streams are refused in bounded time and memory.


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_diff_of_a_device_is_refused_under_a_memory_limit(plan_json, device):
    line = one_line(limited("diff", device, str(plan_json)))
    assert line.startswith(f"error: {device}: is a device; pass a plan JSON file")


def test_a_pack_config_from_dev_zero_is_refused_under_a_memory_limit(tmp_path):
    argv = ["plan", "--stack", "startup-t4", "--policy-pack", "baseline", "--policy-pack-config", "/dev/zero"]
    line = one_line(limited(*argv, "--output", str(tmp_path / "plan.json")))
    assert line.startswith("error: /dev/zero: is a device; pass a JSON policy pack config")
    assert list(tmp_path.iterdir()) == []


def test_an_endless_pipe_is_refused_at_the_cap(tmp_path, plan_json):
    """`diff <(yes) head.json`: a FIFO whose writer never stops is read up to the cap, then refused."""
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"exec yes > {fifo}"], stderr=subprocess.DEVNULL)
    try:
        line = one_line(limited("diff", str(fifo), str(plan_json)))
    finally:
        writer.kill()
        writer.wait()
    assert line.startswith(f"error: {fifo}: more than {inputs.PLAN_JSON_BYTES} bytes")


def test_a_silent_pipe_is_refused_after_the_idle_time(capsys, tmp_path, monkeypatch, plan_json):
    fifo = tmp_path / "silent"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR)  # a writer that never writes (and never closes)
    monkeypatch.setattr(inputs, "IDLE_SECONDS", 0.5)
    try:
        line = refused(capsys, "diff", str(fifo), str(plan_json))
    finally:
        os.close(writer)
    assert line == f"error: {fifo}: a pipe that sent nothing for 0.5 s; pass a file"


def test_a_plan_through_a_pipe_still_diffs(tmp_path, plan_json):
    """What the bounds must not break: `diff <(cat base.json) head.json`."""
    result = subprocess.run(
        ["bash", "-c", f'"$0" -m blueprints diff <(cat {plan_json}) {plan_json}', sys.executable],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


# Tracebacks: malformed plan JSON, YAML tags, unreadable or malformed inputs.


def _plan_with(plan_json: Path, change) -> dict:
    plan = json.loads(plan_json.read_text())
    change(plan)
    return plan


@pytest.mark.parametrize(
    "change, path",
    [
        (lambda p: p.update(resources=5), "resources: 5 is not of type 'array'"),
        (lambda p: p.pop("cost"), "(the document): 'cost' is a required property"),
        (lambda p: p["resources"].__setitem__(0, None), "resources[0]: None is not of type 'object'"),
        (lambda p: p["findings"].append(None), "findings["),
        (lambda p: p["cost"].update(hourlyUsd="cheap"), "cost.hourlyUsd: 'cheap' is not of type 'number'"),
        (lambda p: p["resources"][0].pop("urn"), "resources[0]: 'urn' is a required property"),
    ],
)
def test_diff_of_plan_json_off_the_schema_names_the_first_bad_path(capsys, tmp_path, plan_json, change, path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_plan_with(plan_json, change)))
    line = refused(capsys, "diff", str(bad), str(plan_json))
    assert line.startswith(f"error: {bad}: {path}"), line
    assert line.endswith("not plan JSON as `plan --format json` writes it (`python -m blueprints schema --plan`)")


def test_diff_of_a_bundle_with_null_plans_names_the_entry(capsys, tmp_path, plan_json):
    bad = tmp_path / "bundle.json"
    bad.write_text(json.dumps({"plans": [json.loads(plan_json.read_text()), None], "failures": [None]}))
    line = refused(capsys, "diff", str(plan_json), str(bad))
    assert line.startswith(f"error: {bad}: failures[0]: None is not of type 'object'") or line.startswith(
        f"error: {bad}: plans[1]: None is not of type 'object'"
    )


def test_diff_of_100000_nested_brackets_is_one_line(capsys, tmp_path, plan_json):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    line = refused(capsys, "diff", str(deep), str(plan_json))
    assert line == (
        f"error: {deep}: nested 100000 levels deep; a plan JSON file (`python -m blueprints plan --format json`) "
        f"nests at most {inputs.MAX_JSON_DEPTH}"
    )


def test_deeply_nested_json_text_inside_an_input_is_compared_as_text(capsys, tmp_path, plan_json):
    """Resource inputs hold JSON documents as strings (policies): one nested 100,000 deep is not recursed into."""
    changed = tmp_path / "head.json"
    changed.write_text(json.dumps(_plan_with(plan_json, lambda p: p["resources"][0]["inputs"].update(x="[" * 100_000))))
    code, _, lines = cli(capsys, "diff", str(plan_json), str(changed))
    assert code in (0, 1) and not any("Traceback" in line for line in lines)


def test_a_binary_value_in_a_stack_file_is_refused_naming_the_tag(capsys, tmp_path):
    text = (STACKS_DIR / "Pulumi.startup-t4.yaml").read_text()
    text = text.replace(
        "gpu-cluster-blueprints:cluster:\n", "gpu-cluster-blueprints:cluster:\n    tags: {team: !!binary aGVsbG8=}\n", 1
    )
    (tmp_path / "Pulumi.bin.yaml").write_text(text)
    line = refused(capsys, "plan", "--stack", "bin", "--stacks-dir", str(tmp_path), "--format", "json")
    assert line.startswith(f"error: {tmp_path.name}/Pulumi.bin.yaml: the YAML tag tag:yaml.org,2002:binary at line ")


@pytest.mark.parametrize("tag", ["!!set {a}", "!!omap [{a: 1}]", "!!timestamp 2026-01-01"])
def test_other_non_core_yaml_tags_are_refused(capsys, tmp_path, tag):
    text = (STACKS_DIR / "Pulumi.startup-t4.yaml").read_text()
    text = text.replace("gpu-cluster-blueprints:cluster:\n", f"gpu-cluster-blueprints:cluster:\n    x: {tag}\n", 1)
    (tmp_path / "Pulumi.tag.yaml").write_text(text)
    line = refused(capsys, "plan", "--stack", "tag", "--stacks-dir", str(tmp_path))
    assert "the YAML tag tag:yaml.org,2002:" in line and "is not supported" in line


def test_an_unreadable_stack_file_is_one_line(open_dir):
    stack = open_dir / "Pulumi.locked.yaml"
    stack.write_text((STACKS_DIR / "Pulumi.startup-t4.yaml").read_text())
    stack.chmod(0o000)
    line = one_line(as_unprivileged("plan", "--stack", "locked", "--stacks-dir", str(open_dir)))
    assert line == f"error: {open_dir.name}/Pulumi.locked.yaml: cannot read it: Permission denied"


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("images: [1, 2]\n", "expected one mapping `images:`"),
        ("images: {'a:1': {digest: x}}\n", "images.a:1: expected exactly digest, resolved and registry"),
        ("images: {a: [\n", "not YAML"),
        (None, "not a regular file"),
    ],
)
def test_a_malformed_or_unreadable_image_catalog_is_one_line(capsys, tmp_path, monkeypatch, content, fragment):
    catalog = tmp_path / "image_digests.yaml"
    catalog.mkdir() if content is None else catalog.write_text(content)
    monkeypatch.setattr(image_digests, "DIGESTS_FILE", catalog)
    line = refused(capsys, "plan", "--stack", "startup-t4", "--output", str(tmp_path / "plan.txt"))
    assert line.startswith(f"error: {catalog}: ") and fragment in line, line
    assert not (tmp_path / "plan.txt").exists()


def test_size_write_stack_into_a_folder_it_cannot_write_is_one_line(open_dir):
    locked = open_dir / "stacks"
    locked.mkdir()
    locked.chmod(0o555)
    argv = ["size", "--params", "7B", "--tokens", "1T", "--cloud", "aws", "--write-stack", "x", "--stacks-dir"]
    line = one_line(as_unprivileged(*argv, str(locked)))
    assert line == f"error: --write-stack: cannot write in {locked}: Permission denied"


# Hangs: 10,000 tags, and usage history of 1e308 GPU-hours.


def test_ten_thousand_tags_are_refused_quickly(capsys, tmp_path):
    cluster = shipped_cluster("startup-t4")
    cluster["tags"] = {f"k{i}": f"v{i}" for i in range(10_000)}
    write_stack(tmp_path, "tags", cluster)
    start = time.monotonic()
    line = refused(capsys, "plan", "--stack", "tags", "--stacks-dir", str(tmp_path))
    assert "cluster.tags: 10000 tags" in line and "AWS allows 50 per resource" in line
    assert time.monotonic() - start < CLI_TIMEOUT


@pytest.mark.parametrize(
    "hours, fragment",
    [
        ("1e308", "1e308 GPU-hours in a month is more than 1e+09"),
        ("inf", "'inf' is not a finite number of hours"),
        ("nan", "'nan' is not a finite number of hours"),
    ],
)
def test_usage_history_hours_out_of_range_are_one_line(tmp_path, hours, fragment):
    history = tmp_path / "usage.csv"
    rows = [f"2026-0{m},p4d.24xlarge,{hours if m == 2 else 100}" for m in range(1, 5)]
    history.write_text("month,instance_type,gpu_hours\n" + "\n".join(rows) + "\n")
    line = one_line(limited("size", "--usage-history", str(history)))
    assert line == f"error: {history}: row 3 gpu_hours: {fragment}" + (
        " (a million GPUs busy all month); allowed: 0 to that" if hours == "1e308" else ""
    )


# Accepted nonsense: registry mirrors, prices for shapes that do not exist, tag counts.


@pytest.mark.parametrize(
    "mirror, fragment",
    [
        ("cr.example.com:0/gpu", "port 0 is not a TCP port; allowed: 1-65535"),
        ("cr.example.com:99999/gpu", "port 99999 is not a TCP port; allowed: 1-65535"),
        ("169.254.169.254/gpu", "169.254.169.254 is the AWS instance metadata service"),
        ("100.100.100.200:80", "100.100.100.200 is the Alibaba Cloud instance metadata service"),
        ("169.254.10.1:5000", "169.254.10.1 is link-local (169.254.0.0/16)"),
        ("127.0.0.1:5000/gpu", "127.0.0.1 is loopback"),
    ],
)
def test_a_registry_mirror_that_is_no_registry_is_refused(capsys, tmp_path, mirror, fragment):
    cluster = shipped_cluster("startup-t4")
    cluster.setdefault("kubernetes", {})["registry"] = {"mirror": mirror}
    write_stack(tmp_path, "mirror", cluster)
    line = refused(capsys, "plan", "--stack", "mirror", "--stacks-dir", str(tmp_path))
    assert line.startswith(f"error: {tmp_path.name}/Pulumi.mirror.yaml: cluster.kubernetes.registry.mirror: ")
    assert fragment in line, line


def test_a_price_for_an_instance_type_the_catalog_does_not_know_is_refused_with_a_suggestion(capsys, tmp_path):
    cluster = shipped_cluster("research-a100")
    cluster["prices"] = {"p4d.24xlargee": 20.0}
    write_stack(tmp_path, "price", cluster)
    line = refused(capsys, "plan", "--stack", "price", "--stacks-dir", str(tmp_path))
    assert line.startswith(f"error: {tmp_path.name}/Pulumi.price.yaml: cluster.prices: p4d.24xlargee ")
    assert "is not an instance type the catalog knows on aws" in line and "did you mean p4d.24xlarge?" in line


@pytest.mark.parametrize(
    "stack, count, fragment",
    [
        ("research-a100", 51, "a resource would carry 56, and AWS allows 50 per resource: at most 45 tags of your own"),
        ("research-a100", 1000, "AWS allows 50 per resource"),
        ("research-a100-aliyun", 21, "Alibaba Cloud allows 20 per OSS bucket"),
    ],
)
def test_more_tags_than_the_cloud_allows_are_refused(capsys, tmp_path, stack, count, fragment):
    cluster = shipped_cluster(stack)
    cluster["tags"] = {f"k{i}": "v" for i in range(count)}
    write_stack(tmp_path, "many", cluster)
    line = refused(capsys, "plan", "--stack", "many", "--stacks-dir", str(tmp_path))
    assert line.startswith(f"error: {tmp_path.name}/Pulumi.many.yaml: cluster.tags: {count} tags")
    assert fragment in line, line


@pytest.mark.parametrize("stack, own, limit", [("research-a100", 45, 50), ("enterprise-aliyun", 16, 20)])
def test_at_the_tag_limit_the_stack_plans_and_its_fullest_resource_carries_exactly_the_limit(stack, own, limit):
    """The count the check allows is the cloud's limit less what the components add: a plan at the limit proves it."""
    cluster = with_system_price(shipped_cluster(stack))
    cluster["tags"] = {f"k{i}": "v" for i in range(own)}
    folder = Path(tempfile.mkdtemp(prefix="bp-tags-"))
    try:
        write_stack(folder, "full", cluster)
        plan = make_plan("full", folder)
    finally:
        shutil.rmtree(folder)

    def count(tags) -> int:
        tags = json.loads(tags) if isinstance(tags, str) else tags
        return len(tags) if isinstance(tags, (dict, list)) else 0

    assert max(count(r.inputs.get("tags")) for r in plan.registrations) == limit


@pytest.mark.parametrize(
    "argv", [["schema", "--output", "o\x00.json"], ["diff", "a\x00.json", "b.json"], ["plan", "--stack", "s\x00"]]
)
def test_a_nul_in_an_argument_is_one_line_in_process(capsys, argv):
    """os.stat raised ValueError on a NUL (exit 3). No shell can pass one, but
    `main([...])` is called in process (tests, wrappers)."""
    line = refused(capsys, *argv)
    assert line.startswith("error: usage: argument ") and "contains a NUL character" in line


def test_size_write_stack_with_a_directory_as_output_writes_nothing(capsys, tmp_path):
    """Found by `make fuzz` (seed 689578926): the stack was written, then --output refused (two lines, exit 2)."""
    (tmp_path / "adir").mkdir()
    argv = ["size", "--model", "llama-2-7b", "--tokens", "1T", "--cloud", "aws", "--write-stack", "w"]
    line = refused(capsys, *argv, "--stacks-dir", str(tmp_path), "--output", str(tmp_path / "adir"))
    assert line.startswith(f"error: --output: {tmp_path / 'adir'} is a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]
