"""`python -m blueprints size`: text, JSON and Markdown output; bad input is one line naming the field, exit 2."""

import json
import subprocess
import sys

import pytest

from blueprints.cli import main
from blueprints.stackconfig import ROOT

SEVEN_B = ["size", "--params", "7B", "--tokens", "1T", "--target-days", "30"]


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "argv, fragments",
    [
        (["--params", "7X", "--tokens", "1T"], ("--params", "unknown unit 'X'", "K, M, B")),
        (["--params", "7b", "--tokens", "1T"], ("--params", "unknown unit 'b'")),
        (["--params", "seven", "--tokens", "1T"], ("--params", "not a count")),
        (["--params", "7B", "--tokens", "0"], ("--tokens", "greater than 0")),
        (["--params", "7B", "--tokens", "1T", "--precision", "fp64"], ("--precision", "fp64", "bf16")),
        (["--params", "7B", "--tokens", "1T", "--precision", "int4"], ("int4 is for inference only", "bf16")),
        (["--params", "7B"], ("tokens",)),
        (["--params", "7B", "--tokens", "1T", "--sharding", "zero4"], ("--sharding", "zero3")),
        (["--params", "7B", "--tokens", "1T", "--mfu", "1.5"], ("--mfu", "less than or equal to 1")),
        # cn-nanjing sells only 1-GPU T4 shapes pay-as-you-go (Alibaba's DescribeZones data, tests/data/alicloud).
        (
            ["--params", "175B", "--tokens", "1T", "--cloud", "alicloud", "--region", "cn-nanjing"],
            ("--region", "no shape in cn-nanjing fits", "allowed"),
        ),
        (["--params", "7B", "--tokens", "1T", "--region", "moon-1"], ("--region", "moon-1", "regions:")),
        (["--params", "7B", "--tokens", "1T", "--cloud", "gcp"], ("--cloud", "'aws' or 'alicloud'")),
        (["--params", "7B", "--tokens", "1T", "--target-days", "0"], ("--target-days", "greater than 0")),
    ],
)
def test_bad_size_input_is_one_line_naming_the_field(capsys, argv, fragments):
    code, out, err = run(capsys, "size", *argv)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1 and lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def test_json_names_formulas_sources_and_marks(capsys):
    code, out, _ = run(capsys, *SEVEN_B, "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert {p["name"] for p in data["memory"]["parts"]} == {"weights", "gradients", "optimizer_states", "activations"}
    assert all(p["formula"] for p in data["memory"]["parts"])
    assert "6 x params x tokens" in data["compute"]["rule"] and "Llama 3" in data["compute"]["mfuSource"]
    assert data["compute"]["flops"] == pytest.approx(6 * 7e9 * 1e12)
    assert data["cheapest"] == {
        "instanceType": data["candidates"][0]["instanceType"],
        "region": data["candidates"][0]["region"],
    }
    for c in data["candidates"]:
        for o in c["options"]:
            if o["usdPerHour"] is not None:
                assert o["source"] and o["priceRegion"] and o["asOf"]


def test_text_and_markdown_show_both_clouds(capsys):
    _, text, _ = run(capsys, *SEVEN_B)
    _, markdown, _ = run(capsys, *SEVEN_B, "--format", "markdown")
    for out in (text, markdown):
        assert "p5" in out and "ecs." in out and "cheapest" in out and "fastest" in out
        assert "6 x params x tokens" in out
    assert markdown.count("\n| ") >= 3


def test_the_real_process_exits_2_with_one_line():
    result = subprocess.run(
        [sys.executable, "-m", "blueprints", "size", "--params", "7Q", "--tokens", "1T"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_plan_and_size_do_not_import_the_forecaster():
    # statsmodels (requirements-advisor.txt) is for --usage-history only; `make plan` must not need it.
    code = (
        "import sys; from blueprints.cli import main; main(['size', '--params', '7B', '--tokens', '1T', "
        "'--format', 'json']); import blueprints.offline.plan; "
        "print(sorted(m for m in ('statsmodels', 'numpy', 'pandas', 'scipy') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip().endswith("[]"), result.stderr[-500:]
