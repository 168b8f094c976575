"""Provider modules on demand in the offline plan: a service package's resources load when first used.

Why: a Pulumi provider SDK's service package (``pulumi_aws.ec2``, ``pulumi_kubernetes.core.v1``) is generated as an
``__init__.py`` that star-imports every module of the service (``from .vpc import *`` for each of ec2's 182
modules), so the first ``aws.ec2.Vpc`` runs all of them; pulumi_aws's top-level package already loads its service
packages lazily (``_utilities.lazy_import``), but not the modules inside one. A cold offline plan spent about a third
of its imports there (docs/benchmarks.md, issue #42).

How: a meta-path finder (PEP 451, ``importlib.abc.MetaPathFinder``) gives such a package a loader that does not run
its ``__init__.py`` at once: the package module answers an attribute it does not have yet (the language's
module ``__getattr__`` hook, through a module subclass as the data model documents for ``__class__``) by importing
the one module the generated code names after it (``LaunchTemplate`` / ``LaunchTemplateArgs`` from
``launch_template.py`` in pulumi_aws, ``ConfigMap`` from ``ConfigMap.py`` in pulumi_kubernetes, ``get_role`` /
``get_role_output`` / ``AwaitableGetRoleResult`` from ``get_role.py``) or from the package's ``_inputs`` or ``_enums``,
whichever of them the real ``__init__.py`` star-imports last.
A name those do not export, and any ``__all__`` or ``dir()`` query, runs the real ``__init__.py`` in the package,
which is then an ordinary module. Only packages whose ``__init__.py`` is nothing but the generated import lines
(the pattern below) are taken; any other (``pulumi_aws.config`` sets its own module class) loads as usual.
``tests/test_provider_imports.py`` holds every public name of the packages the enterprise stacks use equal to the
eagerly loaded package's.

Only the offline plan installs it (``blueprints.offline`` at import); ``__main__.py`` under the Pulumi CLI imports
the SDKs as they are. Resource references still deserialize: the SDK's resource modules look the class up with
``getattr`` on the service package, which resolves the same way.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import re
import sys
import types

PROVIDERS = ("pulumi_aws", "pulumi_kubernetes", "pulumi_alicloud")

# The lines pulumi-language-python generates in a service package's __init__.py (pulumi_aws 7.51.1,
# pulumi_kubernetes 4.34.2, pulumi_alicloud 4.0.0): comments, the builtins/_utilities/typing imports, one
# star-import per module, `from . import outputs`, and the TYPE_CHECKING block of lazily imported sub-packages.
_GENERATED_LINE = re.compile(
    r"\s*(#.*)?"
    r"|import builtins as _builtins"
    r"|from \.+ import _utilities"
    r"|import typing"
    r"|from \.(?P<star>\w+) import \*"
    r"|from \. import outputs"
    r"|if typing\.TYPE_CHECKING:"
    r"|    import [\w.]+ as __\w+"
    r"|    \w+ = __\w+"
    r"|else:"
    r"|    (?P<lazy>\w+) = _utilities\.lazy_import\('[\w.]+'\)"
)
_SUFFIXES = ("InitArgs", "Args", "_output")
# The packages that ran their whole __init__.py in this process (a name no module of theirs exports was asked for).
completed: list[str] = []


def _snake(name: str) -> str:
    """``LaunchTemplate`` -> ``launch_template``, ``HAVip`` -> ``ha_vip`` (an acronym ends before its last capital)."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def candidate_modules(name: str) -> list[str]:
    """The modules the generated code names after an exported name, most likely first."""
    base = name
    if base.startswith("Awaitable") and base.endswith("Result"):
        base = base[len("Awaitable") : -len("Result")]
    elif base.endswith("Result"):
        base = base[: -len("Result")]
    for suffix in _SUFFIXES:
        if base.endswith(suffix) and base != suffix:
            base = base[: -len(suffix)]
            break
    seen: list[str] = []
    for candidate in (base, _snake(base)):
        if candidate not in seen:
            seen.append(candidate)
    return seen


class OnDemandPackage(types.ModuleType):
    """A generated service package whose ``__init__.py`` has not run: names load from their own modules."""

    def __getattr__(self, name: str):
        state = self.__dict__["__ondemand__"]
        if not name.startswith("__"):
            value = _resolve(self, state, name)
            if value is not _MISSING:
                types.ModuleType.__setattr__(self, name, value)
                return value
        complete(self)
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}") from None

    def __dir__(self):
        complete(self)
        return list(self.__dict__)

    def __setattr__(self, name: str, value) -> None:
        # The import system binds a freshly imported submodule on its package; the real __init__.py would then
        # rebind the name to what the module exports (`from .ConfigMap import *` binds the class ConfigMap).
        state = self.__dict__.get("__ondemand__")
        if (
            state is not None
            and isinstance(value, types.ModuleType)
            and name in state["star"]
            and getattr(value, "__name__", None) == f"{self.__name__}.{name}"
            and name in getattr(value, "__all__", ())
        ):
            value = value.__dict__[name]
        types.ModuleType.__setattr__(self, name, value)


_MISSING = object()


def _import(fullname: str) -> types.ModuleType:
    # __import__ rather than importlib.import_module: the same import, and `python -X importtime` reports it.
    __import__(fullname)
    return sys.modules[fullname]


def _resolve(package: types.ModuleType, state: dict, name: str):
    star = state["star"]
    if name in state["lazy"] or (name not in star and state["has_submodule"](name)):
        return _import(f"{package.__name__}.{name}")
    # Of the modules that may export the name, the one star-imported last, as the real __init__.py would bind it.
    for module_name in sorted(
        (m for m in {*candidate_modules(name), "_inputs", "_enums"} if m in star), key=star.index, reverse=True
    ):
        module = _import(f"{package.__name__}.{module_name}")
        if name in getattr(module, "__all__", ()):
            return module.__dict__[name]
    return _MISSING


def complete(package: types.ModuleType) -> None:
    """Run the package's real ``__init__.py`` in it; from then on it is an ordinary module."""
    state = package.__dict__.pop("__ondemand__", None)
    if state is None:
        return
    package.__class__ = types.ModuleType
    completed.append(package.__name__)
    exec(state["code"], package.__dict__)


class _OnDemandLoader(importlib.abc.Loader):
    def __init__(self, source_loader: importlib.machinery.SourceFileLoader, star: tuple[str, ...], lazy: frozenset):
        self.source_loader = source_loader
        self.star = star
        self.lazy = lazy

    def create_module(self, spec):
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        folder = os.path.dirname(self.source_loader.path)

        def has_submodule(name: str) -> bool:
            return os.path.isfile(os.path.join(folder, f"{name}.py")) or os.path.isdir(os.path.join(folder, name))

        module.__dict__["__ondemand__"] = {
            "star": self.star,
            "lazy": self.lazy,
            "has_submodule": has_submodule,
            "code": self.source_loader.get_code(module.__name__),
        }
        module.__class__ = OnDemandPackage


def generated_imports(source: str) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """The star-imported modules and lazily imported sub-packages of a generated ``__init__.py``, or None when the
    file holds anything else."""
    star: list[str] = []
    lazy: set[str] = set()
    for line in source.splitlines():
        match = _GENERATED_LINE.fullmatch(line)
        if match is None:
            return None
        if match["star"]:
            star.append(match["star"])
        if match["lazy"]:
            lazy.add(match["lazy"])
    return tuple(star), frozenset(lazy)


class OnDemandFinder(importlib.abc.MetaPathFinder):
    """Finds the provider SDKs' generated service packages and loads them on demand."""

    def find_spec(self, fullname, path, target=None):
        top, _, rest = fullname.partition(".")
        if top not in PROVIDERS or not rest or path is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.submodule_search_locations is None:
            return spec
        if not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        with open(spec.origin, encoding="utf-8") as handle:
            found = generated_imports(handle.read())
        if found is None:
            return spec
        spec.loader = _OnDemandLoader(spec.loader, *found)
        return spec


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once per process). Packages imported before stay as they are."""
    if not any(isinstance(finder, OnDemandFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, OnDemandFinder())
