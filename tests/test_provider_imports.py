"""The offline plan loads provider modules on demand (issue #42), and every name resolves as the SDK's own package.

Each check runs in a fresh interpreter: this test process may already hold the SDKs' packages eagerly loaded.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from blueprints.stackconfig import ROOT

# One stack a cloud: together they use every provider service package the components use.
STACKS = ("enterprise-h100", "enterprise-aliyun")


def run_python(code: str, *args: str, stdin: str = "") -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


PLAN_AND_LIST = """
import json, sys
from blueprints.offline import provider_imports
from blueprints.offline.plan import make_plan
for stack in sys.argv[1:]:
    make_plan(stack)
packages = sorted(
    name for name, module in list(sys.modules.items())
    # type(), not an attribute: a package the SDK imports lazily and nothing used yet stays unloaded.
    if type(module) is provider_imports.OnDemandPackage or name in provider_imports.completed
)
loaded = {p: sorted(m for m in sys.modules if m.startswith(p + ".") and m.count(".") == p.count(".") + 1)
          for p in packages}
print(json.dumps({"packages": packages, "loaded": loaded, "completed": provider_imports.completed}))
"""


@pytest.fixture(scope="module")
def planned() -> dict:
    """The provider packages a plan of each cloud's enterprise stack loaded on demand, planned in a fresh process."""
    return run_python(PLAN_AND_LIST, *STACKS)


def test_a_plan_loads_only_the_provider_modules_it_uses(planned):
    found = planned
    assert found["completed"] == [], "a service package ran its whole __init__.py"
    init = importlib.util.find_spec("pulumi_aws.ec2").origin
    everything = sum(1 for line in open(init) if line.startswith("from .") and "import *" in line)
    loaded = found["loaded"]["pulumi_aws.ec2"]
    # The plan uses a dozen ec2 resources and functions, of 182 modules the package star-imports.
    assert len(loaded) < everything / 4, (len(loaded), everything)
    assert "pulumi_kubernetes.helm.v3.helm" not in found["loaded"]["pulumi_kubernetes.helm.v3"]


DESCRIBE = """
import json, sys, types
def describe(value):
    if isinstance(value, types.ModuleType):
        return "module " + value.__name__
    if hasattr(value, "__qualname__") and hasattr(value, "__module__"):
        return f"{type(value).__name__} {value.__module__}.{value.__qualname__}"
    return f"{type(value).__name__} {value!r}"[:200]
"""

EAGER = (
    DESCRIBE
    + """
import importlib
from blueprints.offline.provider_imports import OnDemandFinder, generated_imports
sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, OnDemandFinder)]  # the SDK's own loading
out = {}
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    package.typing  # the first attribute read loads a package the SDK imported lazily
    star, lazy = generated_imports(open(package.__file__).read())
    # What a module of the package declares it exports, and the package's modules and sub-packages.
    declared = set(lazy) | {
        k for k, v in vars(package).items() if isinstance(v, types.ModuleType) and v.__name__.startswith(name + ".")
    }
    for module in star:
        declared.update(getattr(sys.modules[f"{name}.{module}"], "__all__", ()))
    out[name] = {
        k: [describe(v), k in declared] for k, v in sorted(vars(package).items()) if not k.startswith("_")
    }
print(json.dumps(out))
"""
)

ON_DEMAND = (
    DESCRIBE
    + """
import importlib
from blueprints.offline import provider_imports
spec = json.loads(sys.stdin.read())
out = {}
for name, names in spec.items():
    package = importlib.import_module(name)
    package.__ondemand__  # the first attribute read loads a package the SDK imported lazily
    assert isinstance(package, provider_imports.OnDemandPackage), name
    described = {}
    # First the names a module declares (`__all__`): each loads its own module. Then the rest (`typing`, or what a
    # module without `__all__` holds, as helm/v3/helm.py): those make the package run its whole __init__.py.
    for key, (_, declared) in sorted(names.items(), key=lambda item: not item[1][1]):
        described[key] = [describe(getattr(package, key)), declared]
        if declared and name in provider_imports.completed:
            print("completed by", name, key, file=sys.stderr)
    out[name] = dict(sorted(described.items()))
print(json.dumps(out))
"""
)


def test_every_name_resolves_as_the_sdk_package_does(planned):
    """For each service package the shipped stacks use, every public name of the eagerly loaded package (the SDK's
    own __init__.py) is the very same object when the package loads on demand, and none makes it run in full."""
    packages = planned["packages"]
    assert "pulumi_aws.ec2" in packages and "pulumi_kubernetes.core.v1" in packages and "pulumi_alicloud.cs" in packages
    eager = run_python(EAGER, *packages)
    on_demand = run_python(ON_DEMAND, stdin=json.dumps(eager))
    assert on_demand == eager


REFERENCES = """
import json, sys
from blueprints.offline import provider_imports
import pulumi_aws, pulumi_kubernetes
from pulumi.runtime.rpc import _RESOURCE_MODULES
from pulumi._utils import lazy_import
out = {}
for typ in ("aws:ec2/vpc:Vpc", "aws:iam/role:Role", "kubernetes:core/v1:ConfigMap", "kubernetes:helm.sh/v3:Release"):
    pkg, mod, _ = typ.split(":")
    module = _RESOURCE_MODULES[f"{pkg}:{mod}"][0]
    class_name = module.mod_info["classes"][typ]
    # What the SDK's Module.construct does to deserialize a resource reference of this type.
    cls = getattr(lazy_import(module.mod_info["fqn"]), class_name)
    out[typ] = f"{cls.__module__}.{cls.__qualname__}"
print(json.dumps({"classes": out, "completed": provider_imports.completed}))
"""


def test_resource_references_still_find_their_class():
    found = run_python(REFERENCES)
    assert found["classes"] == {
        "aws:ec2/vpc:Vpc": "pulumi_aws.ec2.vpc.Vpc",
        "aws:iam/role:Role": "pulumi_aws.iam.role.Role",
        "kubernetes:core/v1:ConfigMap": "pulumi_kubernetes.core.v1.ConfigMap.ConfigMap",
        "kubernetes:helm.sh/v3:Release": "pulumi_kubernetes.helm.v3.Release.Release",
    }
    assert found["completed"] == []


def test_the_program_the_cli_runs_imports_the_sdks_as_they_are():
    """`__main__.py` (what `pulumi up` runs) never imports blueprints.offline, so the finder is not installed there."""
    code = (
        "import sys, json, blueprints.compose, components.aws.cluster, components.alicloud.cluster\n"
        "print(json.dumps({'offline': sorted(m for m in sys.modules if m.startswith('blueprints.offline')),"
        " 'finders': [type(f).__name__ for f in sys.meta_path]}))"
    )
    found = run_python(code)
    assert found["offline"] == []
    assert "OnDemandFinder" not in found["finders"]
