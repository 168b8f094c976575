"""Measure the corpus (tests/data/corpus): our packs' findings and Checkov's failed checks on each resource.

    python benchmarks/corpus_checkov.py [--checkov-venv DIR]

Each program runs under the offline mocks (tests/corpus.py); our baseline pack judges it in this process, and its
resources go to Checkov as versus_checkov.py converts them (AWS resources as a Terraform plan, Kubernetes objects as
manifests), one Checkov run a program. Writes benchmarks/data/corpus-checkov-<version>.json: per program and
resource key its type, the annotation's verdict and its known miss or false positive, our mandatory and advisory
rules, and Checkov's failed check ids (null where Checkov was not given the resource). docs/policies.md's hit-rate
section is generated from that file, and tests/test_corpus_hit_rate.py holds our side of it to a fresh run and to
the annotations. Checkov is never a project dependency: it comes from the virtualenv versus_checkov.py creates.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import corpus  # noqa: E402
from benchmarks.versus_checkov import CHECKOV_VERSION, checkov_binary, checkov_inputs  # noqa: E402

OUT = ROOT / "benchmarks" / "data" / f"corpus-checkov-{CHECKOV_VERSION}.json"


def checkov_failures(binary: Path, regs, work: Path) -> dict[str, list[str] | None]:
    """Checkov's failed check ids per resource name (None for a resource Checkov was not given)."""
    plan_json, manifests, addresses = checkov_inputs(regs, work)
    frameworks, files = [], []
    if any(a.startswith("aws_") for a in addresses):
        frameworks.append("terraform_plan")
        files += ["-f", str(plan_json)]
    if any(not a.startswith("aws_") for a in addresses):
        frameworks.append("kubernetes")
        files += ["-f", str(manifests)]
    failed: dict[str, set[str]] = {reg.urn: set() for reg in addresses.values()}
    if frameworks:
        command = [str(binary), *files, "--framework", *frameworks, "--quiet", "--compact", "-o", "json"]
        done = subprocess.run([*command, "--skip-download"], capture_output=True, text=True, check=False)
        reports = json.loads(done.stdout)
        for report in reports if isinstance(reports, list) else [reports]:
            for check in (report.get("results") or {}).get("failed_checks", []):
                reg = addresses.get(check["resource"])
                if reg is not None:
                    failed[reg.urn].add(check["check_id"])
    return {key: (sorted(failed[reg.urn]) if reg.urn in failed else None) for key, reg in corpus.keys(regs).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkov-venv", type=Path, default=Path(tempfile.gettempdir()) / "checkov-venv")
    args = parser.parse_args()
    binary = checkov_binary(args.checkov_venv)
    result: dict = {"checkov": CHECKOV_VERSION, "packs": list(corpus.PACKS), "programs": {}}
    for folder in corpus.programs():
        regs = corpus.registrations(folder)
        ours = corpus.our_findings(folder, regs)
        notes = corpus.annotations(folder)["resources"]
        with tempfile.TemporaryDirectory(prefix="corpus-checkov-") as work:
            checkov = checkov_failures(binary, regs, Path(work))
        result["programs"][folder.name] = {
            key: {
                "type": reg.type,
                "verdict": corpus.verdict(notes[key]) if key in notes else None,
                "note": (notes.get(key) or {}).get("known_miss") or (notes.get(key) or {}).get("known_false_positive"),
                "ours": ours[key],
                "checkov": checkov[key],
            }
            for key, reg in sorted(corpus.keys(regs).items())
        }
        print(folder.name, file=sys.stderr)
    OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
