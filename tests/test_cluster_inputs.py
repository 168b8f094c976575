"""No public input of GpuCluster is both accepted and overwritten (issue 24).

The cluster builds the Kubernetes layer's args from the stack's platform settings plus what only it knows (node
images, system selector, its roles' ServiceAccounts, storage classes, shared volumes, the autoscaler). A field the
cluster fills must not also be an input a library user can set (provider/<cloud>/schema.json), or the user's value
is silently replaced; and the cluster must not rewrite its own args (`replace(args....)`, `args.x = ...`).
"""

import ast
import dataclasses
import json
from pathlib import Path

import pytest

from components.cluster_args import PlatformSettings
from components.kubernetes.platform import PlatformArgs

ROOT = Path(__file__).resolve().parents[1]
CLOUDS = ("aws", "alicloud")


def _rooted_in_args(node: ast.AST) -> bool:
    """`args.x...` or `self._args.x...`: an expression reading the component's own args."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "_args"
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            return True
        node = node.value
    return isinstance(node, ast.Name) and node.id == "args"


def _callee(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


def args_rewrites(source: str) -> list[str]:
    """Places that copy the args with fields replaced or assign to an args field."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and _callee(node) in ("replace", "__setattr__", "setattr")
            and node.args
            and _rooted_in_args(node.args[0])
        ):
            found.append(f"line {node.lineno}: {_callee(node)}({ast.unparse(node.args[0])}, ...)")
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AugAssign, ast.AnnAssign))
            else []
        )
        found += [
            f"line {node.lineno}: {ast.unparse(t)} = ..."
            for t in targets
            if isinstance(t, (ast.Attribute, ast.Subscript)) and _rooted_in_args(t)
        ]
    return found


def cluster_filled(source: str) -> set[str]:
    """The platform fields a cluster fills: keywords of the call that turns `args.platform` into the layer's args."""
    return {
        kw.arg
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and node.args
        and ast.unparse(node.args[0]) in ("args.platform", "self._args.platform")
        for kw in node.keywords
        if kw.arg
    }


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _source(cloud: str) -> str:
    return (ROOT / "components" / cloud / "cluster.py").read_text()


@pytest.mark.parametrize("cloud", CLOUDS)
def test_the_cluster_never_rewrites_its_args(cloud):
    assert args_rewrites(_source(cloud)) == []


def test_the_rewrite_check_finds_what_it_looks_for():
    source = (
        "def f(self, args):\n    GpuPlatform(n, replace(args.platform, autoscaler=None))\n"
        "    self._args.platform.labels = {}\n    args.tags['a'] = 'b'\n"
    )
    assert len(args_rewrites(source)) == 3
    assert cluster_filled(source) == {"autoscaler"}


@pytest.mark.parametrize("cloud", CLOUDS)
def test_no_platform_input_of_the_cluster_is_one_the_cluster_fills(cloud):
    filled = cluster_filled(_source(cloud))
    assert filled, f"components/{cloud}/cluster.py: no call building the platform args from args.platform"
    schema = json.loads((ROOT / "provider" / cloud / "schema.json").read_text())
    cluster = schema["resources"][f"gpu-blueprints-{cloud}:index:GpuCluster"]["inputProperties"]
    platform_type = schema["types"][cluster["platform"]["$ref"].removeprefix("#/types/")]
    overwritten = sorted(set(platform_type["properties"]) & {camel(f) for f in filled})
    assert overwritten == [], f"GpuCluster.platform inputs the {cloud} cluster overwrites: {overwritten}"
    assert not any(t.endswith(":PlatformArgs") for t in schema["types"]), "the full PlatformArgs is an input"


@pytest.mark.parametrize("cloud", CLOUDS)
def test_the_stack_settings_and_the_cluster_fill_the_platform_args_between_them(cloud):
    """Every PlatformArgs field comes from exactly one side: the settings (the stack) or the cluster."""
    settings = {f.name for f in dataclasses.fields(PlatformSettings)}
    filled = cluster_filled(_source(cloud))
    assert not settings & filled
    assert settings | filled == {f.name for f in dataclasses.fields(PlatformArgs)}


@pytest.mark.parametrize("cloud", CLOUDS)
def test_compose_hands_the_cluster_one_list_of_gpu_groups(cloud):
    """The Kubernetes layer's view of each group is derived from the cluster's own list, not handed over twice."""
    assert "node_groups" not in {f.name for f in dataclasses.fields(PlatformSettings)}
    assert "node_groups=[g.nodes() for g in args.gpu_groups]" in _source(cloud)
