"""Readiness: does every ServiceAccount token Secret the plan declares survive its creation?

Kubernetes' token controller fills a Secret of type `kubernetes.io/service-account-token` with a token for the
ServiceAccount its `kubernetes.io/service-account.name` annotation names, and deletes the Secret when that account
does not exist (kubernetes pkg/controller/serviceaccount/tokens_controller.go syncSecret: "Service account does not
exist, deleting token"; Kubernetes docs, "Manually create a long-lived API token for a ServiceAccount",
https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/). Helm creates ServiceAccounts
before Secrets; Pulumi orders resources only by their dependencies, so a Secret declared beside its account may be
created first and deleted, and whatever presents the token (a PodMonitor scraping an authenticated /metrics) fails.
"""

from __future__ import annotations

from typing import Iterable

from .engine import Registration
from .readiness import BLOCKING, Finding

SECRET = "kubernetes:core/v1:Secret"
SERVICE_ACCOUNT = "kubernetes:core/v1:ServiceAccount"
TOKEN_TYPE = "kubernetes.io/service-account-token"
OWNER = "kubernetes.io/service-account.name"


def _key(metadata: dict, name: str) -> tuple[str, str]:
    return metadata.get("namespace") or "default", name


def check(regs: Iterable[Registration]) -> list[Finding]:
    regs = list(regs)
    accounts = {
        _key(r.inputs.get("metadata") or {}, (r.inputs.get("metadata") or {}).get("name", "")): r
        for r in regs
        if r.type == SERVICE_ACCOUNT
    }
    findings: list[Finding] = []
    for r in regs:
        if r.type != SECRET or r.inputs.get("type") != TOKEN_TYPE:
            continue
        metadata = r.inputs.get("metadata") or {}
        owner = (metadata.get("annotations") or {}).get(OWNER)
        account = accounts.get(_key(metadata, owner or ""))
        if account is None:
            findings.append(
                Finding(
                    "token-secret-owner",
                    BLOCKING,
                    r.name,
                    f"token Secret {metadata.get('name')} names ServiceAccount {owner!r}, which the plan does not "
                    "declare in its namespace: the token controller deletes the Secret, and nothing gets its token",
                    f"declare the ServiceAccount in namespace {_key(metadata, '')[0]} and set {OWNER} to its name",
                )
            )
        elif account.urn not in r.dependencies:
            findings.append(
                Finding(
                    "token-secret-order",
                    BLOCKING,
                    r.name,
                    f"token Secret {metadata.get('name')} may be created before its ServiceAccount {owner}: the "
                    "token controller then deletes it, and whatever presents the token fails",
                    "create the Secret after the account (ResourceOptions depends_on=[the ServiceAccount])",
                )
            )
    return findings
