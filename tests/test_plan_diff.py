"""The pull-request diff for real changes to research-a100: a node count, and an FSx replacement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blueprints.cli import main
from blueprints.offline.diff import COMMENT_MARKER, check_exit_code, diff_plans
from blueprints.offline.diff_render import render_diff_markdown, render_diff_text
from blueprints.offline.plan import make_plan
from conftest import shipped_cluster, shipped_plan, write_stack

STACK = "research-a100"


def _head(tmp_path: Path, change) -> dict:
    """The same stack name with a change, so URNs line up as they do across two commits."""
    cluster = shipped_cluster(STACK)
    change(cluster)
    write_stack(tmp_path, STACK, cluster)
    return make_plan(STACK, tmp_path).to_json()


@pytest.fixture(scope="module")
def base() -> dict:
    return shipped_plan(STACK).to_json()


def test_desired_nodes_change_is_ignored_as_the_node_group_ignores_it_and_not_priced(tmp_path, base):
    head = _head(tmp_path, lambda c: c.setdefault("nodeGroups", {}).setdefault("gpu", {}).update(desiredNodes=2))
    assert head["cost"]["hourlyUsd"] > base["cost"]["hourlyUsd"]  # the head's own estimate prices 2 nodes
    [diff] = diff_plans({STACK: base}, {STACK: head})
    assert not diff.added and not diff.removed and not diff.changed and not diff.data_loss
    [ignored] = diff.ignored
    assert ignored.type == "aws:eks/nodeGroup:NodeGroup"
    assert ignored.ignored == [("scalingConfig.desiredSize", 1, 2)] and ignored.inputs == []
    assert diff.hourly_delta == 0 and diff.monthly_delta == 0 and diff.worst_monthly_delta == 0
    comment = render_diff_markdown([diff])
    assert comment.startswith(COMMENT_MARKER)
    assert "`scalingConfig.desiredSize`: 1 → 2 ignored (`ignoreChanges`): not deployed, not priced" in comment
    assert "destroy data" not in comment


def test_node_group_to_spot_is_a_replacement_because_of_capacity_type(tmp_path, base):
    head = _head(tmp_path, lambda c: c.setdefault("nodeGroups", {}).setdefault("gpu", {}).update(capacity="spot"))
    [diff] = diff_plans({STACK: base}, {STACK: head})
    [group] = [c for c in diff.changed if c.type == "aws:eks/nodeGroup:NodeGroup"]
    assert group.replaced and not group.destroys_data
    [reason] = group.replaces
    assert reason.startswith("capacityType: ON_DEMAND -> SPOT forces replacement (provider schema: ")
    assert "internal/service/eks/node_group.go" in reason
    # the fixed node group name cannot clash: the component deletes the old group first
    assert group.delete_before_replace and not group.name_clash and not diff.blockers(acknowledged=False)
    text = render_diff_text([diff])
    assert f"± aws:eks/nodeGroup:NodeGroup {group.name} (replace, delete first)" in text
    assert "because capacityType: ON_DEMAND -> SPOT forces replacement" in text
    assert "**replace** (delete first)" in render_diff_markdown([diff])


def test_a_replacement_that_would_reuse_a_fixed_name_blocks_the_merge(tmp_path, base):
    head = _head(tmp_path, lambda c: c.setdefault("nodeGroups", {}).setdefault("gpu", {}).update(capacity="spot"))
    for resource in head["resources"]:
        if resource["type"] == "aws:eks/nodeGroup:NodeGroup":
            resource["options"]["deleteBeforeReplace"] = False  # as the component was before issue #17
    [diff] = diff_plans({STACK: base}, {STACK: head})
    [group] = [c for c in diff.changed if c.type == "aws:eks/nodeGroup:NodeGroup"]
    assert group.name_clash == "research-a100-gpu"
    [blocker] = diff.blockers(acknowledged=True)
    assert "second resource named 'research-a100-gpu'" in blocker
    assert check_exit_code([diff], acknowledged=True) == 1


def test_a_budget_change_appears(tmp_path, base):
    head = _head(tmp_path, lambda c: c.setdefault("budget", {}).update(monthlyLimitUsd=45000))
    [diff] = diff_plans({STACK: base}, {STACK: head})
    assert diff.status == "changed" and diff.budget_changed
    assert (diff.budget_before, diff.budget_after) == (30000.0, 45000.0)
    assert "budget $30,000 → $45,000/month" in render_diff_text([diff])
    assert "| $30,000 → $45,000 |" in render_diff_markdown([diff])


def test_replace_on_changes_option_is_honoured(base):
    head = json.loads(json.dumps(base))
    [vpc] = [r for r in head["resources"] if r["type"] == "aws:ec2/vpc:Vpc"]
    vpc["options"]["replaceOnChanges"] = ["tags"]
    vpc["inputs"]["tags"] = dict(vpc["inputs"].get("tags") or {}, owner="someone-else")
    [diff] = diff_plans({STACK: base}, {STACK: head})
    [change] = diff.changed
    assert change.replaced and change.replaces[0].endswith("(resource option replaceOnChanges)")


def test_a_stack_that_fails_to_plan_at_the_head_is_in_the_comment_and_fails_the_check(base):
    [diff] = diff_plans({STACK: base}, {}, {STACK: "stacks/Pulumi.research-a100.yaml: cluster.region: bad"})
    assert diff.status == "failed"
    comment = render_diff_markdown([diff])
    assert "These stacks could not be planned" in comment and "cluster.region: bad" in comment
    assert check_exit_code([diff], acknowledged=True) == 1


def test_fsx_replacement_is_called_out_first_as_data_loss(tmp_path, base):
    head = _head(
        tmp_path,
        lambda c: c.setdefault("storage", {}).setdefault("parallelFs", {}).update(deployment="SCRATCH_2", sizeGib=2400),
    )
    [diff] = diff_plans({STACK: base}, {STACK: head})
    first = diff.changed[0]
    assert first.type == "aws:fsx/lustreFileSystem:LustreFileSystem" and first.destroys_data
    reasons = "\n".join(first.replaces)
    assert "deploymentType: PERSISTENT_2 -> SCRATCH_2 forces replacement (provider schema:" in reasons
    assert "kmsKeyId: " in reasons and "storageCapacity shrinks: 9600 -> 2400" in reasons
    assert first.protected  # production stacks protect data stores
    [reason] = diff.data_loss
    assert "would be REPLACED" in reason and "`pulumi up` will stop" in reason
    comment = render_diff_markdown([diff])
    assert comment.index("This change would destroy data") < comment.index("| stack | status |")
    assert diff.hourly_delta < 0  # SCRATCH_2 at 2,400 GiB costs less than PERSISTENT_2 at 9,600 GiB
    assert "!! DATA LOSS" in render_diff_text([diff]).splitlines()[1]
    # a protected data store: the check fails unless the pull request acknowledges it
    assert check_exit_code([diff], acknowledged=False) == 1 and check_exit_code([diff], acknowledged=True) == 0
    assert "The check fails until the pull request carries the `data-loss-acknowledged` label" in comment


def test_diff_command_exit_code_follows_the_acknowledgement(tmp_path, base, capsys):
    head = _head(
        tmp_path,
        lambda c: c.setdefault("storage", {}).setdefault("parallelFs", {}).update(deployment="SCRATCH_2", sizeGib=2400),
    )
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "head.json").write_text(json.dumps({"formatVersion": 1, "plans": [head], "failures": []}))
    argv = ["diff", str(tmp_path / "base.json"), str(tmp_path / "head.json"), "--format", "markdown"]
    assert main(argv) == 1
    assert main([*argv, "--data-loss-acknowledged"]) == 0
    assert "Acknowledged with the `data-loss-acknowledged` label." in capsys.readouterr().out


def test_diff_command_reads_bundles_and_writes_markdown(tmp_path, base, capsys):
    head = dict(base, stack="research-a100-new")
    (tmp_path / "base.json").write_text(json.dumps({"formatVersion": 1, "plans": [base]}))
    (tmp_path / "head.json").write_text(json.dumps({"formatVersion": 1, "plans": [base, head]}))
    assert (
        main(
            [
                "diff",
                str(tmp_path / "base.json"),
                str(tmp_path / "head.json"),
                "--format",
                "markdown",
                "--output",
                str(tmp_path / "comment.md"),
            ]
        )
        == 0
    )
    comment = (tmp_path / "comment.md").read_text()
    assert "| `research-a100-new` | added |" in comment and "| `research-a100` | unchanged |" in comment


def test_diff_of_something_that_is_not_a_plan_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "x.json").write_text('{"hello": 1}')
    assert main(["diff", str(tmp_path / "x.json"), str(tmp_path / "x.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def _ack_head(base: dict, nodes: int, price_factor: float) -> dict:
    """An ACK head whose GPU pool declares ``nodes`` (ignored) at ``price_factor`` the price per node
    (an in-place instance type change), with the head's own estimate as the plan would compute it."""
    head = json.loads(json.dumps(base))
    [pool] = [
        r for r in head["resources"] if r["name"].endswith("-gpu") and r["type"] == "alicloud:cs/nodePool:NodePool"
    ]
    pool["inputs"]["desiredSize"] = nodes
    pool["inputs"]["instanceTypes"] = ["ecs.gn-other"]
    for item in head["cost"]["items"]:
        if item["resource"] == pool["name"]:
            old = item["usdPerHour"]
            item["usdPerHour"] = round(old * nodes * price_factor, 4)
            head["cost"]["hourlyUsd"] += item["usdPerHour"] - old
    return head


def test_an_ignored_node_count_is_not_priced_but_an_in_place_shape_change_is():
    base = shipped_plan("research-a100-aliyun").to_json()
    gpu = sum(i["usdPerHour"] for i in base["cost"]["items"] if i["resource"] == "research-a100-aliyun-gpu")
    [same_shape] = diff_plans({"s": dict(base, stack="s")}, {"s": dict(_ack_head(base, 3, 1.0), stack="s")})
    assert same_shape.hourly_delta == pytest.approx(0, abs=0.01)
    [dearer] = diff_plans({"s": dict(base, stack="s")}, {"s": dict(_ack_head(base, 3, 2.0), stack="s")})
    assert dearer.hourly_delta == pytest.approx(gpu, abs=0.01)  # one deployed node, now at twice the price
    [change] = dearer.changed
    assert change.inputs == [("instanceTypes", ["ecs.gn7e-c16g1.16xlarge"], ["ecs.gn-other"])]
    assert change.ignored == [("desiredSize", 1, 3)] and not change.replaced


def test_a_resource_renamed_with_an_alias_is_the_same_resource(base):
    head = json.loads(json.dumps(base))
    [vpc] = [r for r in head["resources"] if r["type"] == "aws:ec2/vpc:Vpc"]
    old_urn = vpc["urn"]
    vpc["urn"], vpc["aliases"] = (
        old_urn.replace("$aws:ec2/vpc:Vpc", "$gpu-blueprints:aws:Renamed$aws:ec2/vpc:Vpc"),
        [old_urn],
    )
    [diff] = diff_plans({STACK: base}, {STACK: head})
    assert not diff.added and not diff.removed and diff.status == "unchanged"
    del vpc["aliases"]
    [without] = diff_plans({STACK: base}, {STACK: head})
    assert [r["urn"] for r in without.added] == [vpc["urn"]] and [r["urn"] for r in without.removed] == [old_urn]


def _kubernetes_head(base: dict, type_: str, edit) -> tuple[dict, str]:
    head = json.loads(json.dumps(base))
    resource = next(r for r in head["resources"] if r["type"] == type_)
    edit(resource["inputs"])
    return head, resource["name"]


def test_a_storage_class_parameter_change_replaces_it_deleting_the_named_one_first(base):
    """pulumi-kubernetes forces a new StorageClass on parameters/provisioner, and deletes a named
    object before re-creating it under the same name (diff.go forceNew, provider.go deleteBeforeReplace)."""
    head, name = _kubernetes_head(
        base,
        "kubernetes:storage.k8s.io/v1:StorageClass",
        lambda inputs: inputs.setdefault("parameters", {}).update(type="io2"),
    )
    [diff] = diff_plans({STACK: base}, {STACK: head})
    [change] = [c for c in diff.changed if c.name == name]
    assert change.replaced and change.delete_before_replace and not change.name_clash
    [reason] = change.replaces
    assert reason.startswith("parameters.type: ") and "https://github.com/pulumi/pulumi-kubernetes " in reason
    assert f"± kubernetes:storage.k8s.io/v1:StorageClass {name} (replace, delete first)" in render_diff_text([diff])


def test_a_kubernetes_rename_replaces_creating_first_and_a_label_change_is_in_place(base):
    head, name = _kubernetes_head(
        base, "kubernetes:core/v1:Namespace", lambda inputs: inputs["metadata"].update(name="renamed")
    )
    [diff] = diff_plans({STACK: base}, {STACK: head})
    [change] = [c for c in diff.changed if c.name == name]
    assert change.replaced and not change.delete_before_replace
    head, name = _kubernetes_head(
        base,
        "kubernetes:core/v1:Namespace",
        lambda inputs: inputs["metadata"].setdefault("labels", {}).update(team="x"),
    )
    [diff] = diff_plans({STACK: base}, {STACK: head})
    [change] = [c for c in diff.changed if c.name == name]
    assert not change.replaced and change.inputs
