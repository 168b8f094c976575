"""`size --write-stack`: a stack that plans with exit 0, on the advisor's shape, written atomically or not at all."""

import pytest
import yaml

from blueprints.cli import main
from blueprints.errors import BlueprintError
from blueprints.offline.plan import make_plan
from blueprints.resolver import resolve
from blueprints.sizing.candidates import advise
from blueprints.sizing.workload import build_workload
from blueprints.sizing.write_stack import checkpoint_bytes, write_stack
from blueprints.stackconfig import FULL_CONFIG_KEY

CASES = {
    # 7B on 1T tokens in 30 days: the README's example (multi-node, fabric, spot on AWS).
    "llm-7b": dict(params=7e9, tokens=1e12, target_hours=30 * 24, dataset_tb=4),
    # BERT-base fine-tuning: one small node. (On Alibaba Cloud the system shape has no sourced price, so the advisor
    # refuses to write it: test_an_alibaba_stack_is_not_written_while_its_system_price_is_unknown.)
    "bert": dict(params=110e6, tokens=5e9, seq_len=512, micro_batch=8, clouds=("aws",), regions=("us-east-1",)),
}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stacks")
    out = {}
    for name, fields in CASES.items():
        advice = advise(build_workload(**fields))
        out[name] = (advice, write_stack(advice, name, folder))
    return folder, out


@pytest.mark.parametrize("name", list(CASES))
def test_written_stack_plans_with_exit_0(written, name):
    folder, out = written
    plan = make_plan(name, folder)
    assert plan.exit_code == 0, [f["message"] for f in plan.findings]
    assert plan.cost.monthly_usd <= plan.cost.monthly_budget_usd


@pytest.mark.parametrize("name", list(CASES))
def test_resolver_picks_the_advisors_shape_region_and_count(written, name):
    folder, out = written
    advice, path = out[name]
    pick = advice.cheapest
    plan = make_plan(name, folder, packs=[])
    group = resolve(plan.resolved.spec).node_groups[0]
    assert (group.shape.instance_type, plan.resolved.spec.region) == (pick.shape.instance_type, pick.region)
    assert group.spec.desired_nodes == pick.nodes
    assert plan.resolved.spec.networking.rdma == (pick.nodes > 1)
    # ... and prices it as the advisor did: the same rate for the purchase option the stack uses.
    best = pick.best()
    if best.option in ("on-demand", "spot"):
        assert group.usd_per_hour == best.quote.usd_per_hour and group.price_option == best.option


def test_budget_is_the_plans_estimate_plus_the_margin(written):
    folder, out = written
    plan = make_plan("llm-7b", folder, packs=[])
    budget = plan.cost.monthly_budget_usd
    assert plan.cost.monthly_usd * 1.2 <= budget < plan.cost.monthly_usd * 1.2 + 100


def test_storage_holds_dataset_and_checkpoints(written):
    folder, out = written
    advice, path = out["llm-7b"]
    cluster = yaml.safe_load(path.read_text())["config"][FULL_CONFIG_KEY]
    need_gb = 4 * 1000 + 3 * checkpoint_bytes(advice) / 1e9  # 4 TB data + 3 checkpoints of 7B x 14 bytes
    assert cluster["storage"]["parallelFs"]["sizeGib"] * 2**30 / 1e9 >= need_gb
    assert cluster["storage"]["parallelFs"]["sizeGib"] % 2400 == 0
    assert cluster["nodeGroups"]["gpu"]["capacity"] in ("on-demand", "spot")


def test_an_existing_stack_is_never_overwritten(written):
    folder, out = written
    advice, path = out["llm-7b"]
    before = path.read_text()
    with pytest.raises(BlueprintError, match="exists"):
        write_stack(advice, "llm-7b", folder)
    assert path.read_text() == before


def test_a_stack_that_would_not_plan_is_not_written(tmp_path, monkeypatch):
    from blueprints.sizing import write_stack as module

    advice = advise(build_workload(**CASES["bert"]))
    monkeypatch.setattr(module, "CAPACITY_BY_OPTION", {k: "reservation" for k in module.CAPACITY_BY_OPTION})
    with pytest.raises(BlueprintError):  # reservation capacity needs an id: the plan refuses it
        write_stack(advice, "broken", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_alibaba_stack_is_not_written_while_its_system_price_is_unknown(tmp_path, capsys):
    """Unknown is never $0: the budget rule cannot judge the stack, so nothing is written and the line says why."""
    argv = [
        "size",
        "--params",
        "110M",
        "--tokens",
        "5B",
        "--cloud",
        "alicloud",
        "--region",
        "cn-hangzhou",
        "--stacks-dir",
        str(tmp_path),
        "--write-stack",
        "bert",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--write-stack" in err and "expected cost is unknown" in err and "ecs.g7.xlarge" in err
    assert list(tmp_path.iterdir()) == []


def test_cli_writes_the_stack_and_bad_names_are_one_line(tmp_path, capsys):
    argv = [
        "size",
        "--params",
        "110M",
        "--tokens",
        "5B",
        "--cloud",
        "aws",
        "--region",
        "us-east-1",
        "--stacks-dir",
        str(tmp_path),
    ]
    assert main(argv + ["--write-stack", "Bad_Name"]) == 2
    assert "--write-stack" in capsys.readouterr().err and list(tmp_path.iterdir()) == []
    assert main(argv + ["--write-stack", "bert"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["Pulumi.bert.yaml"]


@pytest.mark.parametrize("name", list(CASES))
def test_written_stack_validates_against_the_projects_json_schema(written, name):
    # Issue 26: --write-stack wrote parallelFs.type "default", which `python -m blueprints schema` rejects.
    import jsonschema

    from blueprints.schema import stack_config_schema

    folder, out = written
    document = yaml.safe_load(out[name][1].read_text())
    jsonschema.validate(document, stack_config_schema())
    fs = document["config"][FULL_CONFIG_KEY]["storage"].get("parallelFs")
    assert fs is None or fs["type"] in ("lustre", "cpfs")
