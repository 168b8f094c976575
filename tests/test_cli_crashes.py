"""Issue #27, item 2: inputs that crashed with a traceback are one line naming the field, exit 2.

The real CLI runs in a child process, bounded as the hostile-input tests are; a `--output` path is given
so each case also shows nothing is written when the input is refused.
"""

import math

import pytest

from conftest import one_line, run_cli, shipped_cluster, write_stack


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
