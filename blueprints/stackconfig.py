"""From a stack's Pulumi config to a validated ClusterSpec: preset, overrides, one-line errors."""

from __future__ import annotations

import copy
import itertools
import os
import re
import stat
from pathlib import Path
from typing import Any, Mapping

import yaml
from pydantic import ValidationError

from catalog.clouds import cloud_of_package, profile
from catalog.yamlfile import load_yaml

from . import safeyaml
from .cloudtext import tag_problems, text_problems
from .errors import MAX_REPORTED, BlueprintError, did_you_mean
from .inputs import read_bounded
from .spec import ClusterSpec

PROJECT = "gpu-cluster-blueprints"
CONFIG_KEY = "cluster"
FULL_CONFIG_KEY = f"{PROJECT}:{CONFIG_KEY}"
ROOT = Path(__file__).resolve().parent.parent
STACKS_DIR = ROOT / "stacks"
PRESETS_DIR = Path(__file__).with_name("presets")
# The stack name starts every cloud resource name: `<stack>-<group>` names an EKS node group (at most 63
# characters, https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html) and node
# group names take up to 31; bucket names are lowercase (https://docs.aws.amazon.com/AmazonS3/latest/
# userguide/bucketnamingrules.html). So: lowercase letters, digits and '-', a letter first, at most 30.
STACK_NAME = re.compile(r"^[a-z][a-z0-9-]{0,29}$")


def available_stacks(stacks_dir: Path = STACKS_DIR) -> list[str]:
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in stacks_dir.glob("Pulumi.*.yaml"))


def _file_kind(path: Path) -> str:
    mode = os.stat(path).st_mode if os.path.exists(path) else 0
    return (
        "a directory"
        if stat.S_ISDIR(mode)
        else "a FIFO (named pipe)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a broken link"
        if not mode
        else "not a regular file"
    )


def available_presets() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.yaml"))


def stack_source(stack: str, stacks_dir: Path = STACKS_DIR) -> str:
    """How errors name a stack file: its folder and file name, as a user would open it."""
    return f"{Path(stacks_dir).name}/Pulumi.{stack}.yaml"


def read_stack_config(stack: str, stacks_dir: Path = STACKS_DIR) -> dict[str, Any]:
    """The stack file's `config:` mapping, as the Pulumi CLI would read it, within safeyaml's limits."""
    path = stacks_dir / f"Pulumi.{stack}.yaml"
    source = stack_source(stack, stacks_dir)
    if not Path(stacks_dir).is_dir():
        raise BlueprintError(
            "--stacks-dir",
            f"{stacks_dir} is not a directory; name the folder that holds Pulumi.<stack>.yaml files (default: stacks/)",
        )
    if os.path.lexists(path) and not path.is_file():  # a folder, FIFO or device: never open it (a FIFO blocks)
        kind = _file_kind(path)
        raise BlueprintError(source, f"is {kind}, not a stack file; a stack file is a regular YAML file")
    if not path.is_file():
        known = ", ".join(available_stacks(stacks_dir)) or "none"
        raise BlueprintError("--stack", f"unknown stack {stack!r}; stacks in {stacks_dir.name}/: {known}")
    if not STACK_NAME.match(stack):
        raise BlueprintError(
            source,
            f"stack name {stack!r} is not usable in cloud resource names; use lowercase "
            "letters, digits and '-', starting with a letter, at most 30 characters",
        )
    data = read_bounded(path, safeyaml.MAX_BYTES, source, "stack file")  # size refused before reading
    try:
        document, duplicates = safeyaml.load(data.decode("utf-8"))
    except safeyaml.YamlLimitError as exc:
        raise BlueprintError(source, str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        tag = (
            re.search(r"for the tag '([^']*)'", problem) if isinstance(exc, yaml.constructor.ConstructorError) else None
        )
        if tag:  # `!Ref x` is valid YAML; it is the tag that a stack file cannot use
            raise BlueprintError(
                source,
                f"the YAML tag {tag.group(1)}{where} is not supported: a stack file holds "
                "plain values (Pulumi reads no CloudFormation or custom tags); write the "
                "value itself",
            ) from None
        raise BlueprintError(source, f"malformed YAML{where}: {problem}") from None
    except UnicodeDecodeError:
        raise BlueprintError(source, "not UTF-8 text") from None
    if duplicates:
        raise BlueprintError.many(source, [str(d) for d in duplicates])
    if document is None:
        document = {}
    if not isinstance(document, dict) or not isinstance(document.get("config", {}), dict):
        raise BlueprintError(source, "a stack file is a mapping with a `config:` mapping inside")
    return document.get("config") or {}


def cluster_config(config: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The `gpu-cluster-blueprints:cluster` object out of a stack's config mapping."""
    raw = config.get(FULL_CONFIG_KEY)
    if raw is None:
        raise BlueprintError(source, f"config has no `{FULL_CONFIG_KEY}` object")
    if not isinstance(raw, dict):
        raise BlueprintError(source, f"`{FULL_CONFIG_KEY}` must be a mapping, got {type(raw).__name__}")
    return raw


def _deep_merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """The stack's fields over the preset's. A field the stack sets to null takes the preset's value away: a preset's
    node group is removed with `gpu: null` (and renamed by adding it under another name), a preset field goes back
    to the spec's default."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if value is None and key in base:
            merged.pop(key)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def with_preset(raw: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The preset's fields overlaid by the stack's; cloud-dependent preset defaults filled in."""
    preset = raw.get("preset")
    if preset is None:
        return dict(raw)
    if not isinstance(preset, str) or preset not in available_presets():
        raise BlueprintError(
            f"{source}: cluster.preset", f"unknown preset {preset!r}; presets: {', '.join(available_presets())}"
        )
    base = load_yaml(PRESETS_DIR / f"{preset}.yaml")
    merged = _deep_merge(base, raw)
    storage = merged.get("storage")
    fs = storage.get("parallelFs") if isinstance(storage, dict) else None
    if isinstance(fs, dict) and fs.get("type") == "default":
        cloud = merged.get("cloud")
        known = isinstance(cloud, str) and cloud_of_package(cloud) is not None
        fs["type"] = profile(cloud).default_file_system if known else "none"
    return merged


def _allowed_fields(loc: tuple) -> list[str]:
    """The camelCase field names a model accepts at a location of ClusterSpec."""
    model: Any = ClusterSpec
    for part in loc:
        field = getattr(model, "model_fields", {}).get(str(part)) or next(
            (f for f in getattr(model, "model_fields", {}).values() if f.alias == part), None
        )
        if field is None:  # a dict key such as a node group's name: stay on the value type
            continue
        annotation = field.annotation
        for arg in (*getattr(annotation, "__args__", ()), annotation):
            if hasattr(arg, "model_fields"):
                model = arg
                break
    return sorted(f.alias or name for name, f in getattr(model, "model_fields", {}).items())


def _describe_one(error: Mapping[str, Any]) -> str:
    loc = ".".join(str(part) for part in ("cluster", *error["loc"]))
    message = error["msg"].removeprefix("Value error, ")
    value = error.get("input")
    if error["type"] == "extra_forbidden":
        allowed = _allowed_fields(error["loc"][:-1])
        message = f"unknown field; allowed here: {', '.join(allowed)}" if allowed else "unknown field"
    elif isinstance(value, float) and error["type"] in ("literal_error", "string_type", "enum"):
        # `kubernetesVersion: 1.35` is a number to YAML (and 1.30 becomes 1.3): say so, not "got 1.35".
        allowed = re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))
        example = next((a for a in allowed if a == str(value)), None) or next(
            (a for a in allowed if a.startswith(str(value))), allowed[-1] if allowed else str(value)
        )
        message = f'{message}; YAML read the unquoted {value!r} as a number: quote it ({error["loc"][-1]}: "{example}")'
    elif error["type"] == "literal_error" and isinstance(value, str):
        allowed = re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))
        message = f"{message} (got {repr(value)[:60]}){did_you_mean(value, allowed)}"
    elif error["type"] not in ("value_error", "missing") and "input" in error:
        shown = repr(value)
        message = f"{message} (got {shown[:60]})"
    return f"{loc}: {message}"


def _describe(error: ValidationError) -> list[str]:
    """Every problem pydantic found, one line each (model checks run once the fields are valid)."""
    return [_describe_one(e) for e in error.errors()]


def parse_cluster(raw: Mapping[str, Any], source: str) -> ClusterSpec:
    """Validate a cluster object (preset applied) into a ClusterSpec, or raise a BlueprintError
    listing every problem found: unsafe strings, tags the cloud would refuse, then the spec's own."""
    problems = list(itertools.islice(text_problems(dict(raw)), MAX_REPORTED + 1))
    if problems:  # nothing else is looked at in a file with control characters in it
        raise BlueprintError.many(source, problems)
    merged = with_preset(raw, source)
    problems = list(tag_problems(merged.get("cloud"), merged.get("tags")))
    try:
        spec = ClusterSpec.model_validate(merged)
    except ValidationError as exc:
        raise BlueprintError.many(source, problems + _describe(exc)) from None
    except (TypeError, ValueError) as exc:  # hostile input pydantic does not wrap
        raise BlueprintError(source, f"cluster: {exc}") from None
    if problems:
        raise BlueprintError.many(source, problems)
    return spec


def load_stack_spec(stack: str, stacks_dir: Path = STACKS_DIR) -> ClusterSpec:
    config = read_stack_config(stack, stacks_dir)
    source = stack_source(stack, stacks_dir)
    return parse_cluster(cluster_config(config, source), source)
