"""The components as a reusable package: one shape, installable, usable from other Pulumi languages.

- Every public component takes (name, args, opts), registers as `<package>:index:<Class>` with an alias to its
  old token, and is accepted by the Python SDK's component analyzer (the code `pulumi package add` runs); the
  schemas it generates are checked in and current.
- The component provider's own construct path (dict args) builds what the Python args build.
- A wheel of the repository gives a consumer `blueprints.components`, the catalog and the policy library under one
  import name, and a consumer's own AWS provider carries every AWS resource and lookup.
- The YAML example uses only types and properties the schema declares.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pulumi
import pytest
import yaml
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("aws", "alicloud", "kubernetes")
sys.path.insert(0, str(ROOT / "provider"))

import generate_schemas  # noqa: E402  (provider/generate_schemas.py)


def public(layer: str) -> list[type]:
    return importlib.import_module(f"components.{layer}").public_components()


def test_checked_in_schemas_are_what_the_sdk_generates():
    assert generate_schemas.main(["--check"]) == 0


@pytest.mark.parametrize("layer", LAYERS)
def test_every_public_component_is_in_the_schema_with_documented_inputs(layer):
    schema = json.loads((ROOT / "provider" / layer / "schema.json").read_text())
    classes = public(layer)
    assert sorted(schema["resources"]) == sorted(f"gpu-blueprints-{layer}:index:{c.__name__}" for c in classes)
    for token, resource in schema["resources"].items():
        assert resource.get("isComponent"), token
        assert resource.get("description"), token
        assert resource.get("properties"), f"{token} declares no outputs"
        for prop, spec in resource.get("inputProperties", {}).items():
            assert spec.get("description"), f"{token}.{prop} is undocumented"
    for token, typ in schema["types"].items():
        assert "components." not in typ.get("description", ""), f"{token}: a generated, path-dependent description"
        for prop, spec in typ.get("properties", {}).items():
            assert spec.get("description"), f"{token}.{prop} is undocumented"


@pytest.mark.parametrize("layer", LAYERS)
def test_components_have_one_shape_and_a_conventional_token_aliased_to_the_old_one(layer):
    for cls in public(layer):
        params = list(inspect.signature(cls.__init__).parameters)
        assert params[:4] == ["self", "name", "args", "opts"], cls
        assert cls.type_token() == f"gpu-blueprints-{layer}:index:{cls.__name__}"
        assert cls.LEGACY_TYPE and cls.LEGACY_TYPE.startswith(f"gpu-blueprints:{layer}:"), cls


def test_matching_concerns_have_matching_names_on_both_clouds():
    aws = {c.__name__ for c in public("aws")}
    alicloud = {c.__name__ for c in public("alicloud")}
    assert {
        "GpuCluster",
        "GpuNetwork",
        "GpuNodeGroup",
        "SystemNodeGroup",
        "WorkloadRole",
        "DataKey",
        "DataBucket",
        "AuditTrail",
        "ThreatDetection",
    } <= aws & alicloud


def test_a_defaulted_field_given_none_takes_its_default():
    from components.aws.storage import BucketArgs

    args = BucketArgs(kms_key_arn="k", noncurrent_version_days=None, protect=None)
    assert (args.noncurrent_version_days, args.protect, args.tags) == (30, True, {})


class _Recorder(pulumi.runtime.Mocks):
    def __init__(self):
        self.resources: list[tuple[str, str, dict]] = []

    def new_resource(self, args):
        self.resources.append((args.typ, args.name, dict(args.inputs)))
        # what the cloud would fill in that these components read back: ARNs and names
        return f"{args.name}-id", {"arn": f"arn:aws:::{args.name}", "bucket": args.name, **dict(args.inputs)}

    def call(self, args):
        return {"value": "1.33.5-20251120"}, []


def _run(program) -> list[tuple[str, str, dict]]:
    recorder = _Recorder()
    pulumi.runtime.set_mocks(recorder, project="consumer", stack="dev", preview=False)
    _sync_await(run_pulumi_func(program))
    return sorted(
        (t, n, json.dumps(i, sort_keys=True)) for t, n, i in recorder.resources if not t.startswith("gpu-blueprints")
    )


def test_the_provider_construct_path_builds_what_python_args_build():
    """The component provider hands construct a dict of snake_case inputs; the result matches the dataclass."""
    from pulumi.provider.experimental.component import ComponentProvider

    from components.aws.storage import BucketArgs, DataBucket

    provider = ComponentProvider(public("aws"), "gpu-blueprints-aws")
    inputs = {
        "kmsKeyArn": "arn:aws:kms:eu-west-1:111122223333:key/k",
        "protect": False,
        "noncurrentVersionDays": 7,
        "tags": {"team": "ml"},
    }

    via_provider = _run(lambda: provider.construct("data", "gpu-blueprints-aws:index:DataBucket", inputs, None))
    via_python = _run(
        lambda: DataBucket(
            "data",
            BucketArgs(
                kms_key_arn="arn:aws:kms:eu-west-1:111122223333:key/k",
                protect=False,
                noncurrent_version_days=7,
                tags={"team": "ml"},
            ),
        )
    )
    assert via_provider == via_python
    lifecycle = next(
        json.loads(i)
        for t, _, i in via_provider
        if t == "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
    )
    assert lifecycle["rules"][0]["noncurrentVersionExpiration"]["noncurrentDays"] == 7


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """`pip install` of a wheel built from the repository, into a folder of its own (no dependencies: the test's
    virtualenv already has the SDKs)."""
    wheels = tmp_path_factory.mktemp("wheel")
    target = tmp_path_factory.mktemp("site")
    # Build from a copy of what the package is made of, so no build/ folder is left in (or reused from) the tree.
    source = tmp_path_factory.mktemp("source")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("catalog", "blueprints", "components", "policies", "acceptance"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(source)],
        check=True,
        cwd=source,
        capture_output=True,
    )
    wheel = next(wheels.glob("gpu_cluster_blueprints-*.whl"))
    subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)], check=True, capture_output=True)
    return target


def test_the_wheel_ships_components_catalog_and_policies_under_one_name(installed):
    tops = {p.name for p in installed.iterdir() if not p.name.endswith(".dist-info")}
    assert tops == {"blueprints"}
    package = installed / "blueprints"
    for part in (
        "components/aws/node_group.py",
        "catalog/shapes.yaml",
        "policies/registry.py",
        "acceptance/gpu_check.py",
        "components/kubernetes/charts.yaml",
    ):
        assert (package / part).is_file(), part
    # the Pulumi project's orchestration (spec, resolver, offline plan, CLI) is not part of the library
    assert not (package / "resolver.py").exists() and not (package / "offline").exists()


def test_the_wheels_policy_library_prices_from_the_wheels_catalog(installed, tmp_path):
    """The repository imports the top-level `catalog`; the wheel has it only as blueprints.catalog."""
    probe = (
        "import blueprints.policies.pricing as p, blueprints.catalog as c; "
        "print(p.prices.__name__, c.__file__.startswith(%r), p.price('p5.48xlarge', {}) > 0)" % str(installed)
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["blueprints.catalog.prices", "True", "True"]


def test_a_consumer_program_puts_every_aws_resource_on_its_own_provider(installed, tmp_path):
    program = ROOT / "tests" / "data" / "consumer"
    env = {**os.environ, "PYTHONPATH": str(installed)}
    run = subprocess.run(
        [sys.executable, str(program / "run_under_mocks.py"), str(program / "__main__.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["package"].startswith(str(installed))  # the wheel's copy, not the repository's
    aws_resources = [r for r in result["resources"] if r["type"].startswith("aws:")]
    assert {
        "aws:s3/bucket:Bucket",
        "aws:s3/bucketPolicy:BucketPolicy",
        "aws:ec2/launchTemplate:LaunchTemplate",
        "aws:eks/nodeGroup:NodeGroup",
    } <= {r["type"] for r in aws_resources}
    deployer = "pulumi:providers:aws::deployer::"
    assert [r["name"] for r in aws_resources if deployer not in r["provider"]] == []
    assert [i["token"] for i in result["invokes"] if deployer not in i["provider"]] == []


def test_a_cluster_uses_the_callers_provider_and_makes_none_of_its_own(tmp_path):
    """`opts.providers` reaches every AWS resource of a whole cluster, and no stack provider is created."""
    from blueprints.offline.engine import run_program
    from blueprints.stackconfig import read_stack_config

    config = read_stack_config("startup-t4")
    registered, _ = run_program(
        "startup-t4", config, "us-east-1", program=ROOT / "tests" / "data" / "consumer" / "cluster_with_own_provider.py"
    )
    providers = [r for r in registered if r.type == "pulumi:providers:aws"]
    assert [p.name for p in providers] == ["assumed"]
    aws_resources = [r for r in registered if r.type.startswith("aws:")]
    assert aws_resources and all("::assumed::" in r.provider for r in aws_resources)


def test_the_yaml_example_uses_only_what_the_schema_declares():
    program = yaml.safe_load((ROOT / "examples" / "component-package" / "Pulumi.yaml").read_text())
    schema = json.loads((ROOT / "provider" / "aws" / "schema.json").read_text())
    assert program["packages"]["gpu-blueprints-aws"] == "../../provider/aws"
    used = [r for r in program["resources"].values() if r["type"].startswith("gpu-blueprints-aws:")]
    assert {r["type"] for r in used} == {"gpu-blueprints-aws:index:DataBucket", "gpu-blueprints-aws:index:GpuNodeGroup"}
    for resource in used:
        spec = schema["resources"][resource["type"]]
        given = set(resource["properties"])
        assert given <= set(spec["inputProperties"]), given - set(spec["inputProperties"])
        assert set(spec.get("requiredInputs", [])) <= given, set(spec["requiredInputs"]) - given
    for output in program["outputs"].values():
        name, prop = output.strip("${}").split(".")
        assert prop in schema["resources"][program["resources"][name]["type"]]["properties"]
