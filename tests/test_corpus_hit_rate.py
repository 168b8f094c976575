"""Hit rate on public programs (issue #41): every resource annotated insecure in tests/data/corpus gets a mandatory
finding from our baseline pack, and none annotated compliant does, except the misses and false positives the
annotations name with a reason (each must still be one, so fixing it fails here until the annotation is updated).
The stored measurement (benchmarks/data/corpus-checkov-<version>.json, written by benchmarks/corpus_checkov.py with
Checkov's side) must match a fresh run of our packs, since docs/policies.md's table is generated from it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import corpus

STORED = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "corpus-checkov-3.3.30.json"


@pytest.fixture(scope="module")
def live():
    judged = {}
    for folder in corpus.programs():
        regs = corpus.registrations(folder)
        judged[folder.name] = (corpus.keys(regs), corpus.our_findings(folder, regs), corpus.annotations(folder))
    return judged


def test_at_least_twenty_programs_from_repositories_other_than_pulumis_examples_and_templates(live):
    assert len(live) >= 20
    for name, (_, _, notes) in live.items():
        source = notes["source"]
        assert source["repo"] not in ("pulumi/examples", "pulumi/templates"), name
        assert source["files"] and all(re.fullmatch(r"[0-9a-f]{40}", c) for c in source["files"].values()), name
        assert source["license"], name


def test_every_annotated_resource_is_one_the_program_registers(live):
    unknown = [(name, key) for name, (keys, _, notes) in live.items() for key in notes["resources"] if key not in keys]
    assert not unknown


def test_flagged_equals_annotated(live):
    wrong = []
    for name, (_, ours, notes) in live.items():
        for key, note in notes["resources"].items():
            mandatory = ours[key]["mandatory"]
            verdict = corpus.verdict(note)
            if verdict == "insecure" and bool(mandatory) == ("known_miss" in note):
                wrong.append((name, key, "insecure", mandatory))
            if verdict == "compliant" and bool(mandatory) != ("known_false_positive" in note):
                wrong.append((name, key, "compliant", mandatory))
    assert not wrong


def test_stored_measurement_is_todays_packs_and_annotations(live):
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    assert stored["checkov"] == "3.3.30" and stored["packs"] == list(corpus.PACKS)
    assert set(stored["programs"]) == set(live)
    for name, (keys, ours, notes) in live.items():
        resources = stored["programs"][name]
        assert set(resources) == set(keys), name
        for key, row in resources.items():
            note = notes["resources"].get(key) or {}
            assert row["ours"] == ours[key], (name, key)
            assert row["verdict"] == (corpus.verdict(note) if note else None), (name, key)
            assert row["note"] == (note.get("known_miss") or note.get("known_false_positive")), (name, key)
            if note:  # Checkov was given every annotated resource (all are AWS or Kubernetes objects)
                assert isinstance(row["checkov"], list), (name, key)
