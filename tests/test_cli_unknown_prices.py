"""Issue #27, item 4: an unknown price is never $0, and `prices:` can be given per purchase option.

Each case plans a variant of a shipped stack with the CLI's `main` in this process (a child process would add only
its start-up) and reads the plan it writes; bad input is checked in a child process, as a user meets it.
"""

import json

import pytest

from blueprints.cli import main
from conftest import run_cli, shipped_cluster, write_stack

BUDGET_RULE = "stack-expected-cost-within-budget"


def plan(tmp_path, change, base="startup-t4"):
    cluster = shipped_cluster(base)
    change(cluster)
    write_stack(tmp_path, "variant", cluster)
    out = tmp_path / "plan.json"
    code = main(["plan", "--stack", "variant", "--stacks-dir", str(tmp_path), "--format", "json", "--output", str(out)])
    assert code in (0, 1)
    return code, json.loads(out.read_text())


def budget_findings(doc):
    return [f for f in doc["findings"] if f["policy"] == BUDGET_RULE]


def uncatalogued_system(cluster):
    # m7i.xlarge is a real AWS type without a row in the system-shape catalog: its price is unknown.
    cluster.setdefault("systemNodes", {})["instanceType"] = "m7i.xlarge"


def test_an_unpriced_system_group_makes_the_cost_unknown_and_fails_the_budget_rule(tmp_path):
    code, doc = plan(tmp_path, uncatalogued_system)
    cost = doc["cost"]
    assert cost["complete"] is False and cost["byComponent"]["system-nodes"]["complete"] is False
    assert cost["budget"]["withinBudget"] is None  # not "within" on the strength of $0
    assert any("m7i.xlarge has no list price" in u for u in cost["unpriced"])
    [finding] = budget_findings(doc)
    assert finding["enforcementLevel"] == "mandatory"
    assert "expected cost is unknown: node groups without a price" in finding["message"]
    assert "m7i.xlarge" in finding["message"] and code == 1


def test_the_stacks_own_price_makes_it_known_again(tmp_path):
    code, doc = plan(tmp_path, lambda c: (uncatalogued_system(c), c.update(prices={"m7i.xlarge": 0.2016})))
    assert doc["cost"]["complete"] is True and doc["cost"]["budget"]["withinBudget"] is True
    assert budget_findings(doc) == [] and code == 0


def test_unknown_is_shown_as_unknown_in_the_text_plan(tmp_path, capsys):
    cluster = shipped_cluster("startup-t4")
    uncatalogued_system(cluster)
    write_stack(tmp_path, "variant", cluster)
    main(["plan", "--stack", "variant", "--stacks-dir", str(tmp_path)])
    result = capsys.readouterr()
    assert "AT LEAST: unpriced node groups are unknown, not $0" in result.out
    assert "(UNKNOWN against the budget)" in result.out and "(within budget)" not in result.out


def spot_group(prices):
    def change(cluster):
        cluster["nodeGroups"] = {
            "gpu": {
                "instanceType": "g4dn.xlarge",
                "gpuModel": "T4",
                "gpusPerNode": 1,
                "capacity": "spot",
                "minNodes": 0,
                "desiredNodes": 1,
                "maxNodes": 2,
            }
        }
        if prices is not None:
            cluster["prices"] = prices

    return change


@pytest.mark.parametrize(
    "prices, rate, option, source",
    [
        (None, 0.1766, "spot", "(us-east-1, spot)"),  # the catalog's us-east-1 spot row
        # a negotiated on-demand rate leaves the spot group's price alone (before, it replaced it)
        ({"g4dn.xlarge": {"on-demand": 0.40}}, 0.1766, "spot", "(us-east-1, spot)"),
        ({"g4dn.xlarge": {"spot": 0.15, "on-demand": 0.40}}, 0.15, "override", "stack override (prices)"),
        ({"g4dn.xlarge": 0.40}, 0.40, "override", "stack override (prices)"),  # the per-type form: every option
    ],
)
def test_prices_per_purchase_option(tmp_path, prices, rate, option, source):
    _, doc = plan(tmp_path, spot_group(prices))
    [row] = [r for r in doc["cost"]["rates"] if r["nodeGroup"] == "gpu"]
    assert row["option"] == option and row["usdPerHour"] == rate and source in row["source"]


def test_a_price_per_option_must_name_a_purchase_option(tmp_path):
    cluster = shipped_cluster("startup-t4")
    cluster["prices"] = {"g4dn.xlarge": {"reserved": 0.3}}
    write_stack(tmp_path, "variant", cluster)
    result = run_cli("plan", "--stack", "variant", "--stacks-dir", str(tmp_path))  # the CLI's main, in this process
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: {tmp_path.name}/Pulumi.variant.yaml: cluster.prices: price for g4dn.xlarge: 'reserved' is not a "
        "purchase option; use on-demand, spot, capacity-block"
    ]
