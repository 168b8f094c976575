"""GPU observability: kube-prometheus-stack (upstream chart, pinned) on the system nodes, collecting the DCGM
exporter's metrics; a Grafana dashboard for GPU utilization, memory, power, temperature, XID and ECC errors and
NVLink/PCIe traffic; alert rules for XID errors, ECC faults, thermal throttling, nodes failing acceptance and
GPUs held by pods but idle (the seeds ask to give idle GPUs back).

Metric names are those of the DCGM exporter shipped with GPU Operator v26.7.0 (dcgm-exporter 4.6.0-4.8.3; every
name used here is in the etc/*.csv of dcgm-exporter 4.5.3-4.8.2, the newest tag read, as it was in 4.4.2-4.7.0).
ECC volatile double-bit errors and clock-event reasons are not in its default counters, so DCGM_COUNTERS adds
them. The rules are checked with promtool (`check rules`, and `test rules` on sample series) in the tests.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional

import pulumi
import pulumi_kubernetes as k8s
import yaml

from ..base import Args, Component, KUBERNETES, as_args
from .charts import chart_release

NAMESPACE = "monitoring"
RULES_FILE = Path(__file__).with_name("gpu_alerts.yaml")
DASHBOARD_FILE = Path(__file__).with_name("gpu_dashboard.json")
# The exporter's default counters plus ECC double-bit errors and clock-event (throttle) reasons.
# Format and field names: NVIDIA/dcgm-exporter etc/default-counters.csv (4.4.2-4.7.0).
DCGM_COUNTERS = """\
DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).
DCGM_FI_DEV_MEM_CLOCK, gauge, Memory clock frequency (in MHz).
DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
DCGM_FI_DEV_MEMORY_TEMP, gauge, Memory temperature (in C).
DCGM_FI_DEV_POWER_USAGE, gauge, Power draw (in W).
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, counter, Total energy consumption since boot (in mJ).
DCGM_FI_DEV_PCIE_REPLAY_COUNTER, counter, Total number of PCIe retries.
DCGM_FI_DEV_GPU_UTIL, gauge, GPU utilization (in %).
DCGM_FI_DEV_MEM_COPY_UTIL, gauge, Memory utilization (in %).
DCGM_FI_DEV_XID_ERRORS, gauge, Value of the last XID error encountered.
DCGM_FI_DEV_FB_FREE, gauge, Framebuffer memory free (in MiB).
DCGM_FI_DEV_FB_USED, gauge, Framebuffer memory used (in MiB).
DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL, counter, Total number of NVLink bandwidth counters for all lanes.
DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS, counter, Number of remapped rows for uncorrectable errors.
DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS, counter, Number of remapped rows for correctable errors.
DCGM_FI_DEV_ROW_REMAP_FAILURE, gauge, Whether remapping of rows has failed.
DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, counter, Total number of double-bit volatile ECC errors.
DCGM_FI_DEV_CLOCKS_EVENT_REASONS, gauge, Current clock event (throttle) reasons as a bitmask.
DCGM_FI_PROF_GR_ENGINE_ACTIVE, gauge, Ratio of time the graphics engine is active.
DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, gauge, Ratio of cycles the tensor (HMMA) pipe is active.
DCGM_FI_PROF_DRAM_ACTIVE, gauge, Ratio of cycles the device memory interface is active sending or receiving data.
DCGM_FI_PROF_PCIE_TX_BYTES, gauge, The rate of data transmitted over the PCIe bus - including both protocol headers and data payloads - in bytes per second.
DCGM_FI_PROF_PCIE_RX_BYTES, gauge, The rate of data received over the PCIe bus - including both protocol headers and data payloads - in bytes per second.
DCGM_FI_DRIVER_VERSION, label, Driver Version.
"""


@dataclass(frozen=True)
class MonitoringArgs(Args):
    """GPU monitoring (kube-prometheus-stack)."""

    system_node_selector: Mapping[str, str]
    """Where Prometheus, Grafana and the operator run."""
    idle_gpu_minutes: Optional[int] = 60
    """Alert when an allocated GPU idles this long; an hour by default."""
    retention_days: Optional[int] = 15
    """Prometheus's retention; 15 days by default."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """On every object."""


def alert_rules(idle_gpu_minutes: int) -> dict:
    """The rule groups (gpu_alerts.yaml) with the idle window filled in."""
    text = RULES_FILE.read_text(encoding="utf-8").replace("IDLE_MINUTES", str(idle_gpu_minutes))
    return yaml.safe_load(text)


def stack_values(args: MonitoringArgs) -> dict:
    system = dict(args.system_node_selector)
    return {
        # Pick up ServiceMonitors, PodMonitors and rules of every release (the GPU Operator's exporter), not
        # only this chart's own.
        "prometheus": {"prometheusSpec": {
            "serviceMonitorSelectorNilUsesHelmValues": False, "podMonitorSelectorNilUsesHelmValues": False,
            "ruleSelectorNilUsesHelmValues": False, "retention": f"{args.retention_days}d", "nodeSelector": system}},
        "alertmanager": {"alertmanagerSpec": {"nodeSelector": system}},
        "prometheusOperator": {"nodeSelector": system, "admissionWebhooks": {"patch": {"nodeSelector": system}}},
        "grafana": {"nodeSelector": system,
                    "sidecar": {"dashboards": {"enabled": True, "label": "grafana_dashboard", "labelValue": "1"}}},
        # Node labels the acceptance alert reads (kube_node_labels).
        "kube-state-metrics": {"nodeSelector": system, "metricLabelsAllowlist": [
            "nodes=[gpu-blueprints/acceptance,gpu-blueprints/node-group]"]},
        # Managed control planes expose none of these to scrape.
        "kubeControllerManager": {"enabled": False}, "kubeScheduler": {"enabled": False},
        "kubeEtcd": {"enabled": False}, "kubeProxy": {"enabled": False},
    }


class GpuMonitoring(Component):
    """kube-prometheus-stack on the system group, GPU alert rules and a GPU dashboard."""

    PACKAGE = KUBERNETES
    LEGACY_TYPE = "gpu-blueprints:kubernetes:GpuMonitoring"
    namespace: pulumi.Output[str]
    """Where Prometheus and Grafana run."""

    def __init__(self, name: str, args: MonitoringArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(MonitoringArgs, args)
        labels = dict(args.labels)
        # node-exporter needs host namespaces: the namespace runs privileged pods.
        namespace = k8s.core.v1.Namespace(f"{name}-namespace", metadata={"name": NAMESPACE, "labels": {
            **labels, "pod-security.kubernetes.io/enforce": "privileged"}}, opts=pulumi.ResourceOptions(parent=self))
        self.release = chart_release(self, f"{name}-stack", "kube-prometheus-stack", NAMESPACE, stack_values(args),
                                     depends_on=[namespace])
        after = pulumi.ResourceOptions(parent=self, depends_on=[self.release])
        k8s.apiextensions.CustomResource(
            f"{name}-gpu-alerts", api_version="monitoring.coreos.com/v1", kind="PrometheusRule",
            metadata={"name": "gpu-alerts", "namespace": NAMESPACE, "labels": dict(labels)},
            spec=alert_rules(args.idle_gpu_minutes), opts=after)
        k8s.core.v1.ConfigMap(f"{name}-gpu-dashboard", metadata={
            "name": "gpu-dashboard", "namespace": NAMESPACE, "labels": {**labels, "grafana_dashboard": "1"}},
            data={"gpu.json": json.dumps(json.loads(DASHBOARD_FILE.read_text(encoding="utf-8")), indent=1)},
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace]))
        self.namespace = pulumi.Output.from_input(NAMESPACE)
        self.register_outputs({"namespace": self.namespace})
