"""Every values key the plan sets for a chart is a key the chart has (issue #35 item 9).

Helm ignores a values key no template reads: `{"preferDriver": "ofed"}` for the eRDMA controller installed the agent
without `--prefer-driver`, because the chart reads `agent.preferDriver`. The upstream values.yaml at the version
installed is kept in tests/data/charts/values (sources in SOURCE.md there); every chart named in UPSTREAM is checked
in every shipped and test stack that installs it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from blueprints.offline.plan import Plan
from blueprints.stackconfig import ROOT
from components.kubernetes.charts import charts
from conftest import SHIPPED, data_plan, shipped_plan, source_rows

DATA = Path(__file__).parent / "data" / "charts" / "values"
TEST_STACKS = ROOT / "tests" / "data" / "stacks"
ADDON, RELEASE = "alicloud:cs/kubernetesAddon:KubernetesAddon", "kubernetes:helm.sh/v3:Release"

# What the plan installs (an ACK add-on name or a Helm release's chart) -> the upstream chart kept in DATA.
UPSTREAM = {
    "ack-erdma-controller": "alibabacloud-erdma-controller",
    # An OCI chart's release names its full reference (components/kubernetes/charts.py chart_release).
    f"{charts()['dra-driver-nvidia-gpu'].repo}/dra-driver-nvidia-gpu": "dra-driver-nvidia-gpu",
    "aws-dranet": "aws-dranet",
}


def upstream_values(chart: str) -> dict[str, Any]:
    return yaml.safe_load((DATA / f"{chart}-values.yaml").read_text())


def missing_keys(ours: dict[str, Any], theirs: dict[str, Any], path: str = "") -> list[str]:
    """Dotted paths of keys in ``ours`` that ``theirs`` does not have. Below a key whose upstream default is not a
    non-empty map (``nodeSelector: {}``, a list, a scalar) any content is the user's to give."""
    out = []
    for key, value in ours.items():
        where = f"{path}{key}"
        if key not in theirs:
            out.append(where)
        elif isinstance(value, dict) and isinstance(theirs[key], dict) and theirs[key]:
            out += missing_keys(value, theirs[key], f"{where}.")
    return out


def chart_values(plan: Plan) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(resource name, upstream chart, values) for each install of a chart in UPSTREAM."""
    for reg in plan.registrations:
        if reg.type == ADDON and reg.inputs.get("name") in UPSTREAM and reg.inputs.get("config"):
            yield reg.name, UPSTREAM[reg.inputs["name"]], json.loads(reg.inputs["config"])
        elif reg.type == RELEASE and reg.inputs.get("chart") in UPSTREAM:
            yield reg.name, UPSTREAM[reg.inputs["chart"]], dict(reg.inputs.get("values") or {})


def test_every_kept_values_file_has_its_source() -> None:
    rows = source_rows(DATA / "SOURCE.md")
    assert set(rows) == {p.name.removesuffix("-values.yaml") for p in DATA.glob("*-values.yaml")}
    assert set(UPSTREAM.values()) <= set(rows)
    for row in rows.values():
        assert len(row["commit"]) == 40 and row["repo"] and row["ref"] and row["path"].endswith("values.yaml")


def test_the_check_catches_a_misplaced_key() -> None:
    erdma = upstream_values("alibabacloud-erdma-controller")
    assert missing_keys({"preferDriver": "ofed"}, erdma) == ["preferDriver"]
    assert missing_keys({"agent": {"prefer_driver": "ofed"}}, erdma) == ["agent.prefer_driver"]
    assert missing_keys({"agent": {"preferDriver": "ofed"}, "nodeSelector": {"any": "label"}}, erdma) == []


@pytest.mark.parametrize("stack", SHIPPED)
def test_shipped_stacks_set_only_keys_their_charts_have(stack: str) -> None:
    for name, chart, values in chart_values(shipped_plan(stack)):
        assert not missing_keys(values, upstream_values(chart)), f"{name}: {chart} has no such values key"


@pytest.mark.parametrize("path", sorted(TEST_STACKS.glob("Pulumi.*.yaml")), ids=lambda p: p.stem)
def test_test_stacks_set_only_keys_their_charts_have(path: Path) -> None:
    plan = data_plan(path.stem.removeprefix("Pulumi."))
    for name, chart, values in chart_values(plan):
        assert not missing_keys(values, upstream_values(chart)), f"{name}: {chart} has no such values key"


def test_the_erdma_controller_gets_the_ofed_driver_where_the_chart_reads_it() -> None:
    [(_, chart, values)] = list(chart_values(shipped_plan("enterprise-aliyun")))
    assert chart == "alibabacloud-erdma-controller" and values["agent"]["preferDriver"] == "ofed"


def test_the_dra_drivers_values_are_keys_of_their_charts() -> None:
    theirs = upstream_values("dra-driver-nvidia-gpu")
    assert missing_keys({"resources": {"gpu": {"enabled": True}}}, theirs) == ["resources.gpu"]
    installed = {chart: values for _, chart, values in chart_values(data_plan("dra-devices"))}
    assert set(installed) == {"dra-driver-nvidia-gpu", "aws-dranet"}
    assert not missing_keys(installed["dra-driver-nvidia-gpu"], theirs)
    assert not missing_keys(installed["aws-dranet"], upstream_values("aws-dranet"))
