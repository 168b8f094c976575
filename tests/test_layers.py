"""The layers of DESIGN.md, enforced: imports only point down.

catalog (facts) <- spec, resolver <- compose -> components; offline and the CLI on top; the policy library reads
facts (the catalog) and nothing of blueprints' orchestration; a component imports no blueprint module at all.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("catalog", "blueprints", "components", "policies", "acceptance")

# layer of a module (longest prefix wins) -> prefixes it may import
ALLOWED = {
    "catalog": ("catalog",),
    "blueprints.errors": (),
    "blueprints.clock": ("blueprints.errors",),  # the plan's today (BLUEPRINTS_TODAY), for dated checks
    "blueprints.safeyaml": (),  # bounded YAML parsing of untrusted stack files
    "blueprints.inputs": ("blueprints.errors",),  # bounded reads of every file input (issue #36)
    "blueprints.cloudtext": (),  # what the clouds accept in tags and names
    "blueprints.platform_namespaces": (),
    "blueprints.spec": ("catalog", "blueprints.errors", "blueprints.serving_spec", "blueprints.platform_namespaces"),
    # serving.models (issue #25): its fit check reuses the sizing advisor's memory model, whose two modules are
    # pure (no Pulumi, no CLI), so they sit at the spec's level.
    "blueprints.serving_spec": (
        "catalog",
        "blueprints.errors",
        "blueprints.platform_namespaces",
        "blueprints.sizing.fit",
        "blueprints.sizing.workload",
    ),
    "blueprints.sizing.workload": ("blueprints.errors", "catalog"),
    "blueprints.sizing.memory": ("blueprints.sizing.workload",),
    # issue #37: one replica fit for the advisor, the spec and the plan's readiness; pure like memory.py.
    "blueprints.sizing.fit": ("blueprints.sizing.memory", "blueprints.sizing.workload"),
    "blueprints.schema": ("blueprints.spec", "blueprints.stackconfig", "catalog", "blueprints.errors"),
    "blueprints.stackconfig": (
        "blueprints.spec",
        "catalog",
        "blueprints.errors",
        "blueprints.safeyaml",
        "blueprints.cloudtext",
        "blueprints.inputs",
    ),
    "blueprints.conflicts": ("blueprints.spec", "catalog"),  # settings that contradict each other, read by the resolver
    "blueprints.resolver": (
        "blueprints.spec",
        "catalog",
        "blueprints.errors",
        "blueprints.conflicts",
        "blueprints.clock",
    ),
    # MIG strategy and the resources a node advertises, read by compose and the offline plan
    "blueprints.mig": ("blueprints.spec", "catalog", "components.kubernetes.nodes"),
    "blueprints.compose": (
        "blueprints.mig",
        "blueprints.resolver",
        "blueprints.spec",
        "blueprints.stackconfig",
        "catalog",
        "blueprints.errors",
        "blueprints.clock",
        "components",
        "blueprints.serving_spec",
    ),
    "components": ("components",),
    "policies.library": ("policies.library", "catalog"),
    "policies": ("policies.library",),  # the packs' entry points
}
# blueprints' top (offline plan, diff, CLI, sizing) may import anything of ours.
TOP = ("blueprints",)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def wheel_layout_imports(tree: ast.AST) -> set[int]:
    """Imports in the body of a `try` whose handler catches ImportError: the wheel's layout (setup.py maps folders
    under `blueprints.`), with the repository's import in the handler, which is what this test checks."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError") for h in node.handlers
        ):
            skipped.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return skipped


def imported(path: Path, root: Path = ROOT) -> set[str]:
    """Absolute names of our modules a file imports, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = set()
    wheel_only = wheel_layout_imports(tree)
    for node in ast.walk(tree):
        if id(node) in wheel_only:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module is None:  # `from . import safeyaml`: the modules named
                names.update(f"{target}.{alias.name}" for alias in node.names)
            else:
                names.add(target)
    return {n for n in names if n.split(".")[0] in OURS}


def layer_of(module: str) -> str | None:
    matches = [layer for layer in ALLOWED if module == layer or module.startswith(layer + ".")]
    return max(matches, key=len) if matches else None


def sources() -> list[Path]:
    files = []
    for top in ("catalog", "blueprints", "components", "policies"):
        files += sorted((ROOT / top).rglob("*.py"))
    return files


def violations(files, root: Path = ROOT) -> list[str]:
    """``root``: the tree the files' module names are read from (a probe's copy of the layout in a temporary folder,
    so no probe file appears in the repository while other tests, maybe in parallel, read its sources)."""
    found = []
    for path in files:
        module = module_name(path, root)
        layer = layer_of(module)
        if layer is None:
            assert module.split(".")[0] in TOP, module
            continue
        for target in imported(path, root):
            if not any(target == ok or target.startswith(ok + ".") for ok in ALLOWED[layer]):
                found.append(f"{path.relative_to(root)} ({layer}) imports {target}")
    return found


def test_no_import_points_up_or_sideways():
    assert violations(sources()) == []


def test_the_check_catches_a_component_that_imports_the_resolver(tmp_path):
    bad = tmp_path / "components" / "aws" / "_layer_probe.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("from blueprints.resolver import ResolvedPlan\nfrom ..cluster_args import GpuClusterArgs\n")
    assert violations([bad], tmp_path) == ["components/aws/_layer_probe.py (components) imports blueprints.resolver"]


def test_the_check_catches_the_policy_library_reading_the_spec(tmp_path):
    probe = tmp_path / "policies" / "library" / "_layer_probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from blueprints.spec import ClusterSpec\nfrom catalog import load_catalog\n")
    assert violations([probe], tmp_path) == [
        "policies/library/_layer_probe.py (policies.library) imports blueprints.spec"
    ]


@pytest.mark.parametrize("entry", ["policies.library.packs", "components.aws.cluster", "components.alicloud.cluster"])
def test_importing_a_lower_layer_loads_nothing_above_it(entry):
    """What a pack process or a component consumer pays for: no spec, resolver, compose or offline plan."""
    code = (
        f"import sys, importlib; importlib.import_module({entry!r}); "
        "print(' '.join(m for m in sys.modules if m.split('.')[0] == 'blueprints'))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    above = [m for m in loaded.stdout.split() if m != "blueprints" and not m.startswith("catalog")]
    assert above == []


def test_a_plan_parses_and_resolves_its_stack_once(monkeypatch):
    """The offline plan resolves the stack to price and judge it; `__main__.py` then asks for the same object and
    gets the same resolved plan instead of parsing and resolving it again."""
    from blueprints import compose
    from blueprints.offline.plan import make_plan

    calls = []
    real = compose.resolve
    monkeypatch.setattr(compose, "resolve", lambda spec: calls.append(spec) or real(spec))
    monkeypatch.setattr(compose, "_RESOLVED", {})
    plan = make_plan("startup-t4", packs=[])
    assert len(calls) == 1 and plan.registrations
