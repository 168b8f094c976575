"""Every pinned chart version is the upstream CHART version (Chart.yaml `version`), never an app/image version.

tests/data/charts/<key>-Chart.yaml is the upstream Chart.yaml at the pinned ref, copied unchanged; SOURCE.md there
records repo, ref, commit and date per chart in a table this test reads."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from components.kubernetes.charts import charts
from conftest import source_rows  # noqa: E402

DATA = Path(__file__).parent / "data" / "charts"
# NVIDIA's gpu-operator, kubernetes-sigs/lws and Envoy Gateway / AI Gateway keep a placeholder in the tagged Chart.yaml
# and publish the chart under the release tag (lws: without its leading v, as its installation docs install it).
TAG_VERSIONED = {
    "gpu-operator": "v1.0.0-devel",
    "lws": "0.1.0",
    "gateway-helm": "v0.0.0-latest",
    "ai-gateway-crds-helm": "v0.0.0-latest",
    "ai-gateway-helm": "v0.0.0-latest",
    "karpenter": "1.13.0",  # the previous release: hack/release/common.sh sets the tag at publishing
}


def _chart_yaml(key: str) -> dict:
    return yaml.safe_load((DATA / f"{key}-Chart.yaml").read_text())


@pytest.mark.parametrize("key", sorted(charts()))
def test_pin_is_the_upstream_chart_version(key: str) -> None:
    pin, upstream, row = charts()[key], _chart_yaml(key), source_rows(DATA / "SOURCE.md")[key]
    assert upstream["name"] == pin.chart
    assert len(row["commit"]) == 40 and row["repo"] and row["date"][:2] == "20"
    if key in TAG_VERSIONED:
        assert upstream["version"] == TAG_VERSIONED[key], "placeholder gone: compare the pin with the file instead"
        assert pin.version == (row["ref"].removeprefix("v") if key in ("lws", "karpenter") else row["ref"])
    else:
        assert str(upstream["version"]) == pin.version
        assert row["version"] == pin.version


def test_source_table_names_every_pinned_chart_and_nothing_else() -> None:
    files = {p.name.removesuffix("-Chart.yaml") for p in DATA.glob("*-Chart.yaml")}
    assert set(source_rows(DATA / "SOURCE.md")) == set(charts()) == files


def test_a_pin_equal_to_an_app_version_only_where_chart_and_app_versions_agree() -> None:
    # The EFA pin was once "v0.5.7": chart v0.5.7 carried image v0.5.4, and image v0.5.7 shipped in chart v0.5.12.
    for key, pin in charts().items():
        upstream = _chart_yaml(key)
        if pin.version == str(upstream.get("appVersion")):
            assert str(upstream["version"]) == pin.version, key
