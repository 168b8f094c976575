"""The custom metrics API (custom.metrics.k8s.io) for the HorizontalPodAutoscaler: the Prometheus Adapter, reading the
monitoring stack's Prometheus, serves each GPU pod's DCGM gauges and each model server's vLLM gauges as pod metrics.

KEDA registers only external.metrics.k8s.io (kedacore/charts v2.20.2 keda/templates/metrics-server/apiservice.yaml), so
without this a HorizontalPodAutoscaler can scale GPU pods on external metrics but not on custom (Pods/Object) ones.
The rules follow the adapter's configuration format (kubernetes-sigs/prometheus-adapter v0.12.0
docs/config.md: seriesQuery, resources.overrides, name.matches/as, metricsQuery). Series must carry the pod's
`namespace` and `pod` labels: the GPU Operator's exporter is scraped with honorLabels, so its `namespace` and `pod` are
those of the pod holding the GPU (platform.operator_values); vLLM's gauges are scraped from the pod itself
(serving.py's PodMonitor), so Prometheus labels them with that pod.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import urlsplit

from .inference_gateway import VLLM_KV_CACHE_GAUGE
from .serving import PROMETHEUS

RELEASE = "prometheus-adapter"
# GPU gauges of the DCGM exporter's default counters (NVIDIA/dcgm-exporter etc/default-counters.csv): utilization (%)
# and framebuffer memory used (MiB), per GPU, labelled with the pod the GPU is allocated to.
DCGM_METRICS = ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED")
# vLLM 0.12's per-replica gauges the serving scalers read (serving.QUERIES); served as vllm_<name> since a custom
# metric's name is a path segment of the API (no colon).
VLLM_METRICS = ("vllm:num_requests_waiting", VLLM_KV_CACHE_GAUGE)
POD_RESOURCES = {"overrides": {"namespace": {"resource": "namespace"}, "pod": {"resource": "pod"}}}


def rules() -> list[dict[str, Any]]:
    """One rule for the DCGM gauges (averaged over a pod's GPUs), one for vLLM's (summed over a pod's engines)."""
    dcgm = "|".join(DCGM_METRICS)
    vllm = "|".join(n.removeprefix("vllm:") for n in VLLM_METRICS)
    return [
        {
            "seriesQuery": f'{{__name__=~"^({dcgm})$",namespace!="",pod!=""}}',
            "resources": POD_RESOURCES,
            "name": {"matches": "^(.*)$", "as": "${1}"},
            "metricsQuery": "avg(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)",
        },
        {
            "seriesQuery": f'{{__name__=~"^vllm:({vllm})$",namespace!="",pod!=""}}',
            "resources": POD_RESOURCES,
            "name": {"matches": "^vllm:(.*)$", "as": "vllm_${1}"},
            "metricsQuery": "sum(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)",
        },
    ]


def served_metric_names() -> list[str]:
    """The pod metric names the API serves, as an HPA's `pods.metric.name` names them."""
    return [*DCGM_METRICS, *(f"vllm_{n.removeprefix('vllm:')}" for n in VLLM_METRICS)]


def adapter_values(system_node_selector: Mapping[str, str]) -> dict[str, Any]:
    """The chart's values: the monitoring stack's Prometheus, only our rules (the chart's default rules map every
    cAdvisor series), on the system nodes."""
    url = urlsplit(PROMETHEUS)
    return {
        "prometheus": {"url": f"{url.scheme}://{url.hostname}", "port": url.port},
        "rules": {"default": False, "custom": rules()},
        "nodeSelector": dict(system_node_selector),
    }
