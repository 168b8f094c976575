"""One registry mirror for every chart and image the platform installs (issue #30: mainland China cannot rely on
Docker Hub, ghcr.io, nvcr.io, registry.k8s.io or *.github.io).

A mirror is `host[:port][/path]`. An image `host/path:tag` is pulled as `<mirror>/path:tag` (Docker Hub's implicit host
and `library/` spelled out); a chart as `oci://<mirror>/<chart>` at its pinned version, which is where
`helm push <chart>-<version>.tgz oci://<mirror>` puts it. The layout is the one Alibaba Container Registry's artifact
subscription and a Harbor proxy project keep (namespace/repository of the source), so copies keep their paths.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import pulumi

from .charts import Chart, charts

HELM = "kubernetes:helm.sh/"  # v3 Release and v4 Chart both take chart, repository_opts, values
CONTAINER_LISTS = ("containers", "initContainers", "init_containers", "ephemeralContainers", "ephemeral_containers")


def split_image(ref: str) -> tuple[str, str]:
    """(registry host, repository path and tag) of an image reference; Docker Hub's implicit host made explicit."""
    first, _, rest = ref.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        return first, rest
    return "docker.io", ref if rest else f"library/{ref}"


def mirrored(ref: str, mirror: str) -> str:
    """The image as pulled through the mirror: its registry host replaced, its path and tag kept."""
    return f"{mirror}/{split_image(ref)[1]}"


def chart_reference(chart: Chart) -> str:
    """How the chart is named to Helm: the full OCI reference, or the chart's name in its repository."""
    return f"{chart.repo}/{chart.chart}" if chart.repo.startswith("oci://") else chart.chart


def mirror_values(chart: Chart, mirror: str) -> dict[str, Any]:
    """The values that point every image of `chart` at the mirror (nested dicts, keys as the chart spells them)."""
    values: dict[str, Any] = {}
    pairs = [(k, mirrored(v, mirror)) for k, v in chart.images.items()] + [(k, mirror) for k in chart.registries]
    for key, value in pairs:
        *parents, leaf = key.split(".")
        node = values
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return values


def merged(base: Any, over: Mapping[str, Any]) -> dict[str, Any]:
    """`over` merged into `base` (dicts recursively; `over` wins)."""
    out = dict(base or {})
    for key, value in over.items():
        out[key] = merged(out.get(key), value) if isinstance(value, Mapping) else value
    return out


def _release_chart(props: Mapping[str, Any]) -> Chart:
    name = props.get("chart")
    for chart in charts().values():
        if chart_reference(chart) == name and chart.chart == name.rsplit("/", 1)[-1]:
            return chart
    raise ValueError(f"Helm release of chart {name!r}: not pinned in components/kubernetes/charts.yaml")


def _mirror_release(props: dict[str, Any], mirror: str) -> dict[str, Any]:
    chart = _release_chart(props)
    over = mirror_values(chart, mirror)
    values = props.get("values")
    new_values = (
        merged(values, over)
        if values is None or isinstance(values, Mapping)
        else pulumi.Output.from_input(values).apply(lambda v: merged(v, over))
    )
    out = {k: v for k, v in props.items() if k != "repository_opts"}
    return {**out, "chart": f"oci://{mirror}/{chart.chart}", "values": new_values}


def _mirror_images(value: Any, mirror: str) -> Any:
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if key in CONTAINER_LISTS and isinstance(item, list):
                item = [
                    {**c, "image": mirrored(c["image"], mirror)}
                    if isinstance(c, Mapping) and isinstance(c.get("image"), str)
                    else c
                    for c in item
                ]
            out[key] = _mirror_images(item, mirror)
        return out
    if isinstance(value, list):
        return [_mirror_images(item, mirror) for item in value]
    return value


def mirror_transformation(
    mirror: str,
) -> Callable[[pulumi.ResourceTransformationArgs], pulumi.ResourceTransformationResult]:
    """A transformation that makes every Helm release and every container below a component pull through `mirror`."""

    def transform(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult:
        if args.type_.startswith(HELM):
            props = _mirror_release(dict(args.props), mirror)
        else:
            props = _mirror_images(dict(args.props), mirror)
        return pulumi.ResourceTransformationResult(props, args.opts)

    return transform
