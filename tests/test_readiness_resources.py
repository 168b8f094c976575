"""Provider-required tags and globally unique names (issue 23 items 2 and 3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from blueprints.offline import readiness_resources
from blueprints.offline.readiness import BLOCKING
from conftest import resources, shipped_plan

BUCKET, PROJECT = "alicloud:oss/bucket:Bucket", "alicloud:log/project:Project"
ALIYUN = ("startup-t4-aliyun", "research-a100-aliyun", "enterprise-aliyun")


@dataclass
class Reg:
    type: str
    name: str
    id: str
    urn: str
    inputs: dict[str, Any] = field(default_factory=dict)


def as_regs(plan) -> list[Reg]:
    return [Reg(r.type, r.name, r.id, r.urn, dict(r.inputs)) for r in plan.registrations]


def checks(findings) -> list[tuple[str, str, str]]:
    return [(f.check, f.level, f.resource) for f in findings]


def test_the_cpfs_data_flow_bucket_carries_the_tag_and_the_log_bucket_does_not():
    plan = shipped_plan("enterprise-aliyun")
    (flow,) = resources(plan, "alicloud:nas/dataFlow:DataFlow")
    buckets = {b["bucket"]: b["tags"] for b in resources(plan, BUCKET)}
    source = flow["sourceStorage"].removeprefix("oss://")
    assert buckets[source]["cpfs-dataflow"] == "true"
    assert [name for name, tags in buckets.items() if "cpfs-dataflow" in tags] == [source]
    assert [f for f in plan.readiness if f.check == "required-tag"] == []


def test_a_data_flow_bucket_without_the_tag_is_blocking():
    regs = as_regs(shipped_plan("enterprise-aliyun"))
    for r in regs:  # the bucket as the storage component declared it before the fix
        if r.type == BUCKET:
            r.inputs["tags"] = {k: v for k, v in r.inputs["tags"].items() if k != "cpfs-dataflow"}
    assert checks(readiness_resources.check(regs)) == [("required-tag", BLOCKING, "enterprise-aliyun-data")]


@pytest.mark.parametrize("stack", ALIYUN)
def test_bucket_and_log_project_names_are_unique_per_deployment(stack):
    plan = shipped_plan(stack)
    names = [b["bucket"] for b in resources(plan, BUCKET)] + [p["projectName"] for p in resources(plan, PROJECT)]
    assert names and all(n.startswith(stack) and n != stack for n in names)
    assert {r.name for r in plan.registrations if r.type in (BUCKET, PROJECT)}.isdisjoint(names)
    assert [f for f in plan.readiness if f.check == "global-name"] == []


def test_the_suffix_differs_per_account_and_is_stable():
    from components.alicloud.cluster import unique_name

    names = [unique_name("research-a100-aliyun-data", a) for a in ("1234567890123456", "1234567890123457")]
    assert names[0] == unique_name("research-a100-aliyun-data", "1234567890123456") != names[1]
    assert all(len(f"{n}-access-logs") <= 63 for n in names)  # the OSS limit


@pytest.mark.parametrize("stack", ALIYUN)
def test_names_made_of_the_stack_name_only_are_blocking(stack):
    regs = as_regs(shipped_plan(stack))
    for r in regs:  # what the components declared before the fix: the resource name, i.e. the stack's name
        if r.type == BUCKET:
            r.inputs["bucket"] = r.name
        if r.type == PROJECT:
            r.inputs["projectName"] = r.name
    found = [f for f in readiness_resources.check(regs) if f.check == "global-name"]
    assert {f.resource for f in found} == {r.name for r in regs if r.type in (BUCKET, PROJECT)}
    assert all(f.level == BLOCKING for f in found)


def test_every_network_fact_names_a_source_it_defines():
    from catalog.cluster_network import network_facts

    facts = network_facts()
    cited = [f["source"] for cloud in facts["node_egress"].values() for f in cloud]
    cited += [f["source"] for f in facts["required_tags"] + facts["global_names"]]
    cited += [f["source"] for f in facts["default_egress"].values()]
    cited += [f["source"] for f in facts["network_policy"].values()]
    assert cited and set(cited) <= set(facts["sources"])
    assert all("read 2026-" in text for text in facts["sources"].values())
