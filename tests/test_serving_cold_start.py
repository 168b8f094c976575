"""Scale from zero, exercised (issue #35 item 11): the cheaper of the two shipped serving stacks serves from zero
replicas by default, stays ready, and its plan states the cold start (node boot, image pull, weight load, engine
start, each with its source or marked an estimate) and what clients see meanwhile, in JSON, text and markdown."""

from __future__ import annotations

import json

import pytest

from blueprints.offline import readiness_serving
from blueprints.offline.render import render_json, render_markdown, render_text
from catalog import load_catalog
from conftest import shipped_plan
from test_serving import _one

SERVING = ("startup-serving", "startup-serving-aliyun")


def _gpu_rate(stack):
    [rate] = shipped_plan(stack).to_json()["cost"]["rates"]
    return rate["usdPerHour"]


def test_the_cheapest_serving_stack_scales_from_zero_and_is_ready():
    cheapest = min(SERVING, key=_gpu_rate)
    assert cheapest == "startup-serving"  # g6.xlarge $0.80/h against ecs.gn7i-c8g1.2xlarge $1.33/h
    plan = shipped_plan(cheapest)
    assert _one(plan, "kubernetes:keda.sh/v1alpha1:ScaledObject")["spec"]["minReplicaCount"] == 0
    assert readiness_serving.check(plan.registrations) == [] and plan.exit_code == 0


def test_the_plan_states_the_cold_start_with_sources():
    plan = shipped_plan("startup-serving")
    [cold] = json.loads(render_json(plan))["coldStart"]
    steps = {s["step"]: s for s in cold["steps"]}
    assert list(steps) == ["wake", "node boot", "image pull", "weight load", "engine start"]
    for s in cold["steps"]:
        assert s["seconds"] > 0 and s["basis"] and s["source"]
        assert s["estimate"] == (s["source"] == "estimate")
    # Mistral 7B at fp16 (7.24e9 x 2 B = 14.5 GB) over g6.xlarge's 2.5 Gbps baseline, a catalog fact with its source.
    shape = load_catalog().get("g6.xlarge")
    assert steps["weight load"]["seconds"] == round(7.24e9 * 2 * 8 / (shape.network_baseline_gbps * 1e9)) == 46
    assert not steps["weight load"]["estimate"] and steps["weight load"]["source"].startswith("https://")
    assert "28.6 GB unpacked (https://github.com/vllm-project/vllm/pull/22377)" in steps["image pull"]["basis"]
    assert steps["wake"]["seconds"] == 30  # the picker's scrape interval + KEDA's polling interval, from the plan
    assert cold["totalSeconds"] == sum(s["seconds"] for s in cold["steps"])
    assert "503 with no Retry-After header" in cold["clients"] and "v1.0.2" in cold["clients"]
    text, markdown = render_text(plan), render_markdown(plan)
    assert f"Cold start of mistral-7b from zero replicas: about 8 minutes ({cold['totalSeconds']} s):" in text
    assert "  - node boot: 180 s (estimate):" in text and "Clients: until a replica is ready" in text
    assert "| weight load | 46 |" in markdown and "| node boot | 180 (estimate) |" in markdown


@pytest.mark.parametrize("stack", ["startup-serving-aliyun", "startup-t4"])
def test_a_model_kept_up_or_no_model_has_no_cold_start(stack):
    assert shipped_plan(stack).to_json()["coldStart"] == []
