"""Readiness: can the cluster's nodes pull what the platform installs? Every Helm chart (its repository or OCI
registry), every image its values leave at the chart's default or point elsewhere, and every container image in
the manifests, judged against catalog/registries.yaml for the stack's region (issue #30: from mainland China,
Docker Hub, ghcr.io, nvcr.io, registry.k8s.io and *.github.io can fail, and `pulumi up` then waits on Helm).

With a registry mirror (issue #35, class check c), every image a pod will run must come through it, blocking: the
images above, and those controllers start at run time from their own defaults (catalog/runtime_images.yaml: Envoy
proxies, the AI Gateway's extproc, GPU Operator operands, prometheus-operator's pods), each resolved from the
release values (and custom resources) the plan renders as the chart and controller at the pinned version would."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence
from urllib.parse import urlparse

from catalog.registries import reach
from catalog.runtime_images import RuntimeImage, images_of
from components.kubernetes.charts import Chart, charts
from components.kubernetes.mirror import HELM, chart_reference, split_image

from .engine import Registration
from .readiness import BLOCKING, WARNING, Finding

CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
MIRROR_FIX = (
    "make the release (or resource) set the image through the mirror: the values key, or resource field, that "
    "catalog/runtime_images.yaml names for it (README: Registries and mirrors)"
)
FIX = (
    "set kubernetes.registry.mirror to a registry the region reaches (a Container Registry Enterprise Edition "
    "instance's VPC address and namespace) holding copies of these charts and images (README: Registries and mirrors)"
)


@dataclass(frozen=True)
class Pull:
    """One chart or image a registration makes the cluster fetch."""

    owner: str  # the registration's name
    kind: str  # chart or image
    ref: str
    host: str


def _region(regs: Sequence[Registration]) -> Optional[tuple[str, str]]:
    for r in regs:
        if r.type.startswith("pulumi:providers:") and r.inputs.get("region"):
            return r.type.rsplit(":", 1)[1], r.inputs["region"]
    return None


def _value(values: Mapping[str, Any], key: str) -> Any:
    node: Any = values
    for part in key.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    return node


def _pin(inputs: Mapping[str, Any]) -> Optional[Chart]:
    name = str(inputs.get("chart") or "").rsplit("/", 1)[-1]
    return next((c for c in charts().values() if c.chart == name), None)


def chart_images(chart: Chart, values: Mapping[str, Any]) -> list[str]:
    """The images a release of `chart` pulls: each image key's value, else the chart's default; each registry key's
    value in front of its images' paths, else the images as the chart names them."""
    refs = []
    for key, default in chart.images.items():
        value = _value(values, key)
        refs.append(value if isinstance(value, str) and value else default)
    for key, images in chart.registries.items():
        value = _value(values, key)
        refs += [f"{value}/{ref.split('/', 1)[1]}" if isinstance(value, str) and value else ref for ref in images]
    return refs


def _containers(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in CONTAINER_LISTS and isinstance(item, list):
                yield from (c["image"] for c in item if isinstance(c, Mapping) and isinstance(c.get("image"), str))
            yield from _containers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _containers(item)


def pulls(regs: Iterable[Registration]) -> list[Pull]:
    """Every chart and image the plan's registrations make the cluster fetch."""
    out: list[Pull] = []
    for r in regs:
        if r.type.startswith(HELM):
            inputs = r.inputs
            chart_ref = str(inputs.get("chart") or "")
            repo = (inputs.get("repositoryOpts") or {}).get("repo") or ""
            host = urlparse(chart_ref).hostname if chart_ref.startswith("oci://") else urlparse(repo).hostname
            out.append(Pull(r.name, "chart", chart_ref if chart_ref.startswith("oci://") else repo, host or ""))
            pin = _pin(inputs)
            images = chart_images(pin, inputs.get("values") or {}) if pin else []
        elif r.type.startswith("kubernetes:"):
            images = list(_containers(r.inputs))
        else:
            continue
        out += [Pull(r.name, "image", ref, split_image(ref)[0]) for ref in images]
    return out


def check(regs: Iterable[Registration]) -> list[Finding]:
    regs = list(regs)
    return _reach(regs) + mirror_check(regs)


def _reach(regs: Sequence[Registration]) -> list[Finding]:
    where = _region(regs)
    if where is None:
        return []
    cloud, region = where
    bad: dict[str, dict[str, Any]] = {}
    for p in pulls(regs):
        row = reach(p.host, cloud, region)
        if row is not None and row.status != "reachable":
            bad.setdefault(p.owner, {})[p.host] = row
    return [_finding(owner, hosts, region) for owner, hosts in bad.items()]


def _finding(owner: str, hosts: Mapping[str, Any], region: str) -> Finding:
    statuses = "/".join(sorted({row.status for row in hosts.values()}))
    uncertain = sorted(h for h, row in hosts.items() if row.certainty == "uncertain")
    note = f" (no source names {', '.join(uncertain)} itself: uncertain)" if uncertain else ""
    # A registry recorded unreachable from the region is never pulled from: the workload cannot start (blocking);
    # an unreliable one may stall the install (a warning).
    return Finding(
        "registry-reach",
        BLOCKING if any(row.status == "unreachable" for row in hosts.values()) else WARNING,
        owner,
        f"pulls from {', '.join(sorted(hosts))}, which catalog/registries.yaml records as {statuses} from {region}"
        f"{note}: the install can stall on the pull",
        FIX,
    )


# ------------------------------------------------------------------------------------------ through the mirror
def plan_mirror(regs: Iterable[Registration]) -> Optional[str]:
    """The registry mirror the plan pulls through, as its Helm releases show it: a pinned chart installed from
    `oci://<mirror>/<chart>` instead of its own repository (components/kubernetes/mirror.py); None without one."""
    for r in regs:
        pin = _pin(r.inputs) if r.type.startswith(HELM) else None
        ref = str(r.inputs.get("chart") or "") if pin else ""
        if pin and ref.startswith("oci://") and ref != chart_reference(pin) and ref.endswith(f"/{pin.chart}"):
            return ref[len("oci://") : -len(pin.chart) - 1]
    return None


def through(ref: str, mirror: str) -> bool:
    return ref == mirror or ref.startswith(f"{mirror}/")


def release_image(row: RuntimeImage, values: Mapping[str, Any]) -> str:
    """What the controller of `row` runs (or the repository/registry it pulls it from) given the release's values,
    as the chart at the pinned version renders it."""
    given = next((v for k in row.values if isinstance(v := _value(values, k), str) and v), None)
    value = given or row.unset
    if not value:
        return row.default
    if row.form == "image" and row.registry:
        registry = _value(values, row.registry)
        if isinstance(registry, str) and registry:
            return f"{registry}/{value.split('/', 1)[1]}"
    if row.form == "registry":
        return f"{value}/{split_image(row.default)[1]}"
    return value


def resource_image(row: RuntimeImage, spec_owner: Mapping[str, Any], inherited: str) -> str:
    """What a resource of `row.resource.kind` makes the controller run: its own field, else the release's image
    when it merges with the controller's defaults, else the controller's built-in default (it replaces them)."""
    res = row.resource
    assert res is not None
    own = next((v for f in res.fields if isinstance(v := _value(spec_owner, f), str) and v), None)
    if own:
        return own
    return inherited if _value(spec_owner, res.inherits) else row.default


def mirror_check(regs: Sequence[Registration]) -> list[Finding]:
    """Blocking, per release or resource: an image a pod will run that does not come through the plan's mirror."""
    mirror = plan_mirror(regs)
    if mirror is None:
        return []
    bad: dict[str, dict[str, str]] = {}
    for p in pulls(regs):
        if p.kind == "image" and not through(p.ref, mirror):
            bad.setdefault(p.owner, {})[p.ref] = "image"
    by_kind: dict[str, list[Registration]] = {}
    for r in regs:
        by_kind.setdefault(r.type, []).append(r)
    for r in regs:
        pin = _pin(r.inputs) if r.type.startswith(HELM) else None
        if pin is None:
            continue
        values = r.inputs.get("values") if isinstance(r.inputs.get("values"), Mapping) else {}
        for row in images_of(pin.chart):
            image = release_image(row, values)
            if not through(image, mirror):
                bad.setdefault(r.name, {})[image] = f"{row.image} ({row.controller} {row.version})"
            for res in by_kind.get(row.resource.kind, []) if row.resource else []:
                own = resource_image(row, res.inputs, image)
                if not through(own, mirror):
                    bad.setdefault(res.name, {})[own] = f"{row.image} ({row.controller} {row.version})"
    return [
        Finding(
            "image-mirror",
            BLOCKING,
            owner,
            f"runs {'; '.join(f'{what}: {ref}' for ref, what in sorted(images.items()))}, not through the mirror "
            f"{mirror}: the pull goes to the upstream registry and can stall",
            MIRROR_FIX,
        )
        for owner, images in sorted(bad.items())
    ]
