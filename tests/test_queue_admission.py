"""Issue 23 item 9: the first job must be admissible by the queue of the stack it names, and readiness says when a
team's Kueue quota (nominal + borrowable in its cohort) cannot fit a node group's smallest gang."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import yaml
from google.protobuf import json_format, struct_pb2

from blueprints.offline.readiness import BLOCKING, check
from blueprints.offline.readiness_queues import admissible
from conftest import shipped_plan, validate_crd

ROOT = Path(__file__).resolve().parent.parent
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "m": 1e-3, "": 1}


def quantity(value) -> float:
    text = str(value)
    for unit in sorted(UNITS, key=len, reverse=True):
        if unit and text.endswith(unit):
            return float(text[: -len(unit)]) * UNITS[unit]
    return float(text)


def kueue_objects(regs, kind):
    return {r.inputs["metadata"]["name"]: r.inputs for r in regs if r.type == KUEUE + kind}


def job_request(job) -> tuple[dict[str, float], dict[str, str]]:
    """Total requests of a JobSet's pods (Kueue admits the whole gang) and the pods' node selector."""
    total: dict[str, float] = {}
    selector: dict[str, str] = {}
    for rj in job["spec"]["replicatedJobs"]:
        pods = rj.get("replicas", 1) * rj["template"]["spec"].get("parallelism", 1)
        spec = rj["template"]["spec"]["template"]["spec"]
        selector.update(spec.get("nodeSelector") or {})
        for c in spec["containers"]:
            for res, v in c["resources"]["requests"].items():
                if not res.startswith("hugepages-"):  # excluded from quota (excludeResourcePrefixes)
                    total[res] = total.get(res, 0) + pods * quantity(v)
    return total, selector


def fits(regs, job) -> dict[str, tuple[float, float]]:
    """Resources the job needs beyond what its namespace's queue can ever admit in the flavor its pods select."""
    request, selector = job_request(job)
    namespace = job["metadata"]["namespace"]
    [local] = [
        r.inputs
        for r in regs
        if r.type == KUEUE + "LocalQueue"
        and r.inputs["metadata"]["namespace"] == namespace
        and r.inputs["metadata"]["name"] == job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
    ]
    queues = {name: q["spec"] for name, q in kueue_objects(regs, "ClusterQueue").items()}
    flavors = kueue_objects(regs, "ResourceFlavor")
    [flavor] = [
        name for name, f in flavors.items() if all(selector.get(k) == v for k, v in f["spec"]["nodeLabels"].items())
    ]
    cq = local["spec"]["clusterQueue"]
    short = {}
    for res, want in request.items():
        quota = next(
            r
            for g in queues[cq]["resourceGroups"]
            for fl in g["flavors"]
            if fl["name"] == flavor
            for r in fl["resources"]
            if r["name"] == res
        )
        have = quantity(quota["nominalQuota"])
        if res in ("nvidia.com/gpu", "vpc.amazonaws.com/efa"):
            have = admissible(queues, cq, flavor, res)
        if want > have:
            short[res] = (want, have)
    return short


def edited(registration, change):
    struct = struct_pb2.Struct()
    inputs = copy.deepcopy(registration.inputs)  # a registration's inputs are shared: edit a copy
    change(inputs)
    json_format.ParseDict(inputs, struct)
    from dataclasses import replace

    return replace(registration, properties=struct)


def test_kueue_objects_match_the_published_crds():
    regs = shipped_plan("research-a100").registrations
    for kind in ("ClusterQueue", "LocalQueue", "ResourceFlavor"):
        schema = json.loads((ROOT / f"tests/data/crds/kueue-0.19.2/{kind}.json").read_text())
        for obj in kueue_objects(regs, kind).values():
            validate_crd(obj, schema)


def test_first_training_job_is_admissible_on_research_a100():
    job = yaml.safe_load((ROOT / "examples/first-training-job/jobset.yaml").read_text())
    plan = shipped_plan("research-a100")
    assert fits(plan.registrations, job) == {}
    assert not [f for f in check(plan.registrations) if f.check == "queue-fits-gang"]


def test_the_old_quota_leaves_the_first_job_waiting_and_readiness_says_so(plan_variant):
    """The preset as shipped before: 8 GPUs for the only team, nothing to borrow."""
    job = yaml.safe_load((ROOT / "examples/first-training-job/jobset.yaml").read_text())
    plan = plan_variant(
        "research-a100",
        lambda c: c.setdefault("kubernetes", {}).update(teams={"research": {"gpus": 8, "maxGpusPerPod": 8}}),
    )
    assert fits(plan.registrations, job) == {"nvidia.com/gpu": (16, 8), "vpc.amazonaws.com/efa": (8, 4)}
    [gap] = [f for f in check(plan.registrations) if f.check == "queue-fits-gang"]
    assert gap.level == BLOCKING and gap.resource == "research"
    assert "nvidia.com/gpu 16 (admissible 8)" in gap.message and "teams.research.gpus to at least 16" in gap.fix
    assert plan.exit_code == 1


def test_a_team_may_borrow_within_its_cohort_unless_its_borrowing_limit_forbids(plan_variant):
    plan = plan_variant(
        "research-a100",
        lambda c: c.setdefault("kubernetes", {}).update(teams={"research": {"gpus": 8}, "vision": {"gpus": 8}}),
    )
    assert not [f for f in check(plan.registrations) if f.check == "queue-fits-gang"]

    def no_borrowing(inputs):
        if inputs["metadata"]["name"] == "vision":
            for group in inputs["spec"]["resourceGroups"]:
                for flavor in group["flavors"]:
                    for r in flavor["resources"]:
                        r["borrowingLimit"] = 0

    regs = [edited(r, no_borrowing) if r.type == KUEUE + "ClusterQueue" else r for r in plan.registrations]
    assert [f.resource for f in check(regs) if f.check == "queue-fits-gang"] == ["vision"]
