"""What the scaling benchmarks share: their arguments, the checkouts they compare, and the interleaved runs.

Each benchmark plans stacks it writes to a temporary folder, N copies of something, in this checkout and optionally a
baseline checkout (`git worktree add ../base <commit>`, run with this interpreter), alternating run by run so load on
a shared machine hits both alike.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Callable, Sequence, TypeVar

import yaml

ROOT = Path(__file__).resolve().parent.parent
KEY = "gpu-cluster-blueprints:cluster"
T = TypeVar("T")


def arguments(doc: str) -> tuple[int, dict[str, Path]]:
    """`[runs] [--baseline DIR]`: how many rounds, and the checkouts by label (the baseline first)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout of the project to compare with")
    args = parser.parse_args()
    roots = {"this": ROOT} if args.baseline is None else {"baseline": args.baseline, "this": ROOT}
    return args.runs, roots


def shipped_cluster(stack: str) -> dict:
    """The cluster config of a shipped stack, to vary."""
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"][KEY]


def write_stack(folder: Path, name: str, cluster: dict) -> None:
    (folder / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": {KEY: cluster}}))


def interleaved(
    runs: int,
    counts: Sequence[int],
    roots: dict[str, Path],
    write: Callable[[Path], None],
    measure: Callable[[Path, Path, int], T],
) -> dict[str, dict[int, list[T]]]:
    """``measure(root, stacks folder, n)`` for every count and checkout, ``runs`` rounds, alternating checkouts."""
    results: dict[str, dict[int, list[T]]] = {label: {n: [] for n in counts} for label in roots}
    with tempfile.TemporaryDirectory() as folder:
        write(Path(folder))
        for _ in range(runs):
            for n in counts:
                for label, root in roots.items():
                    results[label][n].append(measure(root, Path(folder), n))
    return results
