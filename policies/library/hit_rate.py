"""The hit-rate section of docs/policies.md: our baseline pack and Checkov on the resources of public programs that
tests/data/corpus annotates by hand, from benchmarks/data/corpus-checkov-<version>.json (benchmarks/corpus_checkov.py
writes it; tests/test_corpus_hit_rate.py holds it to a fresh run and to the annotations)."""

from __future__ import annotations

import json
from pathlib import Path

MEASURED = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "corpus-checkov-3.3.30.json"


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


def hit_rate() -> list[str]:
    measured = json.loads(MEASURED.read_text(encoding="utf-8"))
    programs = measured["programs"]
    rows = [(p, k, r) for p, resources in programs.items() for k, r in resources.items()]
    insecure = [(p, k, r) for p, k, r in rows if r["verdict"] == "insecure"]
    compliant = [(p, k, r) for p, k, r in rows if r["verdict"] == "compliant"]
    ours = [x for x in insecure if x[2]["ours"]["mandatory"]]
    advisory_only = [x for x in insecure if not x[2]["ours"]["mandatory"] and x[2]["ours"]["advisory"]]
    checkov = [x for x in insecure if x[2]["checkov"]]
    ours_fp = [x for x in compliant if x[2]["ours"]["mandatory"]]
    checkov_fp = [x for x in compliant if x[2]["checkov"]]
    lines = [
        "",
        "## Hit rate on public programs",
        "",
        f"{len(programs)} public Pulumi programs from repositories other than pulumi/examples and pulumi/templates,",
        "restated in `tests/data/corpus/`. Each folder holds `program.py` and `annotations.yaml`: the repository, the",
        "files and commits read, the licence, and per resource the verdict with its reasons, from reading the code",
        "against AWS FSBP, CIS Kubernetes and Pod Security Standards controls (resources without security settings",
        "are not annotated). The programs are restated rather than copied (none states a licence): the same resource",
        "names, types and property values, with lookups and config written as literals. Ours: a mandatory finding of",
        f"the baseline pack. Checkov {measured['checkov']}: any failed check, on the resources as",
        "`benchmarks/versus_checkov.py` converts them (Terraform plan JSON, Kubernetes manifests). Measured by",
        "`benchmarks/corpus_checkov.py`; asserted by `tests/test_corpus_hit_rate.py`.",
        "",
        "| | resources | ours flags | Checkov flags |",
        "|---|---|---|---|",
        f"| annotated insecure | {len(insecure)} | {share(len(ours), len(insecure))} | "
        f"{share(len(checkov), len(insecure))} |",
        f"| annotated compliant | {len(compliant)} | {share(len(ours_fp), len(compliant))} | "
        f"{share(len(checkov_fp), len(compliant))} |",
        "",
        f"Insecure resources with only advisory findings of ours: {len(advisory_only)}. Per program:",
        "",
        "| program | insecure: ours / Checkov | compliant flagged: ours / Checkov |",
        "|---|---|---|",
    ]
    for program, resources in programs.items():
        bad = [r for r in resources.values() if r["verdict"] == "insecure"]
        good = [r for r in resources.values() if r["verdict"] == "compliant"]
        lines.append(
            f"| `{program}` | {sum(bool(r['ours']['mandatory']) for r in bad)}/{len(bad)} / "
            f"{sum(bool(r['checkov']) for r in bad)}/{len(bad)} | "
            f"{sum(bool(r['ours']['mandatory']) for r in good)}/{len(good)} / "
            f"{sum(bool(r['checkov']) for r in good)}/{len(good)} |"
        )
    lines += ["", "Our misses and false positives, as the annotations record them:", ""]
    for program, key, row in insecure + compliant:
        flagged = bool(row["ours"]["mandatory"])
        if (row["verdict"] == "insecure") != flagged:
            kind = "missed" if row["verdict"] == "insecure" else "flagged though compliant"
            checkov_side = ", ".join(row["checkov"]) if row["checkov"] else "nothing"
            lines.append(f"- `{program}` `{key}` ({kind}; Checkov: {checkov_side}): {' '.join(row['note'].split())}")
    return lines
