"""Registries per cloud and region (issue 30 item 1): every chart and image of a plan comes from a registry the
region reaches, a mirror rewrites all of them, and the readiness check warns on a recorded-unreachable one."""

from __future__ import annotations

import pulumi
import pytest

from blueprints.offline.readiness_registry import pulls
from catalog.registries import reach, rows
from components.kubernetes.charts import charts
from components.kubernetes.mirror import HELM, mirror_transformation, mirrored, split_image
from conftest import SHIPPED, one_line, run_cli, shipped_cluster, shipped_plan, write_stack

MAINLAND = ("enterprise-aliyun", "research-a100-aliyun", "startup-serving-aliyun", "startup-t4-aliyun")
MIRROR = "mirror.example.com/gpu-platform"


def region_of(plan) -> tuple[str, str]:
    return plan.resolved.spec.cloud, plan.resolved.spec.region


def registry_findings(plan):
    return [f for f in plan.readiness if f.check == "registry-reach"]


def drop_mirror(cluster):
    cluster["kubernetes"].pop("registry")


def set_mirror(mirror):
    def change(cluster):
        cluster.setdefault("kubernetes", {})["registry"] = {"mirror": mirror}

    return change


def test_the_mainland_stacks_are_the_shipped_alibaba_stacks_in_mainland_regions():
    mainland = {s for s in SHIPPED if shipped_plan(s).resolved.spec.cloud == "alicloud"}
    assert mainland == set(MAINLAND)
    assert all(shipped_plan(s).resolved.spec.region.startswith("cn-") for s in MAINLAND)


@pytest.mark.parametrize("stack", MAINLAND)
def test_every_chart_and_image_of_a_mainland_stack_comes_from_a_registry_its_region_reaches(stack):
    plan = shipped_plan(stack)
    cloud, region = region_of(plan)
    found = pulls(plan.registrations)
    assert {p.kind for p in found} == {"chart", "image"}
    assert len([p for p in found if p.kind == "chart"]) >= 3  # gpu-operator, kueue, kube-prometheus-stack at least
    for p in found:
        row = reach(p.host, cloud, region)
        assert row is not None and row.status == "reachable", (p, row)
    assert registry_findings(plan) == []


@pytest.mark.parametrize("stack", MAINLAND)
def test_the_same_stack_without_its_mirror_gets_the_warning(stack, plan_variant):
    # As the stacks were before issue 30: upstream registries, Docker Hub among them.
    plan = plan_variant(stack, drop_mirror)
    warned = {f.resource.removeprefix(f"{stack}-variant-") for f in registry_findings(plan)}
    assert {"gpu-operator", "queueing-kueue", "monitoring-stack", "acceptance-gpu"} <= warned
    acceptance = next(f for f in registry_findings(plan) if f.resource.endswith("acceptance-gpu"))
    assert "docker.io" in acceptance.message and "unreliable" in acceptance.message


@pytest.mark.parametrize("stack", ["research-a100", "startup-serving-aliyun"])
def test_a_mirror_rewrites_every_chart_and_image_keeping_each_path(stack, plan_variant):
    upstream = plan_variant(stack, lambda c: c.get("kubernetes", {}).pop("registry", None))
    through = plan_variant(stack, set_mirror(MIRROR))
    before, after = pulls(upstream.registrations), pulls(through.registrations)
    assert len(before) == len(after) and len(after) > 20
    assert {p.host for p in after} == {"mirror.example.com"}
    images = sorted((p.owner, p.ref) for p in after if p.kind == "image")
    assert images == sorted((p.owner, mirrored(p.ref, MIRROR)) for p in before if p.kind == "image")
    chart_names = {c.chart for c in charts().values()}
    for p in after:
        if p.kind == "chart":
            assert p.ref.startswith(f"oci://{MIRROR}/") and p.ref.rsplit("/", 1)[1] in chart_names
    for r in through.registrations:
        if r.type.startswith(HELM):
            assert "repositoryOpts" not in r.inputs and r.inputs["version"]


def test_a_mirror_in_another_regions_vpc_is_recorded_unreachable(plan_variant):
    plan = plan_variant("startup-t4-aliyun", set_mirror("example-registry-vpc.cn-beijing.cr.aliyuncs.com/gpu"))
    assert registry_findings(plan) and all("unreachable from cn-hangzhou" in f.message for f in registry_findings(plan))
    # Issue #35 (f): nothing pulls from an unreachable registry, so its workloads never start: blocking.
    assert {f.level for f in registry_findings(plan)} == {"blocking"} and plan.exit_code == 1


def test_an_unreliable_registry_stays_a_warning(plan_variant):
    def no_mirror(cluster):
        cluster["kubernetes"].pop("registry")

    findings = registry_findings(plan_variant("startup-t4-aliyun", no_mirror))
    assert findings and {f.level for f in findings} == {"warning"}


def test_outside_the_mainland_upstream_registries_are_not_judged():
    assert registry_findings(shipped_plan("research-a100")) == []
    assert reach("docker.io", "alicloud", "cn-hongkong") is None
    assert reach("docker.io", "alicloud", "cn-hangzhou").status == "unreliable"


def test_docker_hub_references_name_their_registry():
    assert split_image("pytorch/pytorch:2.9.0") == ("docker.io", "pytorch/pytorch:2.9.0")
    assert split_image("busybox") == ("docker.io", "library/busybox")
    assert split_image("nvcr.io/nvidia/k8s/dcgm-exporter:4") == ("nvcr.io", "nvidia/k8s/dcgm-exporter:4")
    assert mirrored("localhost:5000/a/b@sha256:00", "m.example.com") == "m.example.com/a/b@sha256:00"


# Charts that install CRD templates only and pull no image (read at their pinned tags).
CRD_ONLY_CHARTS = {"ai-gateway-crds-helm"}


def test_every_pinned_chart_names_the_images_it_pulls():
    # A chart added without them would be installed from its upstream registry even with a mirror set.
    for key, chart in charts().items():
        refs = list(chart.images.values()) + [ref for refs in chart.registries.values() for ref in refs]
        assert refs or key in CRD_ONLY_CHARTS, key
        assert all(split_image(ref)[0] != "docker.io" or ref.startswith("docker.io/") for ref in refs), key


def test_every_catalog_row_has_a_source_and_a_known_status():
    for row in rows():
        assert row.source.startswith("http") and "read 2026" in row.source
        assert row.status in ("reachable", "unreliable", "unreachable")


@pytest.mark.parametrize(
    "mirror",
    ["https://mirror.example.com/gpu", "mirror.example.com/gpu/", "Mirror.Example.com", "mirror.example.com/a:v1"],
)
def test_a_malformed_mirror_is_one_line_and_exit_2(tmp_path, mirror):
    cluster = shipped_cluster("startup-t4-aliyun")
    cluster["kubernetes"]["registry"]["mirror"] = mirror
    write_stack(tmp_path, "bad-mirror", cluster)
    line = one_line(run_cli("plan", "--stack", "bad-mirror", "--stacks-dir", str(tmp_path)))
    assert "kubernetes.registry.mirror" in line and "not a registry mirror" in line


def test_a_mirror_refuses_a_chart_it_cannot_rewrite():
    # A release of a chart with no pin (and so no list of its images) would pull its images upstream.
    transform = mirror_transformation(MIRROR)
    props = {"chart": "somechart", "repository_opts": {"repo": "https://charts.example.com"}, "values": {}}
    with pytest.raises(ValueError, match="not pinned in components/kubernetes/charts.yaml"):
        transform(pulumi.ResourceTransformationArgs(None, "kubernetes:helm.sh/v3:Release", "x", props, None))
    kueue = {"chart": "oci://registry.k8s.io/kueue/charts/kueue", "version": "0.19.2", "values": {"a": 1}}
    out = transform(pulumi.ResourceTransformationArgs(None, "kubernetes:helm.sh/v3:Release", "k", kueue, None)).props
    assert out["chart"] == f"oci://{MIRROR}/kueue" and out["values"]["a"] == 1
    assert out["values"]["controllerManager"]["manager"]["image"]["repository"] == f"{MIRROR}/kueue/kueue"
