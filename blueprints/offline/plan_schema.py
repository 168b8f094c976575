"""The published JSON schema of `plan --format json` (one plan, or the `--all-stacks` bundle), and its check.

`diff` compares plan files a CI job produced, perhaps from another commit or a hand edit, so it validates both
against this schema before it reads a field (issue #36, item 2), and refuses the first path that does not match
in one line. `python -m blueprints schema --plan` prints it. The schema holds what a plan's consumers rely on
(diff, its renderers, SARIF): each such field is required and typed; anything else a plan carries may vary.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from ..errors import BlueprintError

MAX_ERRORS = 1000  # the shallowest of the first ones is reported
_STR = {"type": "string"}
_NUM = {"type": "number"}
_STR_LIST = {"type": "array", "items": _STR}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "object", "required": sorted(required), "properties": {**required, **(optional or {})}}


_RESOURCE = _object(
    {"urn": _STR, "type": _STR, "name": _STR, "inputs": {"type": "object"}},
    {
        "options": _object(
            {},
            {
                "ignoreChanges": _STR_LIST,
                "replaceOnChanges": _STR_LIST,
                "deleteBeforeReplace": {"type": "boolean"},
            },
        ),
        "aliases": _STR_LIST,
        "protect": {"type": "boolean"},
    },
)
_FINDING = _object(
    {"policy": _STR, "message": _STR, "enforcementLevel": _STR},
    {
        "urn": {"type": ["string", "null"]},
        "resourceName": {"type": ["string", "null"]},
        "description": _STR,
        "remediation": _STR,
        "url": _STR,
        "severity": _STR,
        "packs": _STR_LIST,
        "fix": {"anyOf": [{"type": "null"}, _object({"field": _STR}, {"in": _STR})]},
    },
)
_PRICE = {"type": ["number", "null"], "minimum": 0}
_GROUP = _object({"nodes": _object({"max": {"type": "integer", "minimum": 0}})}, {"usdPerHour": _PRICE})
_COST = _object(
    {
        "hourlyUsd": _NUM,
        "hoursPerMonth": {"type": "integer", "minimum": 1},
        "budget": _object({"monthlyLimitUsd": {"type": ["number", "null"]}}),
    },
    {"items": {"type": "array", "items": _object({"resource": _STR}, {"usdPerHour": _PRICE})}},
)
PLAN = _object(
    {
        "stack": _STR,
        "resources": {"type": "array", "items": _RESOURCE},
        "cost": _COST,
        "findings": {"type": "array", "items": _FINDING},
        "exitCode": {"type": "integer", "minimum": 0, "maximum": 3},
    },
    {
        "resolved": {
            "anyOf": [
                {"type": "null"},
                _object(
                    {},
                    {
                        "nodeGroups": {"type": "array", "items": _GROUP},
                        "systemNodes": {
                            "anyOf": [
                                {"type": "null"},
                                _GROUP,
                            ]
                        },
                    },
                ),
            ]
        }
    },
)
BUNDLE = _object(
    {"plans": {"type": "array", "items": {"$ref": "#/$defs/plan"}}},
    {"failures": {"type": "array", "items": _object({"stack": _STR, "error": _STR})}},
)


def plan_schema() -> dict[str, Any]:
    """The schema `schema --plan` prints: a plan, or a bundle of plans (`plan --all-stacks --format json`)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "gpu-cluster-blueprints plan (plan --format json)",
        "anyOf": [{"$ref": "#/$defs/plan"}, {"$ref": "#/$defs/bundle"}],
        "$defs": {"plan": PLAN, "bundle": BUNDLE},
    }


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(the document)"


def check_plan_json(data: Any, where: str) -> None:
    """Refuse ``data`` unless it matches the plan schema: one line naming the first path that does not."""
    from jsonschema import Draft202012Validator

    schema = plan_schema()
    # A bundle when it has `plans`, else one plan: then the error names the field of that shape, not the anyOf.
    shape = schema["$defs"]["bundle" if isinstance(data, dict) and "plans" in data else "plan"]
    validator = Draft202012Validator({**shape, "$defs": schema["$defs"]})
    errors = list(islice(validator.iter_errors(data), MAX_ERRORS))  # a million null resources: a million errors
    error = min(errors, key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path]), default=None)
    if error is None:
        return
    deepest = error
    while deepest.context:  # an anyOf: the branch that got furthest says what is wrong
        deepest = max(deepest.context, key=lambda e: len(e.absolute_path))
    message = deepest.message if len(deepest.message) <= 120 else deepest.message[:117] + "..."
    raise BlueprintError(
        where,
        f"{_path(deepest.absolute_path)}: {message}; not plan JSON as `plan --format json` writes it "
        "(`python -m blueprints schema --plan`)",
    )
