"""The pinned upstream charts (charts.yaml) as typed records, and the one way a release of them is declared."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import pulumi
import pulumi_kubernetes as k8s
import yaml
from pydantic import BaseModel, ConfigDict

CHARTS_FILE = Path(__file__).with_name("charts.yaml")
# libyaml's safe loader where PyYAML was built with it, else the pure-Python one: the same plain data from the
# same safe constructors, parsed in C (the inference gateway's CRDs are 16 KB each; issue #42).
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Chart(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    repo: str
    chart: str
    version: str
    source: str
    images: dict[str, str] = {}
    """Values key -> the image repository (registry host and path) the chart pulls from when the key is unset."""
    registries: dict[str, list[str]] = {}
    """Values key setting the registry of several images -> those images (host/repository as the chart spells them)."""


@lru_cache(maxsize=1)
def charts() -> dict[str, Chart]:
    return {
        name: Chart(**entry)
        for name, entry in yaml.load(CHARTS_FILE.read_text(), Loader=SAFE_LOADER).items()  # noqa: S506 - a safe loader
    }


def chart_release(
    parent: pulumi.Resource,
    resource_name: str,
    key: str,
    namespace: str,
    values: Any,
    *,
    create_namespace: bool = False,
    depends_on: Sequence[pulumi.Resource] = (),
) -> k8s.helm.v3.Release:
    """A Helm release of the pinned chart ``key``: atomic (rolled back unless every resource becomes ready).

    An OCI chart is named by its full reference and takes no repository options (pulumi-kubernetes #1892)."""
    chart = charts()[key]
    source: dict[str, Any] = (
        {"chart": f"{chart.repo}/{chart.chart}"}
        if chart.repo.startswith("oci://")
        else {"chart": chart.chart, "repository_opts": {"repo": chart.repo}}
    )
    return k8s.helm.v3.Release(
        resource_name,
        name=key,
        version=chart.version,
        namespace=namespace,
        values=values,
        atomic=True,
        cleanup_on_fail=True,
        create_namespace=create_namespace,
        **source,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=list(depends_on)),
    )
