"""Images controllers and operators start at run time from their own defaults (runtime_images.yaml), as typed rows
and one lookup per controller, so the readiness check can tell whether what the plan renders sends each one through
the registry mirror (issue #35, class check c). The format and how to add a row: the YAML file's header."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

from .yamlfile import load_yaml

RUNTIME_IMAGES_FILE = Path(__file__).with_name("runtime_images.yaml")
Form = Literal["image", "repository", "registry"]


@dataclass(frozen=True)
class ResourceOverride:
    """A custom resource that overrides the release's image per object."""

    kind: str  # the engine's type token, e.g. kubernetes:gateway.envoyproxy.io/v1alpha1:EnvoyProxy
    fields: tuple[str, ...]  # dotted paths, first set wins
    inherits: str  # without this field set, the resource replaces the controller's defaults


@dataclass(frozen=True)
class RuntimeImage:
    controller: str  # chart key in components/kubernetes/charts.yaml
    version: str  # the chart version the row was read at
    image: str
    default: str  # what the controller runs when nothing overrides it
    values: tuple[str, ...]  # release values keys, in the chart's order of precedence
    form: Form
    unset: str  # the chart's value when none of `values` is set; "" = the controller's default runs
    source: str
    registry: Optional[str] = None  # form image: a values key replacing the image's registry
    resource: Optional[ResourceOverride] = None


@lru_cache(maxsize=1)
def runtime_images() -> tuple[RuntimeImage, ...]:
    raw = load_yaml(RUNTIME_IMAGES_FILE)
    rows = []
    for r in raw["images"]:
        res = r.get("resource")
        rows.append(
            RuntimeImage(
                controller=r["controller"],
                version=r["version"],
                image=r["image"],
                default=r["default"],
                values=tuple(r["values"]),
                form=r["form"],
                unset=r["unset"],
                source=raw["sources"].get(r["source"], r["source"]),
                registry=r.get("registry"),
                resource=ResourceOverride(res["kind"], tuple(res["fields"]), res["inherits"]) if res else None,
            )
        )
    return tuple(rows)


def images_of(controller: str) -> tuple[RuntimeImage, ...]:
    """The runtime images a release of the chart `controller` makes its controller start."""
    return tuple(r for r in runtime_images() if r.controller == controller)
