"""The node contract (components/kubernetes/nodes.py) is the one home of the labels, taints and resource names the
clusters put on GPU nodes and the Kubernetes layer and the offline plan select on: no other module spells them."""

from __future__ import annotations

import ast
from pathlib import Path

from components.kubernetes import nodes
from tests.test_layers import ALLOWED, layer_of, module_name

ROOT = Path(__file__).resolve().parents[1]
NODES = ROOT / "components" / "kubernetes" / "nodes.py"
# Names too common to hunt as literals ("system", "none"); their definition is checked instead.
GENERIC = {"SYSTEM_GROUP"}


def contract_values() -> dict[str, str]:
    """Every string the contract defines at module level (dict values included), by the name that holds it."""
    values = {}
    for name, value in vars(nodes).items():
        if name.isupper() and name not in GENERIC:
            for v in value.values() if isinstance(value, dict) else [value]:
                if isinstance(v, str) and "/" in v:  # the contract's names are all qualified
                    values.setdefault(v, name)
    return values


def may_import_components(path: Path) -> bool:
    """Modules the layers keep from importing components (the spec, the policy library) keep their own spelling:
    the spec's default taint is a user-facing default, policies read engine properties only."""
    layer = layer_of(module_name(path))
    return layer is None or "components" in ALLOWED[layer]


def python_files() -> list[Path]:
    return [
        p
        for top in ("components", "blueprints")
        for p in sorted((ROOT / top).rglob("*.py"))
        if p != NODES and may_import_components(p)
    ]


def literals(path: Path, values: dict[str, str]) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    return [
        f"{path.name}:{node.lineno} spells {node.value!r}; use nodes.{values[node.value]}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in values
    ]


def definitions(path: Path, names: set[str]) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    return [
        f"{path.name}:{node.lineno} defines {target.id}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id in names
    ]


def test_the_contract_covers_the_shared_names():
    values = contract_values()
    for name in (
        "GPU_RESOURCE",
        "EFA_RESOURCE",
        "ERDMA_RESOURCE",
        "NODE_GROUP_LABEL",
        "MIG_CONFIG_LABEL",
        "GPU_PRESENT_LABEL",
        "EFA_PRESENT_LABEL",
        "GATE_TAINT",
        "GPU_DEVICES_LABEL",
        "DEVICE_PLUGIN_DEPLOY_LABEL",
        "DRA_GPU_QUOTA",
        "FABRIC_DEVICES_LABEL",
        "DRA_EFA_QUOTA",
    ):
        assert name in values.values()


def test_no_module_spells_a_contract_name_itself():
    values = contract_values()
    assert [hit for path in python_files() for hit in literals(path, values)] == []


def test_no_module_redefines_a_contract_constant():
    names = {n for n in vars(nodes) if n.isupper()}
    assert [hit for path in python_files() for hit in definitions(path, names)] == []


def test_the_check_finds_a_literal_and_a_redefinition(tmp_path):
    """The hunt works: a module spelling the GPU resource and defining SYSTEM_GROUP is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text('SYSTEM_GROUP = "system"\nlimits = {"nvidia.com/gpu": 8}\n')
    assert literals(bad, contract_values()) == ["bad.py:2 spells 'nvidia.com/gpu'; use nodes.GPU_RESOURCE"]
    assert definitions(bad, {"SYSTEM_GROUP"}) == ["bad.py:1 defines SYSTEM_GROUP"]
