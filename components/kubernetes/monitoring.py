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
from typing import Any, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import pulumi_random as random
import yaml

from ..base import KUBERNETES, Args, Component, as_args
from .charts import SAFE_LOADER, chart_release

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
"""  # noqa: E501 (the exporter's counter file, shipped as written)


@dataclass(frozen=True)
class AlertReceiver(Args):
    """One Alertmanager receiver; URLs carry tokens, so pass them as Pulumi secrets."""

    name: str
    """The receiver's name in Alertmanager."""
    emails: Optional[Sequence[str]] = ()
    """E-mail addresses (needs MonitoringArgs.smtp); none by default."""
    slack_url: Optional[pulumi.Input[str]] = None
    """A Slack incoming-webhook URL (secret); None: no Slack."""
    slack_channel: Optional[str] = None
    """The Slack channel; None: the hook's own."""
    webhook_url: Optional[pulumi.Input[str]] = None
    """A URL Alertmanager POSTs its webhook payload to (secret); None: none."""
    sns: Optional[bool] = False
    """Publish to the Amazon SNS topic of MonitoringArgs.sns; off by default."""


@dataclass(frozen=True)
class SnsTarget(Args):
    """The Amazon SNS topic SNS receivers publish to, and how Alertmanager may: its ServiceAccount is bound to a
    role allowed to publish (IRSA on EKS), so no AWS key is kept in the cluster."""

    topic_arn: pulumi.Input[str]
    """The topic's ARN."""
    region: str
    """The topic's region: Alertmanager signs its requests for it (SigV4)."""
    service_account_annotations: Optional[Mapping[str, pulumi.Input[str]]] = field(default_factory=dict)
    """Annotations binding Alertmanager's ServiceAccount to the publishing role; none by default."""


@dataclass(frozen=True)
class SmtpSettings(Args):
    """The SMTP relay e-mail receivers send through."""

    smarthost: str
    """host:port."""
    sender: str
    """The From address."""
    username: Optional[str] = None
    """SMTP user; None: no authentication."""
    password: Optional[pulumi.Input[str]] = None
    """SMTP password (secret); None: none."""
    require_tls: Optional[bool] = True
    """Refuse to send without STARTTLS; on by default. On port 465 Alertmanager 0.34 dials TLS at once and skips
    STARTTLS (prometheus/alertmanager v0.34.0 notify/email/email.go, useImplicitTLS)."""
    password_secret: Optional[str] = None
    """A Kubernetes Secret in the monitoring namespace whose key `password` is the SMTP password, mounted into
    Alertmanager and read when it sends (instead of `password`); None: none."""


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
    receivers: Optional[Sequence[AlertReceiver]] = ()
    """Where every alert goes; none leaves the chart's default (a receiver that drops them)."""
    smtp: Optional[SmtpSettings] = None
    """The mail relay; needed by e-mail receivers."""
    repeat_interval_hours: Optional[int] = 4
    """Hours before a firing alert is sent again; 4 by default."""
    sns: Optional[SnsTarget] = None
    """The SNS topic receivers with `sns` publish to (set by the cluster, which creates it); None: none."""


# prometheus-operator mounts each Secret of alertmanagerSpec.secrets at /etc/alertmanager/secrets/<name>
# (prometheus-operator v0.93.0 pkg/alertmanager/statefulset.go, secretsDir; kube-prometheus-stack 88.5.3 passes
# alertmanager.alertmanagerSpec.secrets through, templates/alertmanager/alertmanager.yaml), and Alertmanager reads
# smtp_auth_password_file when it sends (v0.25.0+, notify/email/email.go), so the file need not exist at load.
ALERTMANAGER_SECRETS_DIR = "/etc/alertmanager/secrets"
SMTP_PASSWORD_KEY = "password"
# Alertmanager's ServiceAccount, named so a cloud role's trust policy can name it (the chart's default name
# follows the release: kube-prometheus-stack templates/_helpers.tpl, alertmanager.serviceAccountName).
ALERTMANAGER_SERVICE_ACCOUNT = "alertmanager"
# SNS wants a subject "less than 100 characters long" with no line breaks (Publish, Subject:
# https://docs.aws.amazon.com/sns/latest/api/API_Publish.html), and Alertmanager's default subject lists every common
# label, which can be too long for SNS (Amazon Managed Service for Prometheus guide,
# https://docs.aws.amazon.com/prometheus/latest/userguide/AMP-alertmanager-receiver-config.html): keep it short.
SNS_SUBJECT = "{{ .CommonLabels.alertname }} ({{ .Status }})"


def sns_config(target: SnsTarget) -> dict[str, Any]:
    """One sns_config: the topic, signed for its region with the credentials of the pod's role.
    https://prometheus.io/docs/alerting/latest/configuration/#sns_config (Alertmanager 0.23+)."""
    return {
        "topic_arn": target.topic_arn,
        "sigv4": {"region": target.region},
        "subject": SNS_SUBJECT,
        "send_resolved": True,
    }


def alertmanager_config(
    receivers: Sequence[AlertReceiver],
    smtp: Optional[SmtpSettings],
    repeat_interval_hours: int = 4,
    sns: Optional[SnsTarget] = None,
) -> dict[str, Any]:
    """Alertmanager's configuration: every alert to each receiver, the chart's always-firing Watchdog to none.

    Helm merges it into kube-prometheus-stack's default (its inhibit rules and templates stay); the route and the
    receivers are given whole, so it is also a complete configuration `amtool check-config` accepts.
    Format: https://prometheus.io/docs/alerting/latest/configuration/ (Alertmanager 0.25+)."""
    glob: dict[str, Any] = {"resolve_timeout": "5m"}
    if smtp is not None:
        glob.update(
            {"smtp_smarthost": smtp.smarthost, "smtp_from": smtp.sender, "smtp_require_tls": bool(smtp.require_tls)}
        )
        if smtp.username:
            glob["smtp_auth_username"] = smtp.username
        if smtp.password is not None:
            glob["smtp_auth_password"] = smtp.password
        if smtp.password_secret:
            glob["smtp_auth_password_file"] = f"{ALERTMANAGER_SECRETS_DIR}/{smtp.password_secret}/{SMTP_PASSWORD_KEY}"
    out = [{"name": "null"}]
    for r in receivers:
        entry: dict[str, Any] = {"name": r.name}
        if r.emails:
            entry["email_configs"] = [{"to": ", ".join(r.emails), "send_resolved": True}]
        if r.slack_url is not None:
            slack: dict[str, Any] = {
                "api_url": r.slack_url,
                "send_resolved": True,
                "title": "{{ .CommonLabels.alertname }} ({{ .Status }})",
                "text": "{{ range .Alerts }}{{ .Annotations.summary }}\n{{ end }}",
            }
            if r.slack_channel:
                slack["channel"] = r.slack_channel
            entry["slack_configs"] = [slack]
        if r.webhook_url is not None:
            entry["webhook_configs"] = [{"url": r.webhook_url, "send_resolved": True}]
        if r.sns:
            if sns is None:
                raise ValueError(f"alert receiver {r.name!r} publishes to SNS, but MonitoringArgs.sns names no topic")
            entry["sns_configs"] = [sns_config(sns)]
        out.append(entry)
    routes: list[dict[str, Any]] = [{"receiver": "null", "matchers": ['alertname = "Watchdog"']}]
    routes += [{"receiver": r.name, "continue": True} for r in receivers]
    return {
        "global": glob,
        "route": {
            "receiver": "null",
            "group_by": ["alertname", "Hostname", "namespace"],
            "group_wait": "30s",
            "group_interval": "5m",
            "repeat_interval": f"{repeat_interval_hours}h",
            "routes": routes,
        },
        "receivers": out,
    }


def alert_rules(idle_gpu_minutes: int) -> dict:
    """The rule groups (gpu_alerts.yaml) with the idle window filled in."""
    text = RULES_FILE.read_text(encoding="utf-8").replace("IDLE_MINUTES", str(idle_gpu_minutes))
    return yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader


def stack_values(args: MonitoringArgs, grafana_password: Optional[pulumi.Input[str]] = None) -> dict:
    system = dict(args.system_node_selector)
    alertmanager: dict[str, Any] = {"alertmanagerSpec": {"nodeSelector": system}}
    if args.receivers:
        alertmanager["config"] = alertmanager_config(args.receivers, args.smtp, args.repeat_interval_hours, args.sns)
        if args.smtp is not None and args.smtp.password_secret:
            alertmanager["alertmanagerSpec"]["secrets"] = [args.smtp.password_secret]
    if args.sns is not None and args.sns.service_account_annotations:
        # alertmanager.serviceAccount in the chart's values.yaml (kube-prometheus-stack 88.5.3).
        alertmanager["serviceAccount"] = {
            "name": ALERTMANAGER_SERVICE_ACCOUNT,
            "annotations": dict(args.sns.service_account_annotations),
        }
    grafana: dict[str, Any] = {
        "nodeSelector": system,
        "sidecar": {"dashboards": {"enabled": True, "label": "grafana_dashboard", "labelValue": "1"}},
    }
    if grafana_password is not None:
        # The chart's default admin password is the public "prom-operator".
        grafana["adminPassword"] = grafana_password
    return {
        # Pick up ServiceMonitors, PodMonitors and rules of every release (the GPU Operator's exporter), not
        # only this chart's own.
        "prometheus": {
            "prometheusSpec": {
                "serviceMonitorSelectorNilUsesHelmValues": False,
                "podMonitorSelectorNilUsesHelmValues": False,
                "ruleSelectorNilUsesHelmValues": False,
                "retention": f"{args.retention_days}d",
                "nodeSelector": system,
            }
        },
        "alertmanager": alertmanager,
        "prometheusOperator": {"nodeSelector": system, "admissionWebhooks": {"patch": {"nodeSelector": system}}},
        "grafana": grafana,
        # Node labels the acceptance alert reads (kube_node_labels).
        "kube-state-metrics": {
            "nodeSelector": system,
            "metricLabelsAllowlist": ["nodes=[gpu-blueprints/acceptance,gpu-blueprints/node-group]"],
        },
        # Managed control planes expose none of these to scrape.
        "kubeControllerManager": {"enabled": False},
        "kubeScheduler": {"enabled": False},
        "kubeEtcd": {"enabled": False},
        "kubeProxy": {"enabled": False},
    }


class GpuMonitoring(Component):
    """kube-prometheus-stack on the system group, GPU alert rules and a GPU dashboard."""

    PACKAGE = KUBERNETES
    LEGACY_TYPE = "gpu-blueprints:kubernetes:GpuMonitoring"
    namespace: pulumi.Output[str]
    """Where Prometheus and Grafana run."""
    grafana_admin_password: pulumi.Output[str]
    """Grafana's `admin` password (secret), generated once and kept in the stack's state."""

    def __init__(self, name: str, args: MonitoringArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(MonitoringArgs, args)
        labels = dict(args.labels)
        # node-exporter needs host namespaces: the namespace runs privileged pods.
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": NAMESPACE, "labels": {**labels, "pod-security.kubernetes.io/enforce": "privileged"}},
            opts=pulumi.ResourceOptions(parent=self),
        )
        # An explicit provider, as for every resource the stack declares (no ambient default provider).
        generator = random.Provider(f"{name}-random", opts=pulumi.ResourceOptions(parent=self))
        password = random.RandomPassword(
            f"{name}-grafana-admin",
            length=24,
            special=False,
            opts=pulumi.ResourceOptions(parent=self, provider=generator),
        )
        self.grafana_admin_password = pulumi.Output.secret(password.result)
        self.release = chart_release(
            self,
            f"{name}-stack",
            "kube-prometheus-stack",
            NAMESPACE,
            stack_values(args, self.grafana_admin_password),
            depends_on=[namespace],
        )
        after = pulumi.ResourceOptions(parent=self, depends_on=[self.release])
        k8s.apiextensions.CustomResource(
            f"{name}-gpu-alerts",
            api_version="monitoring.coreos.com/v1",
            kind="PrometheusRule",
            metadata={"name": "gpu-alerts", "namespace": NAMESPACE, "labels": dict(labels)},
            spec=alert_rules(args.idle_gpu_minutes),
            opts=after,
        )
        k8s.core.v1.ConfigMap(
            f"{name}-gpu-dashboard",
            metadata={"name": "gpu-dashboard", "namespace": NAMESPACE, "labels": {**labels, "grafana_dashboard": "1"}},
            data={"gpu.json": json.dumps(json.loads(DASHBOARD_FILE.read_text(encoding="utf-8")), indent=1)},
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace]),
        )
        self.namespace = pulumi.Output.from_input(NAMESPACE)
        self.register_outputs({"namespace": self.namespace, "grafana_admin_password": self.grafana_admin_password})
