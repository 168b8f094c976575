"""Issue 23 items 10 and 12 in the diff: a shrink the service refuses is an error (acknowledged or not), and a
namespace deletion is data loss that needs the acknowledgement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blueprints.offline import diff as diff_module
from blueprints.offline.diff import check_exit_code, diff_plans
from blueprints.offline.diff_render import render_diff_markdown, render_diff_text
from blueprints.offline.plan import make_plan
from conftest import CPFS_ENCRYPTION_RULE, resources, shipped_cluster, shipped_plan, with_system_price, write_stack


def _plan(tmp_path: Path, stack: str, change) -> dict:
    """The stack under its own name (so URNs line up across two commits) with a change, its system nodes priced and
    CPFS's encryption finding lowered to advisory (as a `--policy-pack-config` does) so the diff's verdict is about
    the change alone."""
    cluster = with_system_price(shipped_cluster(stack))
    change(cluster)
    folder = tmp_path / str(len(list(tmp_path.iterdir())))
    folder.mkdir()
    write_stack(folder, stack, cluster)
    waivers = [folder / f"{pack}.json" for pack in ("baseline", "mlps")]  # the packs with the encryption rule
    for waiver in waivers:
        waiver.write_text(json.dumps({CPFS_ENCRYPTION_RULE: "advisory"}))
    return make_plan(stack, folder, pack_config_paths=waivers).to_json()


def _size(gib):
    return lambda c: c.setdefault("storage", {}).setdefault("parallelFs", {}).update(sizeGib=gib)


@pytest.mark.parametrize(
    "stack,before,after,kind",
    [
        ("research-a100-aliyun", 10800, 9600, "alicloud:nas/fileSystem:FileSystem"),
        ("research-a100", 12000, 9600, "aws:fsx/lustreFileSystem:LustreFileSystem"),
    ],
)
def test_a_file_system_shrink_is_an_error_even_when_acknowledged(tmp_path, monkeypatch, stack, before, after, kind):
    base, head = _plan(tmp_path, stack, _size(before)), _plan(tmp_path, stack, _size(after))
    [diff] = diff_plans({stack: base}, {stack: head})
    [fs] = [c for c in diff.changed if c.type == kind]
    [why] = fs.impossible
    assert f": {before} -> {after} is impossible:" in why and "https://" in why
    assert check_exit_code([diff], acknowledged=True) == 1
    assert "!! BLOCKS MERGE: " + kind in render_diff_text([diff], acknowledged=True)
    # growing is what the services allow
    [grow] = diff_plans({stack: head}, {stack: base})
    assert not [c for c in grow.changed if c.impossible] and check_exit_code([grow], acknowledged=False) == 0
    # as the diff was before: the CPFS shrink was a plain update and passed
    monkeypatch.setattr(diff_module, "impossible_in_place", lambda *a: [])
    [old] = diff_plans({stack: base}, {stack: head})
    [fs] = [c for c in old.changed if c.type == kind]
    if kind.startswith("alicloud"):
        assert not fs.replaced  # CPFS: a plain update, which the API refuses during `pulumi up`
    else:
        assert fs.destroys_data  # FSx: the provider replaces it, passing once the data loss is acknowledged
    assert check_exit_code([old], acknowledged=True) == 0


def test_a_namespace_deletion_needs_the_acknowledgement(tmp_path, monkeypatch):
    stack = "startup-t4"
    base = _plan(tmp_path, stack, lambda c: None)
    head = _plan(tmp_path, stack, lambda c: None)
    head["resources"] = [
        r
        for r in head["resources"]
        if not (r["type"] == "kubernetes:core/v1:Namespace" and r["inputs"]["metadata"]["name"] == "ml")
    ]
    [diff] = diff_plans({stack: base}, {stack: head})
    assert any("Namespace ml would be DELETED" in r for r in diff.data_loss)
    assert check_exit_code([diff], acknowledged=False) == 1
    assert check_exit_code([diff], acknowledged=True) == 0
    monkeypatch.setattr(diff_module, "namespace_deletions", lambda *a: [])  # the diff as it was: exit 0
    assert check_exit_code(diff_plans({stack: base}, {stack: head}), acknowledged=False) == 0


def _old_trainer_namespace(self):
    """The default before issue 23: the team `training`, else the first team, else `training`."""
    if self.training_namespace:
        return self.training_namespace
    return "training" if "training" in self.teams or not self.teams else sorted(self.teams)[0]


def test_adding_teams_keeps_the_training_namespace_and_gives_each_team_its_identity(tmp_path, monkeypatch):
    stack = "startup-t4"
    teamless = lambda c: c.setdefault("kubernetes", {}).update(teams={})  # noqa: E731
    two_teams = lambda c: c.setdefault("kubernetes", {}).update(  # noqa: E731
        teams={"ml": {"gpus": 1}, "vision": {"gpus": 1}}
    )
    base, head = _plan(tmp_path, stack, teamless), _plan(tmp_path, stack, two_teams)
    [diff] = diff_plans({stack: base}, {stack: head})
    assert not diff.data_loss and check_exit_code([diff], acknowledged=False) == 0
    trusted = {
        r["name"]: r["inputs"]["assumeRolePolicy"]
        for r in head["resources"]
        if r["type"] == "aws:iam/role:Role" and "-trainer" in r["name"]
    }
    assert sorted(trusted) == [f"{stack}-trainer", f"{stack}-trainer-ml", f"{stack}-trainer-vision"]
    for name, ns in (
        (f"{stack}-trainer", "training"),
        (f"{stack}-trainer-ml", "ml"),
        (f"{stack}-trainer-vision", "vision"),
    ):
        assert f"system:serviceaccount:{ns}:trainer" in trusted[name]
    accounts = {
        r["inputs"]["metadata"]["namespace"]
        for r in head["resources"]
        if r["type"] == "kubernetes:core/v1:ServiceAccount" and r["inputs"]["metadata"]["name"] == "trainer"
    }
    assert accounts == {"training", "ml", "vision"}
    assert sorted(head["outputs"]["trainer_role_arns"]) == ["ml", "training", "vision"]

    # as it was: the trainer namespace moved to the first team and `training` was deleted; the diff now says so
    from blueprints.spec import KubernetesSpec

    monkeypatch.setattr(KubernetesSpec, "trainer_namespace", property(_old_trainer_namespace))
    old_head = _plan(tmp_path, stack, two_teams)
    [old] = diff_plans({stack: base}, {stack: old_head})
    assert any("Namespace training would be DELETED" in r for r in old.data_loss)
    assert check_exit_code([old], acknowledged=False) == 1 and check_exit_code([old], acknowledged=True) == 0


def test_the_kept_training_namespace_holds_data_but_no_gpu_work_beside_the_queues():
    plan = shipped_plan("research-a100")
    ranges = {r["metadata"]["namespace"]: r["spec"]["limits"] for r in resources(plan, "kubernetes:core/v1:LimitRange")}
    assert ranges["training"] == [{"type": "Container", "max": {"nvidia.com/gpu": "0"}}]
    assert ranges["research"][0]["max"] == {"nvidia.com/gpu": "8"}  # the team's maxGpusPerPod; its queue admits it


def _engine(engine: str):
    return lambda c: c.setdefault("autoscaling", {}).update(engine=engine)


def test_an_autoscaling_engine_switch_replaces_the_gpu_nodes_and_needs_the_acknowledgement(tmp_path):
    """Issue #40 item 3: cluster-autoscaler -> karpenter deletes the managed GPU node group and creates a NodePool
    (and the reverse): the nodes are replaced and running GPU pods evicted, which the diff says and the label
    acknowledges."""
    stack = "research-a100"
    managed, karpenter = (
        _plan(tmp_path, stack, _engine("cluster-autoscaler")),
        _plan(tmp_path, stack, _engine("karpenter")),
    )
    [switch] = diff_plans({stack: managed}, {stack: karpenter})
    assert check_exit_code([switch], acknowledged=False) == 1
    assert check_exit_code([switch], acknowledged=True) == 0
    [why] = switch.node_replacements
    assert why.startswith(
        "autoscaling engine switch cluster-autoscaler -> karpenter: managed node group research-a100-gpu"
    )
    assert "is DELETED and Karpenter NodePool gpu created" in why and "running GPU pods are evicted" in why
    assert "delete-managed-node-group" in why  # the source of what deleting the group does
    text = render_diff_text([switch])
    assert "!! NODES REPLACED: autoscaling engine switch cluster-autoscaler -> karpenter" in text
    assert "!! BLOCKS MERGE: the autoscaling engine switch replaces the GPU nodes" in text
    comment = render_diff_markdown([switch])
    assert "**This change replaces GPU nodes; running GPU pods are evicted:**" in comment
    assert "The check fails until the pull request carries the `data-loss-acknowledged` label." in comment
    assert "Acknowledged with the `data-loss-acknowledged` label." in render_diff_markdown([switch], acknowledged=True)

    [back] = diff_plans({stack: karpenter}, {stack: managed})
    [why] = back.node_replacements
    assert why.startswith("autoscaling engine switch karpenter -> cluster-autoscaler: Karpenter NodePool gpu")
    assert "karpenter-provider-aws v1.14.1" in why
    assert check_exit_code([back], acknowledged=False) == 1 and check_exit_code([back], acknowledged=True) == 0

    # no switch, no replacement: the same engine on both sides
    [same] = diff_plans({stack: karpenter}, {stack: karpenter})
    assert not same.node_replacements and check_exit_code([same], acknowledged=False) == 0
