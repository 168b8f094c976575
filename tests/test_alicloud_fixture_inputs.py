"""The Alibaba Cloud rules' fixtures send only inputs the installed pulumi-alicloud SDK declares.

A rule reads the engine's properties by their wire names (camelCase, the SDK's ``@pulumi.getter(name=...)``), so a
fixture that invented a name would test a rule against a property no program can send. Every key of every fixture
resource, nested blocks included, must be an input of the SDK's ``<Name>Args`` class (nested blocks: the ``...Args``
class the property is typed with in the module's ``_inputs``; a resource whose args the SDK renamed to avoid a
clash, oss.BucketLogging's, has them as ``<Name>InitArgs``).
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
import yaml

CASES = Path(__file__).resolve().parent / "policy_rules" / "cases" / "alicloud"
NESTED = re.compile(r"'(\w+Args)'")


def _wire_names(args_class) -> dict[str, str]:
    """{wire name: annotation text} for every input property of an SDK Args class."""
    names = {}
    for attr, value in vars(args_class).items():
        if isinstance(value, property) and not attr.startswith("_"):
            source = inspect.getsource(value.fget)
            named = re.search(r'@pulumi\.getter\(name="(\w+)"\)', source)
            names[named.group(1) if named else attr] = str(inspect.signature(value.fget).return_annotation)
    return names


def _unknown(props: dict, args_class, inputs_module, path: str) -> list[str]:
    names = _wire_names(args_class)
    missing = []
    for key, value in props.items():
        if key not in names:
            missing.append(f"{path}{key}")
            continue
        nested = NESTED.search(names[key])
        blocks = value if isinstance(value, list) else [value]
        if nested:
            nested_class = getattr(inputs_module, nested.group(1))
            for block in blocks:
                if isinstance(block, dict):
                    missing += _unknown(block, nested_class, inputs_module, f"{path}{key}.")
    return missing


def _fixture_resources():
    for case in sorted(CASES.rglob("*.yaml")):
        data = yaml.safe_load(case.read_text(encoding="utf-8"))
        for kind in ("compliant", "violating"):
            for index, variant in enumerate(data[kind]):
                for resource in variant["resources"]:
                    rel = case.relative_to(CASES)
                    yield pytest.param(resource, id=f"{rel}-{kind}-{index}-{resource['name']}")


@pytest.mark.parametrize("resource", list(_fixture_resources()))
def test_fixture_properties_are_inputs_of_the_installed_sdk(resource):
    _, module_path, name = resource["type"].split(":")
    package = importlib.import_module(f"pulumi_alicloud.{module_path.split('/')[0]}")
    resource_class = getattr(package, name)
    # the resource's own module: the package's `<Name>Args` may be a nested block's (oss.BucketLoggingArgs is
    # Bucket.logging's; the SDK names the BucketLogging resource's args BucketLoggingInitArgs)
    module = importlib.import_module(resource_class.__module__)
    args_class = getattr(module, f"{name}InitArgs", None) or getattr(module, f"{name}Args")
    try:
        inputs_module = importlib.import_module(f"{package.__name__}._inputs")
    except ModuleNotFoundError:  # a module whose resources take no nested blocks
        inputs_module = None
    assert _unknown(resource.get("props", {}), args_class, inputs_module, "") == []
