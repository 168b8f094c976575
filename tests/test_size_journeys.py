"""Issue #37: the three users' journeys, start to finish with only the project's commands: `size ... --write-stack`,
then `plan` of the written stack, exit 0 and (serving) the model's Deployment in the plan. And the bad input the
new flags take: one line, exit 2."""

import json

import pytest
import yaml

from blueprints.cli import main
from blueprints.stackconfig import FULL_CONFIG_KEY

# The account's rate for Alibaba's system shape, which has no sourced list price (README: prices): an example
# negotiated rate, as a user's prices file would give it.
ALIBABA_PRICES = "prices:\n  ecs.g7.xlarge: 0.25\n"


def _write_and_plan(tmp_path, capsys, stack, argv):
    stacks = tmp_path / "stacks"
    stacks.mkdir()
    assert main(["size", *argv, "--stacks-dir", str(stacks), "--write-stack", stack]) == 0, capsys.readouterr().err
    capsys.readouterr()
    code = main(["plan", "--stack", stack, "--stacks-dir", str(stacks), "--format", "json"])
    plan = json.loads(capsys.readouterr().out)
    written = yaml.safe_load((stacks / f"Pulumi.{stack}.yaml").read_text())["config"][FULL_CONFIG_KEY]
    return code, plan, written


def _deployment(plan, stack, model):
    return [
        r
        for r in plan["resources"]
        if r["type"] == "kubernetes:apps/v1:Deployment" and r["name"] == f"{stack}-serve-{model}-deployment"
    ]


def test_startup_one_t4_endpoint_for_a_7b_model(tmp_path, capsys):
    """Journey 1: at the default bf16 the T4 rows are not silently missing: the output says T4 has no bf16 and names
    fp16 and int8; at int8 the T4 is the cheapest, and the written stack serves the model and plans with exit 0."""
    ask = ["--mode", "inference", "--model", "mistral-7b", "--rps", "1", "--cloud", "aws", "--region", "us-east-1"]
    assert main(["size", *ask]) == 0
    out = capsys.readouterr().out
    assert "T4 has no bf16 figure (Turing tensor cores have no BF16); nearest: --precision fp16 or int8" in out
    code, plan, written = _write_and_plan(tmp_path, capsys, "t4-endpoint", [*ask, "--precision", "int8"])
    assert code == 0 and plan["exitCode"] == 0
    assert written["nodeGroups"]["gpu"]["gpuModel"] == "T4"
    served = written["serving"]["models"]["mistral-7b"]
    assert (served["model"], served["precision"], served["tensorParallel"]) == ("mistral-7b", "int8", 1)
    assert served["maxContext"] == 512 + 256 and served["minReplicas"] >= 1
    assert served["signal"] and served["target"]
    assert _deployment(plan, "t4-endpoint", "mistral-7b")


def test_lab_with_64_h100s_says_so(tmp_path, capsys):
    """Journey 2: 8 x p5.48xlarge (64 H100) the lab has: the time and cost on exactly them, and a stack of them."""
    ask = ["--model", "llama-3-70b", "--tokens", "1T", "--nodes", "8", "--shape", "p5.48xlarge"]
    assert main(["size", *ask, "--region", "us-east-1", "--format", "json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    rows = advice["candidates"]
    assert [(r["instanceType"], r["nodes"], r["gpus"]) for r in rows] == [("p5.48xlarge", 8, 64)]
    priced = {o["option"]: o["costToFinishUsd"] for o in rows[0]["options"] if o["costToFinishUsd"] is not None}
    assert {"on-demand", "spot"} <= set(priced) and rows[0]["hours"] > 0
    code, plan, written = _write_and_plan(tmp_path, capsys, "lab-h100", [*ask, "--region", "us-east-1"])
    assert code == 0 and plan["exitCode"] == 0
    group = written["nodeGroups"]["gpu"]
    assert (group["gpuModel"], group["gpusPerNode"], group["desiredNodes"]) == ("H100", 8, 8)


def test_gpus_64_lists_only_shapes_that_make_exactly_64(capsys):
    assert main(["size", "--params", "7B", "--tokens", "1T", "--gpus", "64", "--cloud", "aws", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["candidates"]
    assert rows and all(r["gpus"] == 64 for r in rows)


def test_serving_fleet_reports_the_rate_it_sustains(capsys):
    argv = ["size", "--mode", "inference", "--model", "mistral-7b", "--precision", "int8", "--nodes", "2"]
    argv += ["--shape", "g4dn.xlarge", "--region", "us-east-1", "--format", "json"]
    assert main(argv) == 0
    (row,) = json.loads(capsys.readouterr().out)["candidates"]
    assert (row["nodes"], row["replicas"]) == (2, 2)
    assert row["sustainedRequestsPerSecond"] == pytest.approx(2 * row["requestsPerSecondPerReplica"], rel=1e-3)
    assert row["tpotMs"] > 0 and row["ttftMs"] > 0


def test_enterprise_70b_in_cn_wulanchabu(tmp_path, capsys):
    """Journey 3: nothing sold pay-as-you-go there fits a 70B model; the output says what is on request instead of
    "no shape fits (1 x A10)", never calls it the cheapest, and with the account's prices the stack is written and
    plans with exit 0."""
    ask = ["--mode", "inference", "--model", "llama-3-70b", "--rps", "1", "--cloud", "alicloud"]
    ask += ["--region", "cn-wulanchabu"]
    assert main(["size", *ask, "--format", "json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert advice["cheapest"] is None
    assert all("on request" in r["marks"] for r in advice["candidates"])
    assert any("ecs.gn8v-8x.48xlarge" in n for n in advice["notes"] if n.startswith("nothing sold pay-as-you-go"))
    prices = tmp_path / "prices.yaml"
    prices.write_text(ALIBABA_PRICES)
    code, plan, written = _write_and_plan(tmp_path, capsys, "ent-70b", [*ask, "--prices", str(prices)])
    assert code == 0 and plan["exitCode"] == 0
    assert written["prices"] == {"ecs.g7.xlarge": 0.25}
    assert _deployment(plan, "ent-70b", "llama-3-70b")


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--gpus", "0"], "--gpus: "),
        (["--nodes", "2", "--shape", "p9.huge"], "--shape: 'p9.huge' is not a GPU shape"),
        (["--nodes", "2"], "--nodes and --shape go together"),
        (["--gpus", "8", "--nodes", "1", "--shape", "p5.48xlarge"], "not both"),
        (["--gpus", "1001"], "no catalog shape makes exactly 1001 GPUs"),
    ],
)
def test_bad_fleet_is_one_line(capsys, extra, fragment):
    assert main(["size", "--params", "7B", "--tokens", "1T", "--cloud", "aws", *extra]) == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("prices:\n  ecs.g99.xlarge: 0.25\n", "prices.ecs.g99.xlarge: not an instance type in the catalog"),
        ("prices:\n  ecs.g7.xlarge: -1\n", "must be a positive, finite USD amount"),
        ("prices:\n  ecs.g7.xlarge: {reserved: 1}\n", "is not a purchase option"),
        ("- a list\n", "prices: allowed: a mapping"),
    ],
)
def test_bad_prices_file_is_one_line(tmp_path, capsys, text, fragment):
    path = tmp_path / "prices.yaml"
    path.write_text(text)
    argv = ["size", "--params", "110M", "--tokens", "5B", "--cloud", "alicloud", "--prices", str(path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and str(path) in err and len(err.strip().splitlines()) == 1, err


def test_risk_notes_carry_their_sources(capsys):
    """Item 6: the cheapest serving pick is one replica on spot, the cheapest 8-node training gang is on spot with
    EFA: each says so with its source; a spare replica takes the serving note away."""
    serve = ["size", "--mode", "inference", "--model", "mistral-7b", "--rps", "1", "--precision", "int8"]
    serve += ["--cloud", "aws", "--region", "us-east-1", "--format", "json"]
    assert main(serve) == 0
    (risk,) = json.loads(capsys.readouterr().out)["risks"]
    assert "single serving replica on spot" in risk and "spot-instance-termination-notices" in risk
    assert main([*serve, "--spare-replicas", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["risks"] == []
    train = ["size", "--model", "llama-3-70b", "--tokens", "1T", "--nodes", "8", "--shape", "p5.48xlarge"]
    assert main([*train, "--region", "us-east-1", "--format", "json"]) == 0
    risks = json.loads(capsys.readouterr().out)["risks"]
    assert any("training gang on spot" in r for r in risks)
    assert any("placement group" in r and "placement-strategies.html" in r for r in risks)


def test_training_on_a_gpu_without_the_precision_names_the_nearest(capsys):
    assert main(["size", "--params", "7B", "--tokens", "1T", "--cloud", "aws", "--region", "us-east-1"]) == 0
    out = capsys.readouterr().out
    assert "T4 bf16: no figure (Turing tensor cores have no BF16), so no time or cost; nearest: --precision fp16" in out


def test_prices_file_ranks_with_the_accounts_rate(tmp_path, capsys):
    """Item 5: the account's spot rate for one shape makes it the cheapest, and the output cites it as theirs."""
    path = tmp_path / "prices.yaml"
    path.write_text("prices:\n  g6.xlarge: {spot: 0.01}\n")
    argv = ["size", "--mode", "inference", "--model", "mistral-7b", "--rps", "1", "--precision", "int8"]
    argv += ["--cloud", "aws", "--region", "us-east-1", "--format", "json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["cheapest"]["instanceType"] == "g4dn.xlarge"
    assert main([*argv, "--prices", str(path)]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert advice["cheapest"]["instanceType"] == "g6.xlarge"
    assert advice["candidates"][0]["best"]["source"] == "your rate (--prices)"


def test_the_cn_shanghai_70b_stack_at_4096_by_16_is_written_and_plans(tmp_path, capsys):
    """The issue's cn-shanghai case: asked at maxContext 4096 x maxBatch 16, the advisor writes TP 8 on the 8 x L20
    shape (not TP 4, which the plan refuses), with the account's prices, and the plan exits 0 serving the model."""
    prices = tmp_path / "prices.yaml"
    prices.write_text(ALIBABA_PRICES)
    ask = ["--mode", "inference", "--model", "llama-3-70b", "--rps", "1", "--cloud", "alicloud"]
    ask += ["--region", "cn-shanghai", "--max-context", "4096", "--max-batch", "16", "--prices", str(prices)]
    code, plan, written = _write_and_plan(tmp_path, capsys, "sh-70b", ask)
    assert code == 0 and plan["exitCode"] == 0
    served = written["serving"]["models"]["llama-3-70b"]
    assert (served["tensorParallel"], served["maxContext"], served["maxBatch"]) == (8, 4096, 16)
    assert _deployment(plan, "sh-70b", "llama-3-70b")
