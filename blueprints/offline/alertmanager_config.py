"""Alertmanager's own refusals of a configuration file, for what a plan renders: the checks of `Config.UnmarshalYAML`
and `Receiver.UnmarshalYAML` in prometheus/alertmanager config/config.go (the same at v0.25.0, the amtool `make
install` fetches, and v0.34.0, the image kube-prometheus-stack 88.5.3 runs) that a rendered file can fail, in the order
Alertmanager applies them. Alertmanager refuses the whole file on any of them: then no receiver works.

What Alertmanager accepts but cannot deliver is said apart (`deliveries`): a receiver with no notifier config drops
what is routed to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

# The notifier lists of config.Receiver at v0.34.0 (v0.25.0 has a subset; a name of either counts).
NOTIFIER_CONFIGS = (
    "discord_configs",
    "email_configs",
    "incidentio_configs",
    "pagerduty_configs",
    "slack_configs",
    "webhook_configs",
    "opsgenie_configs",
    "wechat_configs",
    "pushover_configs",
    "victorops_configs",
    "sns_configs",
    "telegram_configs",
    "webex_configs",
    "msteams_configs",
    "msteamsv2_configs",
    "jira_configs",
    "rocketchat_configs",
    "mattermost_configs",
)


@dataclass(frozen=True)
class Problem:
    """One refusal: `smtp` when it is about e-mail's relay, else `config`; Alertmanager's own words."""

    topic: str
    message: str


def _routes(route: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every route of the tree below ``route`` (not ``route`` itself), depth first."""
    for child in route.get("routes") or []:
        if isinstance(child, Mapping):
            yield child
            yield from _routes(child)


def problems(config: Mapping[str, Any]) -> list[Problem]:
    """Why Alertmanager would refuse this configuration; empty when it loads it."""
    glob = config.get("global") or {}
    found: list[Problem] = []
    if glob.get("smtp_auth_password") and glob.get("smtp_auth_password_file"):
        found.append(Problem("smtp", "at most one of smtp_auth_password & smtp_auth_password_file must be configured"))
    names: set[str] = set()
    for receiver in config.get("receivers") or []:
        name = receiver.get("name")
        if not name:
            found.append(Problem("config", "missing name in receiver"))
        elif name in names:
            found.append(Problem("config", f"notification config name {name!r} is not unique"))
        for email in receiver.get("email_configs") or []:
            if not (email or {}).get("smarthost") and not glob.get("smtp_smarthost"):
                found.append(Problem("smtp", f"receiver {name!r}: no global SMTP smarthost set"))
            if not (email or {}).get("from") and not glob.get("smtp_from"):
                found.append(Problem("smtp", f"receiver {name!r}: no global SMTP from set"))
        names.add(name)
    route = config.get("route")
    if not route:
        found.append(Problem("config", "no routes provided"))
        return found
    if not route.get("receiver"):
        found.append(Problem("config", "root route must specify a default receiver"))
    for r in (route, *_routes(route)):
        if r.get("receiver") and r["receiver"] not in names:
            found.append(Problem("config", f"undefined receiver {r['receiver']!r} used in route"))
    return found


def delivers(receiver: Mapping[str, Any]) -> bool:
    """Whether a receiver has any notifier config (one with none drops what it gets)."""
    return any(receiver.get(key) for key in NOTIFIER_CONFIGS)


def deliveries(config: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(receivers with a destination that some route reaches, receivers with none that a route without matchers
    sends to). A route with matchers to an empty receiver is a deliberate drop (the Watchdog's); the root route's
    receiver takes only what no child route took."""
    by_name = {r.get("name"): r for r in config.get("receivers") or []}
    route = config.get("route") or {}
    reached, silent = [], []
    for r in (route, *_routes(route)):
        receiver = by_name.get(r.get("receiver"))
        if receiver is None:
            continue
        if delivers(receiver):
            reached.append(receiver["name"])
        elif r is not route and not (r.get("matchers") or r.get("match") or r.get("match_re")):
            silent.append(receiver["name"])
    return sorted(set(reached)), sorted(set(silent))
