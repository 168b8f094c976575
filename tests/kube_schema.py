"""Validate objects as a Kubernetes API server would on create, offline.

A custom resource: its CRD's ``openAPIV3Schema`` (structural schema) turned into JSON Schema, with what the API
server would silently prune (unknown fields, objects without properties) REPORTED rather than dropped, defaults
applied first; then every ``x-kubernetes-validations`` CEL rule at any depth (list items and map values included),
evaluated with cel-python, ``self`` typed as the API server types it (k8s.io/apiserver v0.36.3
pkg/cel/common/schemas.go ``SchemaDeclType``: int-or-string is dyn; string formats byte, duration, date and
date-time are bytes, duration and timestamp). Transition rules (those reading ``oldSelf``) do not run on create and
are skipped and counted; none of the pinned CRDs sets ``optionalOldSelf``. A rule that does not compile, or calls a
function neither cel-python nor ``EXTENSIONS`` provides, raises ``RuleError``: it never counts as passed.

A built-in object: kubernetes-validate's strict schema (unknown fields refused) for the cluster's minor.

Values the offline plan cannot know (a Pulumi Output still unknown under the mocks, ``<computed>``) skip only that
field's checks (and any CEL rule whose ``self`` holds one); each is counted, never silently passed.
"""

from __future__ import annotations

import base64
import binascii
import copy
import datetime
import functools
import ipaddress
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import celpy
import jsonschema
import re2
import yaml
from celpy import celtypes
from google.protobuf import json_format
from referencing import Registry, Resource

from blueprints.offline import engine

COMPUTED = "<computed>"
CRDS = Path(__file__).resolve().parent / "data" / "crds"

# Keywords of an OpenAPI v3 schema that mean the same in JSON Schema 2020-12.
_SAME = (
    "enum",
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
    "uniqueItems",
    "multipleOf",
    "required",
    "format",
)


# --- the Kubernetes CEL library functions the pinned CRDs' rules use that cel-python 0.5.0 lacks -----------------
# cel-go ext/strings.go (the strings extension the API server's base environment loads, k8s.io/apiserver v0.36.3
# pkg/cel/environment/base.go `ext.Strings(...)`): upperAscii() and split(sep).
def _upper_ascii(text: celtypes.StringType) -> celtypes.StringType:
    return celtypes.StringType("".join(c.upper() if c.isascii() else c for c in text))


def _split(text: celtypes.StringType, sep: celtypes.StringType) -> celtypes.ListType:
    return celtypes.ListType([celtypes.StringType(part) for part in str(text).split(str(sep))])


# k8s.io/apiserver pkg/cel/library/regex.go (Regex(), in libraries.go's k8sExtensionLibs): `<string>.find(<regex>)`
# is the first match, or the empty string when none (Karpenter's NodePool and EC2NodeClass rules use it). Python's re
# stands in for RE2 on the rules' simple patterns.
def _find(text: celtypes.StringType, pattern: celtypes.StringType) -> celtypes.StringType:
    match = re.search(str(pattern), str(text))
    return celtypes.StringType(match.group(0) if match else "")


EXTENSIONS = {"upperAscii": _upper_ascii, "split": _split, "find": _find}
_MACROS = {"has", "all", "exists", "exists_one", "map", "filter"}


class RuleError(Exception):
    """A CEL rule this evaluator cannot compile or has no implementation for: a failure, never a pass."""


@functools.cache
def _env() -> celpy.Environment:
    return celpy.Environment()


def _called(tree) -> set[str]:
    names = set()
    for node in tree.iter_subtrees():
        if node.data == "ident_arg":
            names.add(str(node.children[0]))
        elif node.data == "member_dot_arg":
            names.add(str(node.children[1]))
    return names


def _idents(tree) -> set[str]:
    return {str(node.children[0]) for node in tree.iter_subtrees() if node.data == "ident"}


@dataclass(frozen=True)
class Rule:
    text: str
    message: str
    program: Any
    transition: bool  # reads oldSelf: runs on update only


@functools.lru_cache(maxsize=None)
def compile_rule(text: str, message: str = "") -> Rule:
    try:
        tree = _env().compile(text)
    except Exception as error:  # noqa: BLE001 - cel-python raises its parser's errors
        raise RuleError(f"does not compile: {text!r}: {error}") from None
    known = set(celpy.evaluation.base_functions) | set(EXTENSIONS) | _MACROS
    missing = _called(tree) - known
    if missing:
        raise RuleError(f"no implementation of {sorted(missing)} for rule {text!r}")
    program = _env().program(tree, functions=EXTENSIONS)
    return Rule(text, message, program, "oldSelf" in _idents(tree))


# --- JSON values as the engine recorded them -------------------------------------------------------------------------
def known_value(value: Any) -> Any:
    """A registration's properties as JSON: secrets unwrapped (their values are known offline), outputs by their
    value, unknowns as ``COMPUTED``."""
    if isinstance(value, dict):
        sig = value.get(engine.SPECIAL_SIG)
        if sig == engine.SECRET_SIG:
            return known_value(value.get("value", COMPUTED))
        if sig == engine.OUTPUT_SIG:
            return known_value(value["value"]) if "value" in value else COMPUTED
        if sig == engine.RESOURCE_SIG:
            return value.get("urn")
        return {k: known_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [known_value(v) for v in value]
    if value == engine.UNKNOWN:
        return COMPUTED
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def registration_object(registration) -> dict[str, Any]:
    return known_value(json_format.MessageToDict(registration.properties))


# --- openAPIV3Schema -> JSON Schema ----------------------------------------------------------------------------------
def to_json_schema(schema: dict[str, Any], *, root: bool = True, branch: bool = False) -> dict[str, Any]:
    """One structural schema node as JSON Schema 2020-12.

    ``branch``: inside allOf/anyOf/oneOf/not, where a structural schema holds value validations only (no types, and
    properties there name no new fields), so nothing is refused as unknown there."""
    out: dict[str, Any] = {k: schema[k] for k in _SAME if k in schema}
    if "pattern" in schema:
        out["re2pattern"] = schema["pattern"]  # Go regular expressions (RE2), checked with re2, not Python's re
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if bound in schema:  # OpenAPI 3.0's exclusive* are booleans that qualify the bound
            out[exclusive if schema.get(exclusive) else bound] = schema[bound]
    types = schema.get("type")
    if schema.get("x-kubernetes-int-or-string"):
        types = None
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if types:
        out["type"] = [types, "null"] if schema.get("nullable") else types
    for key in ("allOf", "anyOf", "oneOf"):
        if key in schema:
            branches = [to_json_schema(s, root=False, branch=True) for s in schema[key]]
            out["allOf"] = [*out.get("allOf", []), {key: branches}]
    if "not" in schema:
        out["not"] = to_json_schema(schema["not"], root=False, branch=True)
    if "items" in schema:
        out["items"] = to_json_schema(schema["items"], root=False, branch=branch)
    properties = dict(schema.get("properties") or {})
    if schema.get("x-kubernetes-embedded-resource"):
        properties.setdefault("apiVersion", {"type": "string"})
        properties.setdefault("kind", {"type": "string"})
        properties["metadata"] = {"x-kubernetes-object-meta": True}
    if root and not branch:
        properties["metadata"] = {"x-kubernetes-object-meta": True}
    if properties:
        out["properties"] = {
            name: (
                {"$ref": "objectmeta.json"}
                if sub.get("x-kubernetes-object-meta")
                else to_json_schema(sub, root=False, branch=branch)
            )
            for name, sub in properties.items()
        }
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        out["additionalProperties"] = to_json_schema(additional, root=False, branch=branch)
    elif additional is True:
        out["additionalProperties"] = True
    elif not branch and types == "object" and not schema.get("x-kubernetes-preserve-unknown-fields"):
        # The API server prunes what the schema does not name: report it instead, it never reaches the controller.
        out["additionalProperties"] = False
    return out


def _re2pattern(validator, pattern, instance, schema):
    if isinstance(instance, str) and re2.search(pattern, instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _skip_computed(check):
    def run(validator, value, instance, schema):
        if instance == COMPUTED:
            return iter(())
        return check(validator, value, instance, schema)

    return run


# The string formats the API server checks (k8s.io/kube-openapi pkg/validation/strfmt) that the pinned schemas use.
FORMATS = jsonschema.FormatChecker(formats=())


@FORMATS.checks("byte", raises=(binascii.Error, ValueError))
def _byte(value: object) -> bool:
    return not isinstance(value, str) or bool(base64.b64decode(value, validate=True) is not None)


@FORMATS.checks("ipv4", raises=ValueError)
def _ipv4(value: object) -> bool:
    return not isinstance(value, str) or bool(ipaddress.IPv4Address(value))


@FORMATS.checks("ipv6", raises=ValueError)
def _ipv6(value: object) -> bool:
    return not isinstance(value, str) or bool(ipaddress.IPv6Address(value))


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    return not isinstance(value, str) or bool(datetime.datetime.fromisoformat(value.replace("Z", "+00:00")))


_BASE = jsonschema.Draft202012Validator
Validator = jsonschema.validators.extend(
    _BASE,
    validators={
        **{name: _skip_computed(check) for name, check in _BASE.VALIDATORS.items()},
        "re2pattern": _skip_computed(_re2pattern),
    },
)


@functools.cache
def _builtin_schemas(version: str) -> tuple[str, Registry]:
    import kubernetes_validate.utils as kv

    [found] = {v for v in kv.all_versions() if kv.major_minor(v) == kv.major_minor(version)}  # no other minor
    folder = f"kubernetes-json-schema/v{found}-local-strict"
    registry = Resource.from_contents(kv.schema_contents(f"{folder}/_definitions.json", version)) @ Registry()
    meta = kv.schema_contents(f"{folder}/objectmeta-meta-v1.json", version)
    registry = registry.with_resource("objectmeta.json", Resource.from_contents(meta, default_specification=_spec()))
    return folder, registry


def _spec():
    from referencing.jsonschema import DRAFT202012

    return DRAFT202012


# --- defaults and the walk over object and schema ----------------------------------------------------------------
def apply_defaults(obj: Any, schema: dict[str, Any]) -> Any:
    """Structural defaulting as on create: a missing property with a ``default`` gets it (recursively); a null where
    the schema is not nullable is pruned first (and then defaulted)."""
    if obj == COMPUTED:
        return obj
    if isinstance(obj, dict):
        props = schema.get("properties") or {}
        for name in [k for k, v in obj.items() if v is None and not (props.get(k) or {}).get("nullable")]:
            del obj[name]
        for name, sub in props.items():
            if name not in obj and "default" in sub:
                obj[name] = copy.deepcopy(sub["default"])
            if name in obj:
                obj[name] = apply_defaults(obj[name], sub)
        additional = schema.get("additionalProperties")
        if isinstance(additional, dict):
            for name in obj:
                if name not in props:
                    obj[name] = apply_defaults(obj[name], additional)
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        return [apply_defaults(v, schema["items"]) for v in obj]
    return obj


def _contains_computed(value: Any) -> bool:
    if value == COMPUTED:
        return True
    if isinstance(value, dict):
        return any(_contains_computed(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_computed(v) for v in value)
    return False


# Property names as CEL sees them (k8s.io/apiserver v0.36.3 pkg/cel/escaping.go): reserved words become
# `__word__`, and `__`, `.`, `-`, `/` inside a name become `__underscores__`, `__dot__`, `__dash__`, `__slash__`.
_RESERVED = set(
    "true false null in as break const continue else for function if import let loop package namespace return var "
    "void while".split()
)
_ESCAPES = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}


def cel_escape(name: str) -> str | None:
    if not name or name[0].isdigit():
        return None
    if name in _RESERVED:
        return f"__{name}__"
    if re.search(r"[^a-zA-Z0-9_./-]", name):
        return None
    return re.sub(r"__|[./-]", lambda m: _ESCAPES[m.group(0)], name)


def cel_unescape(name: str) -> str | None:
    words = {v[2:-2]: k for k, v in _ESCAPES.items()}
    bad = False

    def back(m: re.Match) -> str:
        nonlocal bad
        inner = m.group(0)[2:-2]
        if inner in words:
            return words[inner]
        if inner in _RESERVED and len(m.group(0)) == len(name):
            return inner
        bad = True
        return ""

    out = re.sub(r"_{2}[^_]+_{2}", back, name)
    return None if bad else out


class CelObject(celtypes.MapType):
    """An object with declared properties: CEL reads its fields by their escaped names (and, as the API server's
    unstructuredMap.Find does, by any name that unescapes to a property); iterating it yields escaped names."""

    def __getitem__(self, key):
        raw = cel_unescape(str(key))
        escaped = cel_escape(raw) if raw is not None else None
        if escaped is None:
            raise KeyError(key)
        return super().__getitem__(celtypes.StringType(escaped))

    def __contains__(self, key) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True


def to_cel(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` as the CEL type the API server gives it under ``schema``; a value of the wrong type (already a
    schema failure) as plain JSON."""
    if value is None:
        return None
    kind = schema.get("type")
    expected = {"integer": int, "number": (int, float), "boolean": bool, "string": str, "array": list, "object": dict}
    if kind in expected and (not isinstance(value, expected[kind]) or isinstance(value, bool) != (kind == "boolean")):
        return celpy.json_to_cel(value)
    if schema.get("x-kubernetes-int-or-string"):
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            return celpy.json_to_cel(value)
        return celtypes.IntType(value) if isinstance(value, int) else celtypes.StringType(value)
    if kind == "integer":
        return celtypes.IntType(value)
    if kind == "number":
        return celtypes.DoubleType(value)
    if kind == "boolean":
        return celtypes.BoolType(value)
    if kind == "string":
        fmt = schema.get("format")
        if fmt == "byte":
            return celtypes.BytesType(base64.b64decode(value))
        if fmt == "duration":
            return celtypes.DurationType(value)
        if fmt in ("date", "date-time"):
            return celtypes.TimestampType(value)
        return celtypes.StringType(value)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return celtypes.ListType([to_cel(v, schema["items"]) for v in value])
    if kind == "object" and isinstance(value, dict):
        props = schema.get("properties")
        if props is None and isinstance(schema.get("additionalProperties"), dict):
            sub = schema["additionalProperties"]
            return celtypes.MapType({celtypes.StringType(k): to_cel(v, sub) for k, v in value.items()})
        fields = {}
        for name, v in value.items():  # a null field of an object reads as absent; an unknown one is pruned
            escaped = cel_escape(name)
            if v is not None and name in (props or {}) and escaped is not None:
                fields[celtypes.StringType(escaped)] = to_cel(v, props[name])
        return CelObject(fields)
    return celpy.json_to_cel(value)


@dataclass
class Report:
    """What one validation found and counted."""

    schema_failures: list[str] = field(default_factory=list)
    cel_failures: list[str] = field(default_factory=list)
    rules_evaluated: int = 0
    rules_transition_skipped: int = 0  # read oldSelf: run on update only
    rules_computed_skipped: int = 0  # self holds a value unknown offline
    computed_fields: int = 0  # fields whose value is unknown offline: their checks skipped

    def add(self, other: Report) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def failures(self) -> list[str]:
        return self.schema_failures + self.cel_failures


def _walk(value: Any, schema: dict[str, Any], path: str, report: Report) -> None:
    if value == COMPUTED:
        report.computed_fields += 1
        return
    for spec in schema.get("x-kubernetes-validations") or []:
        rule = compile_rule(spec["rule"], spec.get("message", ""))
        if rule.transition:
            report.rules_transition_skipped += 1
        elif _contains_computed(value):
            report.rules_computed_skipped += 1
        else:
            report.rules_evaluated += 1
            result = _evaluate(rule, to_cel(value, schema))
            if result is not True:
                report.cel_failures.append(f"{path or '<root>'}: {rule.message or rule.text} ({result})")
    _list_keys(value, schema, path, report)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        for name, v in value.items():
            sub = props.get(name) or (additional if isinstance(additional, dict) else None)
            if sub is not None:
                _walk(v, sub, f"{path}.{name}" if path else name, report)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value):
            _walk(v, schema["items"], f"{path}[{i}]", report)


def _evaluate(rule: Rule, self_value: Any) -> Any:
    try:
        result = rule.program.evaluate({"self": self_value})
    except celpy.CELEvalError as error:
        return f"evaluation error: {error.args[0] if error.args else error}"
    if isinstance(result, celpy.CELEvalError):
        return f"evaluation error: {result.args[0] if result.args else result}"
    return True if result == celtypes.BoolType(True) else "false"


def _list_keys(value: Any, schema: dict[str, Any], path: str, report: Report) -> None:
    """x-kubernetes-list-type: set and map items must be unique (by their list-map-keys for a map)."""
    kind = schema.get("x-kubernetes-list-type")
    if not isinstance(value, list) or kind not in ("set", "map"):
        return
    keys = schema.get("x-kubernetes-list-map-keys") or []
    seen = set()
    for item in value:
        key = (
            tuple(item.get(k) if isinstance(item, dict) else None for k in keys)
            if kind == "map"
            else json.dumps(item, sort_keys=True)
        )
        if key in seen:
            report.schema_failures.append(f"{path}: duplicate {kind} entry {key}")
        seen.add(key)


# --- the two entry points ----------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _crd_validator(schema_json: str, version: str) -> Any:
    schema = json.loads(schema_json)
    converted = to_json_schema(schema)
    _, registry = _builtin_schemas(version)
    for spec in _rules(schema):  # every rule compiles before any object is judged
        compile_rule(spec["rule"], spec.get("message", ""))
    return Validator(converted, registry=registry, format_checker=FORMATS)


def _rules(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield from schema.get("x-kubernetes-validations") or []
        for value in schema.values():
            yield from _rules(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _rules(value)


def _message(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path) or "<root>"
    return f"{where}: {error.message}"


def validate_custom(obj: dict[str, Any], schema: dict[str, Any], version: str = "1.35") -> Report:
    """A custom resource against its CRD version's openAPIV3Schema (structure, unknown fields, formats, CEL)."""
    obj = apply_defaults(copy.deepcopy(obj), schema)
    report = Report()
    validator = _crd_validator(json.dumps(schema, sort_keys=True), version)
    report.schema_failures += [_message(e) for e in validator.iter_errors(obj)]
    _walk(obj, schema, "", report)
    return report


def builtin_schema(obj: dict[str, Any], version: str) -> dict[str, Any]:
    """kubernetes-validate's strict schema of this kind and apiVersion at the minor; FileNotFoundError if it has
    none (not a built-in there)."""
    import kubernetes_validate.utils as kv

    folder, _ = _builtin_schemas(version)
    api = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", obj["apiVersion"])
    return kv.schema_contents(f"{folder}/{obj['kind'].lower()}-{api}.json", version)


def validate_builtin(obj: dict[str, Any], version: str) -> Report:
    """A built-in object against kubernetes-validate's strict schema at the cluster's minor."""
    _, registry = _builtin_schemas(version)
    report = Report(computed_fields=_count_computed(obj))
    validator = Validator(builtin_schema(obj, version), registry=registry)
    report.schema_failures += [_message(e) for e in validator.iter_errors(obj)]
    return report


def _count_computed(value: Any) -> int:
    if value == COMPUTED:
        return 1
    if isinstance(value, dict):
        return sum(_count_computed(v) for v in value.values())
    if isinstance(value, list):
        return sum(_count_computed(v) for v in value)
    return 0


# --- which CRD schema judges which object ------------------------------------------------------------------------
def crd_index() -> dict[str, dict[str, Any]]:
    """tests/data/crds/index.yaml: apiVersion -> the pin that installs its CRDs and the folder of their schemas."""
    return yaml.safe_load((CRDS / "index.yaml").read_text())["apiVersions"]


def crd_schema(api_version: str, kind: str) -> dict[str, Any] | None:
    entry = crd_index().get(api_version)
    path = CRDS / entry["folder"] / f"{kind}.json" if entry else None
    return json.loads(path.read_text()) if path is not None and path.exists() else None
