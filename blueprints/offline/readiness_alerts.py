"""Readiness: do the GPU alerts reach someone? kube-prometheus-stack's default Alertmanager route drops every
alert (receiver "null"), and an e-mail receiver sends nothing without an SMTP relay."""

from __future__ import annotations

from typing import Iterable

from .engine import Registration
from .readiness import HELM_RELEASE, WARNING, Finding

CHART = "kube-prometheus-stack"
FIX_RECEIVER = (
    "set kubernetes.monitoring.alerts.receivers (email, slackUrlConfig, webhookUrlConfig, or sns on AWS), or "
    "budget.contacts, which the stack e-mails by default (README: where alerts go)"
)
FIX_SMTP = (
    "set kubernetes.monitoring.alerts.smtp: smarthost (host:port), sender, and for an authenticated relay "
    "username with passwordConfig naming a `pulumi config set --secret` value"
)


def check(regs: Iterable[Registration]) -> list[Finding]:
    findings: list[Finding] = []
    for r in regs:
        if r.type != HELM_RELEASE or r.inputs.get("name") != CHART:
            continue
        values = r.inputs.get("values") or {}
        config = (values.get("alertmanager") or {}).get("config") or {}
        receivers = [x for x in config.get("receivers") or [] if x.get("name") != "null"]
        routed = {x.get("receiver") for x in (config.get("route") or {}).get("routes") or []}
        if not any(x["name"] in routed for x in receivers):
            findings.append(
                Finding(
                    "alert-receivers",
                    WARNING,
                    r.name,
                    "Alertmanager has no receiver: the GPU alerts (XID, ECC, thermal, failed acceptance, idle GPUs) "
                    "fire but reach nobody",
                    FIX_RECEIVER,
                )
            )
        elif any(x.get("email_configs") for x in receivers) and not (config.get("global") or {}).get("smtp_smarthost"):
            findings.append(
                Finding(
                    "alert-smtp",
                    WARNING,
                    r.name,
                    "an e-mail alert receiver is configured but no SMTP relay: Alertmanager cannot send the mail",
                    FIX_SMTP,
                )
            )
    return findings
