"""What each controller the platform installs watches at its pinned version, and where those kinds come from
(controllers.yaml, every row with the upstream repository, tag, commit and file it was read from).

A controller built on controller-runtime lists and watches every kind it registers a reconciler or watch for; when a
kind's CRD is not served, its cache cannot sync and the manager exits (or, where the controller checks first, the
kind is skipped until a restart). The offline plan's readiness check (blueprints/offline/readiness_controllers.py)
matches the plan's Helm releases and Deployments to these rows and requires each watched kind's CRD to come with the
chart or to be registered, and ordered, before the controller.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Mapping, Optional

from pydantic import BaseModel, ConfigDict, Field

from .yamlfile import load_yaml

FACTS_FILE = Path(__file__).with_name("controllers.yaml")


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Source(_Row):
    repo: str
    tag: str
    commit: str
    file: str
    read: date

    def line(self) -> str:
        return f"{self.repo}@{self.tag} ({self.commit[:8]}): {self.file}"


class Kind(_Row):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    group: str  # "" for the core API
    version: str
    kind: str
    resource: Optional[str] = None  # the plural, where the controller's RBAC is compared
    origin: Literal["cluster", "chart", "plan"] = Field(alias="from")
    file: str

    @property
    def api(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


class ChartCrds(_Row):
    groups: list[str]
    file: str
    enabled_by: Optional[str] = None  # the values switch that installs them, if the chart has one
    enabled_default: bool = True

    def installed(self, values: Mapping[str, Any]) -> bool:
        """Whether a release with these values installs the CRDs (the switch's default where values leave it)."""
        if not self.enabled_by:
            return True
        node: Any = values
        for part in self.enabled_by.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return self.enabled_default
            node = node[part]
        return bool(node)


class ValuesWatch(_Row):
    path: str  # a values path holding a list of {group, version, kind}
    file: str


class Controller(_Row):
    name: str
    chart: Optional[str] = None  # the Helm release name (components/kubernetes/charts.yaml key)
    image: Optional[str] = None  # the container repository of a Deployment the platform declares
    version: str
    source: Source
    code: Optional[Source] = None  # where the watches were read, when not in the chart's repository
    chart_crds: Optional[ChartCrds] = None
    watches_read: Literal["complete", "partial", "none"]
    watches: list[Kind] = Field(default_factory=list)
    watches_from_values: list[ValuesWatch] = Field(default_factory=list)

    @property
    def read_from(self) -> Source:
        """Where its watches were read."""
        return self.code or self.source

    def values_kinds(self, values: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
        """(group, version, kind, file) of each entry the release's values list under watches_from_values."""
        found = []
        for watch in self.watches_from_values:
            node: Any = values
            for part in watch.path.split("."):
                node = node.get(part) if isinstance(node, Mapping) else None
            for entry in node if isinstance(node, list) else []:
                if isinstance(entry, Mapping) and entry.get("kind"):
                    found.append((entry.get("group", ""), entry.get("version", ""), entry["kind"], watch.file))
        return found


@lru_cache(maxsize=1)
def controllers() -> dict[str, Controller]:
    rows = load_yaml(FACTS_FILE)["controllers"]
    return {name: Controller(name=name, **row) for name, row in rows.items()}


def for_chart(chart: str) -> Optional[Controller]:
    return next((c for c in controllers().values() if c.chart == chart), None)


def for_image(repository_path: str) -> Optional[Controller]:
    """The row whose image has this repository path (registry host left out). A registry mirror keeps the path, under
    its own path prefix if it has one (components/kubernetes/mirror.py), so the row's path may end it."""

    def matches(row: Controller) -> bool:
        path = row.image.split("/", 1)[1] if row.image else None
        return path is not None and (repository_path == path or repository_path.endswith("/" + path))

    return next((c for c in controllers().values() if matches(c)), None)
