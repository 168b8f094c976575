"""Functions stay short enough to read in one screen (issue 24: at most 60 lines in components/ and blueprints/)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 60


def long_functions(root: Path = ROOT, folders: tuple[str, ...] = ("components", "blueprints")) -> list[str]:
    found = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = node.end_lineno - node.lineno + 1
                    if length > LIMIT:
                        found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_in_components_or_blueprints_is_over_60_lines():
    assert long_functions() == []


def test_the_check_finds_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    (tmp_path / "components").mkdir()
    (tmp_path / "components" / "long.py").write_text(f"def long():\n{body}\n")
    assert long_functions(tmp_path, ("components",)) == [f"components/long.py:1 long ({LIMIT + 1} lines)"]
