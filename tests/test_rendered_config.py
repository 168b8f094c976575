"""Issue #35 (d): what every stack renders passes its project's own validator: each shipped stack (stacks/) and each
test stack (tests/data/stacks) is planned once, and what the plan hands to a running program is checked as that
program would load it.

- Alertmanager's configuration: the release's `alertmanager.config` merged into kube-prometheus-stack 88.5.3's
  default as Helm merges values (tests/data/charts), through `amtool check-config` (0.25.0, what `make install`
  fetches), and the XID alert of the promtool tests must reach a receiver with a destination
  (`amtool config routes test`).
- Prometheus rules: every PrometheusRule's groups through `promtool check rules`.
- KEDA's Prometheus queries: each ScaledObject trigger's query through `promtool check rules` as a recording rule.

No validator runs here for the Grafana dashboard (Grafana has no offline checker), the DCGM exporter's counter CSV
(dcgm-exporter has no check mode), or Helm values of the other charts (no schema published at their pins).
"""

from __future__ import annotations

import copy
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from blueprints.offline.plan import Plan, make_plan
from blueprints.stackconfig import available_stacks
from tests.conftest import SHIPPED, shipped_plan
from tests.test_alert_routing import AMTOOL, xid_labels
from tests.test_distributed_training import PROMTOOL

ROOT = Path(__file__).resolve().parents[1]
TEST_STACKS = ROOT / "tests/data/stacks"
CHART_DEFAULT = ROOT / "tests/data/charts/kube-prometheus-stack-alertmanager-config.yaml"
STACKS = [("stacks", s) for s in SHIPPED] + [("tests", s) for s in available_stacks(TEST_STACKS)]
IDS = [f"{where}/{stack}" for where, stack in STACKS]
# What a Pulumi secret (or an unknown) stands for in a rendered file: a string every field that takes one accepts.
REDACTED = "https://redacted.invalid/secret"


@lru_cache(maxsize=None)
def _test_plan(stack: str) -> Plan:
    return make_plan(stack, TEST_STACKS)


def plan_of(where: str, stack: str) -> Plan:
    """Each stack planned once for the whole module (shipped plans through conftest's cache)."""
    return shipped_plan(stack) if where == "stacks" else _test_plan(stack)


def helm_merge(defaults: Any, values: Any) -> Any:
    """Helm's coalescing of a release's values over a chart's: maps merge key by key, anything else is replaced,
    and a null removes the key (helm/helm pkg/chartutil/coalesce.go)."""
    if not (isinstance(defaults, dict) and isinstance(values, dict)):
        return copy.deepcopy(values)
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = helm_merge(merged.get(key), value)
    return merged


def redacted(value: Any) -> Any:
    if value == {"secret": True} or value == "<computed>":
        return REDACTED
    if isinstance(value, dict):
        return {k: redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(v) for v in value]
    return value


def releases(plan: Plan, chart: str) -> list[dict[str, Any]]:
    return [
        r.inputs for r in plan.registrations if r.type == "kubernetes:helm.sh/v3:Release" and r.inputs["name"] == chart
    ]


def alertmanager_file(plan: Plan) -> dict[str, Any]:
    """The configuration Alertmanager loads: the chart's default with the release's config merged in."""
    [release] = releases(plan, "kube-prometheus-stack")
    given = ((release.get("values") or {}).get("alertmanager") or {}).get("config") or {}
    return redacted(helm_merge(yaml.safe_load(CHART_DEFAULT.read_text()), given))


def tool(path: Path) -> str:
    if not path.exists():
        pytest.fail(f"{path} is missing: `make install` fetches it")
    return str(path)


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=60)


# --------------------------------------------------------------------------- Alertmanager
@pytest.mark.parametrize("where, stack", STACKS, ids=IDS)
def test_amtool_accepts_what_each_stack_renders_and_the_xid_alert_reaches_someone(where, stack, tmp_path):
    config = alertmanager_file(plan_of(where, stack))
    (tmp_path / "alertmanager.yaml").write_text(yaml.safe_dump(config))
    check = run(tool(AMTOOL), "check-config", "alertmanager.yaml", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    routed = run(
        tool(AMTOOL), "config", "routes", "test", "--config.file=alertmanager.yaml", *xid_labels(), cwd=tmp_path
    )
    assert routed.returncode == 0, routed.stdout + routed.stderr
    reached = set(routed.stdout.strip().split(","))
    receivers = {r["name"]: r for r in config["receivers"]}
    assert any(k.endswith("_configs") and v for name in reached for k, v in receivers[name].items()), reached


def test_the_merge_is_helm_s():
    """The chart's inhibit rules and templates stay; the release's lists replace the chart's."""
    merged = helm_merge({"a": {"b": 1, "c": [1]}, "d": 2, "e": 3}, {"a": {"c": [2]}, "d": None, "f": 4})
    assert merged == {"a": {"b": 1, "c": [2]}, "e": 3, "f": 4}


# --------------------------------------------------------------------------- Prometheus rules and queries
def rule_files(plan: Plan) -> dict[str, dict[str, Any]]:
    """Each PrometheusRule's groups, and the ScaledObjects' Prometheus queries as recording rules."""
    files = {
        r.name: {"groups": r.inputs["spec"]["groups"]}
        for r in plan.registrations
        if r.type == "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
    }
    queries = [
        {"record": f"keda:{r.name.replace('-', '_')}:{i}", "expr": t["metadata"]["query"]}
        for r in plan.registrations
        if r.type.endswith(":ScaledObject")
        for i, t in enumerate(r.inputs["spec"]["triggers"])
        if t["type"] == "prometheus"
    ]
    if queries:
        files["keda-queries"] = {"groups": [{"name": "keda", "rules": queries}]}
    return files


@pytest.mark.parametrize("where, stack", STACKS, ids=IDS)
def test_promtool_accepts_every_rule_and_query_each_stack_renders(where, stack, tmp_path):
    files = rule_files(plan_of(where, stack))
    assert files, "the stack renders no rules"
    for name, groups in files.items():
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(redacted(groups)))
        check = run(tool(PROMTOOL), "check", "rules", f"{name}.yaml", cwd=tmp_path)
        assert check.returncode == 0, (name, check.stdout + check.stderr)


def test_the_serving_stacks_queries_are_among_them():
    assert "keda-queries" in rule_files(shipped_plan("startup-serving"))
