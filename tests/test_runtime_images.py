"""Every image a pod will run goes through the registry mirror (issue #35 item 3 and class check c), including the
images controllers start at run time from their own defaults (catalog/runtime_images.yaml): a blocking readiness
finding, `image-mirror`, for any that does not. Envoy Gateway v1.9.0 applies global.imageRegistry to its proxies
only when global.images.envoyProxy.image is set, and a Gateway's EnvoyProxy without mergeType replaces that
default: as the plan rendered both before the fix, every mirrored (Alibaba) stack got the blocking finding."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from google.protobuf import struct_pb2

from blueprints.offline.plan import make_plan
from blueprints.offline.readiness_registry import mirror_check, plan_mirror, release_image, resource_image
from blueprints.stackconfig import ROOT
from catalog.runtime_images import images_of, runtime_images
from components.kubernetes.charts import charts
from components.kubernetes.inference_gateway import ENVOY_PROXY_IMAGE
from conftest import SHIPPED, shipped_plan

MIRRORED = ("enterprise-aliyun", "research-a100-aliyun", "startup-serving-aliyun", "startup-t4-aliyun")
TEST_STACKS = ROOT / "tests" / "data" / "stacks"
ENVOY_PROXY = "kubernetes:gateway.envoyproxy.io/v1alpha1:EnvoyProxy"
MIRROR = "mirror.example.com/gpu-platform"


def row(controller: str, image: str):
    [found] = [r for r in images_of(controller) if r.image == image or r.image.startswith(f"{image} (")]
    return found


def rewritten(stack: str, change) -> list:
    """The shipped plan's registrations with ``change(type, inputs)`` applied to a copy of each one's inputs."""
    out = []
    for r in shipped_plan(stack).registrations:
        inputs = copy.deepcopy(r.inputs)
        change(r.type, inputs)
        props = struct_pb2.Struct()
        props.update(inputs)
        out.append(dataclasses.replace(r, properties=props))
    return out


def as_before_the_fix(type_: str, inputs: dict) -> None:
    """What the plan rendered before the fix: no proxy image in gateway-helm's values, no mergeType."""
    if type_.startswith("kubernetes:helm.sh/") and inputs.get("name") == "gateway-helm":
        inputs["values"]["global"].pop("images")
    if type_ == ENVOY_PROXY:
        inputs["spec"].pop("mergeType")


def mirror_findings(findings) -> list:
    return [f for f in findings if f.check == "image-mirror"]


# ------------------------------------------------------------------------------------------ the catalog
def test_every_row_was_read_at_the_pinned_chart_version():
    pins = charts()
    for r in runtime_images():
        assert r.controller in pins, r
        assert r.version == pins[r.controller].version, (r.controller, r.image)
        assert r.form in ("image", "repository", "registry") and r.source and r.values
        assert r.registry is None or r.form == "image"


def test_the_proxy_image_the_values_pin_is_the_controllers_own_default():
    assert ENVOY_PROXY_IMAGE == row("gateway-helm", "envoy-proxy").default


# ------------------------------------------------------------------------------------------ how an image resolves
def test_the_chart_puts_its_registry_value_in_front_of_an_image_only_when_the_image_is_named():
    proxy = row("gateway-helm", "envoy-proxy")
    named = {"global": {"imageRegistry": MIRROR, "images": {"envoyProxy": {"image": ENVOY_PROXY_IMAGE}}}}
    assert release_image(proxy, named) == f"{MIRROR}/envoyproxy/envoy:distroless-v1.39.0"
    assert (
        release_image(proxy, {"global": {"imageRegistry": MIRROR}}) == "docker.io/envoyproxy/envoy:distroless-v1.39.0"
    )
    ratelimit = row("gateway-helm", "ratelimit")  # the chart names it itself
    assert release_image(ratelimit, {"global": {"imageRegistry": MIRROR}}) == f"{MIRROR}/envoyproxy/ratelimit:17b1956c"


def test_a_repository_or_registry_value_is_where_the_image_is_pulled_from():
    assert release_image(row("gpu-operator", "driver"), {}) == "nvcr.io/nvidia"
    assert release_image(row("gpu-operator", "driver"), {"driver": {"repository": MIRROR}}) == MIRROR
    reloader = row("kube-prometheus-stack", "prometheus-config-reloader")
    assert release_image(reloader, {}) == "quay.io/prometheus-operator/prometheus-config-reloader:v0.93.0"
    assert release_image(reloader, {"global": {"imageRegistry": MIRROR}}).startswith(f"{MIRROR}/prometheus-operator/")


def test_an_envoyproxy_without_merge_type_replaces_the_default_and_runs_the_built_in_image():
    proxy = row("gateway-helm", "envoy-proxy")
    inherited = f"{MIRROR}/envoyproxy/envoy:distroless-v1.39.0"
    assert resource_image(proxy, {"spec": {}}, inherited) == proxy.default
    assert resource_image(proxy, {"spec": {"mergeType": "StrategicMerge"}}, inherited) == inherited
    own = {"spec": {"provider": {"kubernetes": {"envoyDeployment": {"container": {"image": "x.io/envoy:1"}}}}}}
    assert resource_image(proxy, own, inherited) == "x.io/envoy:1"


# ------------------------------------------------------------------------------------------ over the stacks
@pytest.mark.parametrize("stack", MIRRORED)
def test_as_the_plan_rendered_before_the_fix_every_mirrored_stack_has_the_blocking_proxy_finding(stack):
    found = mirror_findings(mirror_check(rewritten(stack, as_before_the_fix)))
    assert found and all(f.level == "blocking" for f in found)
    assert any(f.resource.endswith("-gateway-helm") and "envoy-proxy" in f.message for f in found)
    assert all("docker.io/envoyproxy/envoy:distroless-v1.39.0" in f.message for f in found)
    if stack == "startup-serving-aliyun":  # its serving Gateway's EnvoyProxy replaced the default too
        assert any(f.resource.endswith("-envoyproxy") for f in found)


@pytest.mark.parametrize("stack", SHIPPED)
def test_no_shipped_stack_runs_an_image_outside_its_mirror(stack):
    plan = shipped_plan(stack)
    assert mirror_findings(plan.readiness) == []
    assert (plan_mirror(plan.registrations) is not None) == (stack in MIRRORED)


@pytest.mark.parametrize("stack", sorted(p.stem.removeprefix("Pulumi.") for p in TEST_STACKS.glob("Pulumi.*.yaml")))
def test_no_test_stack_runs_an_image_outside_its_mirror(stack):
    assert mirror_findings(make_plan(stack, TEST_STACKS).readiness) == []


def _drop(values: dict, key: str) -> None:
    *parents, leaf = key.split(".")
    for part in parents:
        values = values.get(part) or {}
    values.pop(leaf, None)


@pytest.mark.parametrize(
    "controller, image",
    [(r.controller, r.image) for r in runtime_images()],
)
def test_each_runtime_image_left_to_its_upstream_default_is_blocking(controller, image):
    """The check covers every catalog row: drop the values that send one image through the mirror (the keys the row
    names, and the registry key in front of them) and the stack gets a blocking finding naming that image."""
    r = row(controller, image)

    def change(type_: str, inputs: dict) -> None:
        if type_.startswith("kubernetes:helm.sh/") and inputs.get("name") == controller:
            for key in (*r.values, *([r.registry] if r.registry else [])):
                _drop(inputs["values"], key)

    found = mirror_findings(mirror_check(rewritten("startup-serving-aliyun", change)))
    assert any(f"{r.image} ({controller} {r.version})" in f.message and f.level == "blocking" for f in found), found
