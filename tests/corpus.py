"""The corpus of public Pulumi programs (tests/data/corpus): each folder holds a restatement of one public program
(`program.py`) and its hand annotations (`annotations.yaml`: source repository, files and commits, licence, and per
resource `insecure` with the reasons, `compliant` with why, or `unjudged` with why not). This module runs a program
under the offline mocks and judges it with our packs, per resource; benchmarks/corpus_checkov.py adds Checkov's side
and writes benchmarks/data/corpus-checkov-<version>.json, which test_corpus_hit_rate.py holds to the annotations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from blueprints.offline.engine import Registration, run_program
from blueprints.offline.policy import evaluate

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
PACKS = ("baseline",)
VERDICTS = ("insecure", "compliant", "unjudged")


def programs() -> list[Path]:
    return sorted(p.parent for p in CORPUS.glob("*/program.py"))


def annotations(folder: Path) -> dict[str, Any]:
    return yaml.safe_load((folder / "annotations.yaml").read_text(encoding="utf-8"))


def verdict(entry: dict[str, Any]) -> str:
    [found] = [v for v in VERDICTS if v in entry]
    return found


def registrations(folder: Path) -> list[Registration]:
    """What the program registers (providers and the stack left out), as `pulumi preview` would send it."""
    regs, _ = run_program(folder.name, {"aws:region": "us-east-1"}, "us-east-1", program=folder / "program.py")
    return [r for r in regs if not r.type.startswith("pulumi:")]


def keys(regs: list[Registration]) -> dict[str, Registration]:
    """Resources by their annotation key: the resource name, or `<Type>/<name>` where two types share a name."""
    names = [r.name for r in regs]
    return {(r.name if names.count(r.name) == 1 else f"{r.type.split(':')[-1]}/{r.name}"): r for r in regs}


def our_findings(folder: Path, regs: list[Registration]) -> dict[str, dict[str, list[str]]]:
    """Per resource key: the rules of our packs with a mandatory and with an advisory finding on it."""
    by_urn = {r.urn: key for key, r in keys(regs).items()}
    found: dict[str, dict[str, set[str]]] = {key: {"mandatory": set(), "advisory": set()} for key in by_urn.values()}
    for finding in evaluate(folder.name, regs, PACKS):
        name = by_urn.get(finding["urn"])
        if name is not None:
            found[name][finding["enforcementLevel"]].add(finding["policy"])
    return {name: {level: sorted(rules) for level, rules in levels.items()} for name, levels in found.items()}
