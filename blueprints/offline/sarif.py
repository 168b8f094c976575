"""Findings as SARIF 2.1.0, the format GitHub code scanning reads (as Checkov, KICS, tfsec and Trivy emit it).

Each compliance finding and readiness gap is a result with its rule, a level (mandatory and blocking: error;
advisory and warning: warning; disabled: note), its message with the fix, and a location: the stack file and,
where the fix names a stack-file field (blueprints/offline/fixes.py), the line of that field; the resource's
URN is a logical location. Spec: https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html; the
published schema is kept in tests/data/sarif with its source, and every shipped stack's output is validated.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"mandatory": "error", "advisory": "warning", "disabled": "note", "blocking": "error", "warning": "warning"}


def stack_file_uri(path: Path) -> str:
    """The stack file as a URI relative to the working directory (the repository root in CI), else absolute."""
    relative = os.path.relpath(Path(path).resolve(), Path.cwd().resolve())
    return Path(path).resolve().as_uri() if relative.startswith("..") else Path(relative).as_posix()


def field_line(path: Path, field: str) -> Optional[int]:
    """The 1-based line of a stack-file field such as `budget.monthlyLimitUsd` (the first field a fix names;
    placeholders like `<group>` skipped), or of the deepest part of it the file has; None if the file has none."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    first = re.split(r"[ ,(]", field.strip())[0].rstrip(":")
    parts = [p for p in first.split(".") if p and not p.startswith("<")]
    found, start, indent = None, 0, -1
    for part in ["gpu-cluster-blueprints:cluster", *parts]:
        key = re.compile(rf"^(\s*){re.escape(part)}\s*:")
        for number in range(start, len(lines)):
            match = key.match(lines[number])
            if match and len(match.group(1)) > indent:
                found, start, indent = number + 1, number + 1, len(match.group(1))
                break
        else:
            break
    return found


def _rule(rule_id: str, finding: Mapping[str, Any], level: str) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": rule_id,
        "shortDescription": {"text": finding.get("description") or rule_id},
        "defaultConfiguration": {"level": level},
    }
    if finding.get("remediation"):
        rule["help"] = {"text": finding["remediation"]}
    if finding.get("url"):
        rule["helpUri"] = finding["url"]
    tags = [*(finding.get("packs") or []), *([finding["severity"]] if finding.get("severity") else [])]
    if tags:
        rule["properties"] = {"tags": tags}
    return rule


def _location(uri: str, path: Optional[Path], field: Optional[str], urn: Optional[str]) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri}}
    line = field_line(path, field) if path is not None and field else None
    if line:
        physical["region"] = {"startLine": line}
    location: dict[str, Any] = {"physicalLocation": physical}
    logical = []
    if field:
        logical.append({"fullyQualifiedName": f"cluster.{field.split(' ')[0].rstrip(':')}", "kind": "member"})
    if urn:
        logical.append({"fullyQualifiedName": urn, "kind": "resource"})
    if logical:
        location["logicalLocations"] = logical
    return location


class SarifLog:
    """Results and their rules, gathered per stack, written as one run of one tool."""

    def __init__(self, version: str):
        self.version = version
        self.rules: dict[str, dict[str, Any]] = {}
        self.results: list[dict[str, Any]] = []

    def add_stack(
        self, stack: str, path: Path, findings: Iterable[Mapping[str, Any]], readiness: Iterable[Mapping[str, Any]] = ()
    ) -> None:
        uri = stack_file_uri(path)
        for f in findings:
            level = LEVELS.get(f.get("enforcementLevel", ""), "warning")
            self.rules.setdefault(f["policy"], _rule(f["policy"], f, level))
            fix = f.get("fix") or {}
            in_file = fix.get("field") if str(fix.get("in", "")).endswith(".yaml") else None
            text = f"{stack}: {f['message']}"
            if fix.get("field"):
                text += f" Fix: {fix['field']} ({fix.get('in')})."
            self.results.append(
                {
                    "ruleId": f["policy"],
                    "level": level,
                    "message": {"text": text},
                    "locations": [_location(uri, path, in_file, f.get("urn"))],
                }
            )
        for r in readiness:
            rule_id = f"readiness/{r['check']}"
            level = LEVELS.get(r.get("level", ""), "warning")
            self.rules.setdefault(rule_id, _rule(rule_id, {"description": f"day-one readiness: {r['check']}"}, level))
            self.results.append(
                {
                    "ruleId": rule_id,
                    "level": level,
                    "message": {"text": f"{stack}: {r['message']} Fix: {r['fix']}"},
                    "locations": [_location(uri, path, None, r.get("resource"))],
                }
            )

    def add_result(self, rule_id: str, description: str, stack: str, path: Path, message: str) -> None:
        """A result that is not a finding (a diff's merge blocker), always an error."""
        self.rules.setdefault(rule_id, _rule(rule_id, {"description": description}, "error"))
        self.results.append(
            {
                "ruleId": rule_id,
                "level": "error",
                "message": {"text": f"{stack}: {message}"},
                "locations": [_location(stack_file_uri(path), path, None, None)],
            }
        )

    def to_json(self) -> dict[str, Any]:
        rules = [self.rules[k] for k in sorted(self.rules)]
        index = {r["id"]: i for i, r in enumerate(rules)}
        results = [dict(r, ruleIndex=index[r["ruleId"]]) for r in self.results]
        driver = {"name": "gpu-cluster-blueprints", "version": self.version, "rules": rules}
        return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, "results": results}]}

    def render(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"


def plans_sarif(plans: Sequence[Any], stacks_dir: Path, version: str) -> str:
    """`plan --format sarif`: every finding and readiness gap of the plans (a Plan each)."""
    log = SarifLog(version)
    for plan in plans:
        doc = plan.to_json()
        log.add_stack(plan.stack, Path(stacks_dir) / f"Pulumi.{plan.stack}.yaml", doc["findings"], doc["readiness"])
    return log.render()


def diff_sarif(diffs: Sequence[Any], acknowledged: bool, stacks_dir: Path, version: str) -> str:
    """`diff --format sarif`: the head's findings and every merge blocker, per stack."""
    log = SarifLog(version)
    for d in diffs:
        path = Path(stacks_dir) / f"Pulumi.{d.stack}.yaml"
        log.add_stack(d.stack, path, d.findings)
        for blocker in d.blockers(acknowledged):
            log.add_result("merge-blocker", "the change must not merge as it is", d.stack, path, blocker)
    return log.render()
