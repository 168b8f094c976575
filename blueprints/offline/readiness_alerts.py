"""Readiness: do the GPU alerts reach someone? Judged on the Alertmanager configuration kube-prometheus-stack is
given, the way Alertmanager judges it (alertmanager_config.py): a file it refuses delivers nothing at all, a route
to nothing but the chart's default receiver ("null") drops every alert, a receiver with no notifier drops what it
gets. Each is blocking. What only the team can do after `pulumi up` (confirm an SNS subscription, create the Secret
Alertmanager mounts) is a warning that says how."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from catalog.clouds import types_of

from .alertmanager_config import deliveries, problems
from .engine import Registration
from .readiness import BLOCKING, HELM_RELEASE, WARNING, Finding

CHART = "kube-prometheus-stack"
SECRET = "kubernetes:core/v1:Secret"
FIX_RECEIVER = (
    "set kubernetes.monitoring.alerts.receivers (email, slackUrlConfig, webhookUrlConfig, or sns on AWS), or "
    "budget.contacts: on AWS they get the alerts through the stack's SNS topic, elsewhere by e-mail once "
    "monitoring.alerts.smtp names a relay (README: where alerts go)"
)
FIX_SMTP = (
    "set kubernetes.monitoring.alerts.smtp: smarthost (host:port), sender, and for an authenticated relay "
    "username with passwordConfig (a `pulumi config set --secret` value) or passwordSecret (a Kubernetes Secret)"
)
FIX_CONFIG = "render a configuration `amtool check-config` accepts (README: where alerts go)"


def _config(values: Mapping[str, Any]) -> Mapping[str, Any]:
    """The Alertmanager configuration the release is given; with none, the chart's own default, whose only
    receiver is "null" (kube-prometheus-stack values.yaml alertmanager.config)."""
    return (values.get("alertmanager") or {}).get("config") or {
        "route": {"receiver": "null"},
        "receivers": [{"name": "null"}],
    }


def _release_findings(r: Registration, secrets: set[tuple[str, str]]) -> list[Finding]:
    values = r.inputs.get("values") or {}
    config = _config(values)
    refused = problems(config)
    findings = [
        Finding(
            f"alert-{p.topic}",
            BLOCKING,
            r.name,
            f"Alertmanager refuses its whole configuration ({p.message}): no alert reaches anyone",
            FIX_SMTP if p.topic == "smtp" else FIX_CONFIG,
        )
        for p in refused
    ]
    if refused:
        return findings
    reached, silent = deliveries(config)
    if not reached:
        findings.append(
            Finding(
                "alert-receivers",
                BLOCKING,
                r.name,
                "Alertmanager has no receiver with a destination: the GPU alerts (XID, ECC, thermal, failed "
                "acceptance, idle GPUs) fire but reach nobody",
                FIX_RECEIVER,
            )
        )
    for name in silent:
        findings.append(
            Finding(
                "alert-silent-receiver",
                BLOCKING,
                r.name,
                f"alert receiver {name!r} has no destination: every alert routed to it is dropped",
                "give it email, slackUrlConfig, webhookUrlConfig or sns, or remove it",
            )
        )
    namespace = r.inputs.get("namespace") or "default"
    mounted = ((values.get("alertmanager") or {}).get("alertmanagerSpec") or {}).get("secrets") or []
    for secret in mounted:
        if (namespace, secret) not in secrets:
            findings.append(
                Finding(
                    "alert-secret",
                    WARNING,
                    r.name,
                    f"Alertmanager mounts the Secret {secret!r} (a file its configuration reads, such as the SMTP "
                    f"password), which the stack does not create: its pods wait until it exists in namespace "
                    f"{namespace}, and until then no alert is sent",
                    f"kubectl -n {namespace} create secret generic {secret} --from-literal=password=... (the "
                    "relay's SMTP password; for DirectMail, the sender address's SMTP password)",
                )
            )
    return findings


def check(regs: Iterable[Registration]) -> list[Finding]:
    regs = list(regs)
    secrets = {
        ((r.inputs.get("metadata") or {}).get("namespace") or "default", (r.inputs.get("metadata") or {}).get("name"))
        for r in regs
        if r.type == SECRET
    }
    findings: list[Finding] = []
    for r in regs:
        if r.type == HELM_RELEASE and r.inputs.get("name") == CHART:
            findings += _release_findings(r, secrets)
    unconfirmed = sorted(
        str(r.inputs.get("endpoint"))
        for r in regs
        if r.type in types_of("alert_subscription") and r.inputs.get("protocol") == "email"
    )
    if unconfirmed:
        findings.append(
            Finding(
                "alert-subscriptions",
                WARNING,
                ", ".join(unconfirmed),
                "the alert topic e-mails these addresses only once each confirms its subscription from the mail SNS "
                "sends after `pulumi up` (the link is valid three days): until then alerts reach nobody by e-mail",
                "each address confirms from the mail SNS sends (SNS API reference, Subscribe); or subscribe an "
                "endpoint of your own (SQS, Lambda, a chat bot) to the alert_topic_arn output",
            )
        )
    return findings
