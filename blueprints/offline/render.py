"""Plan output as text (terminal), Markdown (pull requests) or JSON (machines)."""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Optional, Sequence

from catalog.clouds import type_of

from .fixes import controls
from .plan import PLAN_FORMAT_VERSION, Plan

# The inputs worth a glance in the tree, by resource type.
KEY_INPUTS = {
    type_of("aws", "node_group"): ("instanceTypes", "capacityType", "scalingConfig"),
    type_of("aws", "cluster"): ("version", "enabledClusterLogTypes"),
    type_of("aws", "launch_template"): ("metadataOptions",),
    type_of("aws", "network"): ("cidrBlock",),
    type_of("aws", "subnet"): ("cidrBlock", "availabilityZone"),
    type_of("aws", "file_system"): ("storageCapacity", "deploymentType", "kmsKeyId"),
    type_of("aws", "key"): ("enableKeyRotation", "deletionWindowInDays"),
    type_of("aws", "audit_trail"): ("isMultiRegionTrail", "enableLogFileValidation"),
    type_of("aws", "log_sink"): ("retentionInDays",),
    type_of("aws", "placement_group"): ("strategy",),
    type_of("aws", "budget"): ("limitAmount", "timeUnit"),
    type_of("alicloud", "node_group"): ("instanceTypes", "desiredSize", "instanceChargeType"),
    type_of("alicloud", "cluster"): ("version", "clusterSpec"),
    type_of("alicloud", "file_system"): ("fileSystemType", "capacity", "encryptType"),
    type_of("alicloud", "log_store"): ("retentionPeriod",),
    type_of("alicloud", "network"): ("cidrBlock",),
}


def _short(value: Any, limit: int = 70) -> str:
    text = json.dumps(value, separators=(",", ":")) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tree(plan: Plan) -> list[tuple[int, Any]]:
    children: dict[str, list] = {}
    for r in plan.registrations:
        children.setdefault(r.parent, []).append(r)
    rows: list[tuple[int, Any]] = []

    def walk(urn: str, depth: int) -> None:
        for r in children.get(urn, []):
            rows.append((depth, r))
            walk(r.urn, depth + 1)

    walk("", 0)
    return rows


def _key_inputs(r) -> str:
    inputs = r.inputs
    shown = [f"{k}={_short(inputs[k])}" for k in KEY_INPUTS.get(r.type, ()) if k in inputs]
    return ("  " + " ".join(shown)) if shown else ""


def _money(v: float) -> str:
    return f"${v:,.2f}"


def _kubernetes_line(k8s: dict[str, Any]) -> str:
    until = f" until {k8s['supportEnds']}" if k8s.get("supportEnds") else ""
    return f"Kubernetes {k8s['version']}: {k8s['support']} support{until}"


def render_text(plan: Plan) -> str:
    data = plan.to_json()
    out = [
        f"Offline plan: {plan.stack} ({data['cloud']}, {data['region']}, preset {data['preset'] or '-'})",
        _kubernetes_line(data["resolved"]["kubernetes"]),
        "",
    ]
    out.append("Node groups:")
    for g in data["resolved"]["nodeGroups"]:
        price = _money(g["usdPerHour"]) + "/h" if g["usdPerHour"] is not None else "unpriced"
        out.append(
            f"  {g['name']}: {g['nodes']['desired']} x {g['instanceType']} ({g['gpusPerNode']} x {g['gpuModel']}, "
            f"{g['interconnect']}, RDMA {g['rdma']['kind']} x{g['rdma']['interfaces']}) {price} each, {g['capacity']}"
        )
    if data["resolved"].get("systemNodes"):
        s = data["resolved"]["systemNodes"]
        price = _money(s["usdPerHour"]) + "/h" if s["usdPerHour"] is not None else "unpriced"
        out.append(
            f"  system: {s['nodes']['desired']} x {s['instanceType']} (CPU, untainted, "
            f"{s['nodes']['min']}-{s['nodes']['max']} nodes) {price} each, on-demand"
        )
    if data["resolved"]["notes"]:
        out += ["", "Resolver notes:"] + [f"  - {n}" for n in data["resolved"]["notes"]]
    out += ["", "Resources:"]
    for depth, r in _tree(plan):
        out.append(f"  {'  ' * depth}{r.type}  {r.name}{_key_inputs(r)}")
    counts = data["counts"]
    out += [
        "",
        f"{counts['total']} registrations: {counts['custom']} cloud resources, {counts['components']} components",
    ]
    out += _cost_lines(data["cost"], bullet="  ")
    out += _secret_output_lines(data.get("outputs") or {})
    out += _readiness_lines(data["readiness"])
    out += _cold_start_lines(data.get("coldStart") or [])
    out += _conformance_lines(data["aiConformance"])
    out += _finding_lines(data["findings"], data["policyPacks"])
    return "\n".join(out) + "\n"


def _secret_output_lines(outputs: dict[str, Any]) -> list[str]:
    """The stack outputs that hold credentials, so a reviewer knows where to find them after `pulumi up`."""
    names = [k for k, v in outputs.items() if v == {"secret": True}]
    if not names:
        return []
    return ["", "Credentials (secret stack outputs; read with `pulumi stack output --show-secrets NAME`):"] + [
        f"  {n}" for n in names
    ]


def _readiness_lines(findings: list) -> list[str]:
    if not findings:
        return ["", "Readiness (day one): no gaps found"]
    blocking = sum(1 for f in findings if f["level"] == "blocking")
    lines = ["", f"Readiness (day one): {blocking} blocking, {len(findings) - blocking} warnings"]
    for f in findings:
        lines += [
            f"  [{f['level']}] {f['check']} on {f['resource']}",
            f"      {f['message']}",
            f"      fix: {f['fix']}",
        ]
    return lines


def _cold_start_title(model: dict) -> str:
    minutes = model["totalSeconds"] / 60
    return f"Cold start of {model['model']} from zero replicas: about {minutes:.0f} minutes ({model['totalSeconds']} s)"


def _cold_start_lines(models: list) -> list[str]:
    lines = []
    for model in models:
        lines += ["", _cold_start_title(model) + ":"]
        for s in model["steps"]:
            lines.append(f"  - {s['step']}: {s['seconds']} s{' (estimate)' if s['estimate'] else ''}: {s['basis']}")
        lines.append(f"  Clients: {model['clients']}")
    return lines


def _cold_start_markdown(models: list) -> list[str]:
    out = []
    for model in models:
        out += ["", f"**{_cold_start_title(model)}**", "", "| step | seconds | basis | source |", "|---|---:|---|---|"]
        for s in model["steps"]:
            seconds = f"{s['seconds']} (estimate)" if s["estimate"] else str(s["seconds"])
            out.append(f"| {s['step']} | {seconds} | {_cell(s['basis'])} | {_cell(s['source'])} |")
        out += ["", f"Clients: {model['clients']}"]
    return out


def _conformance_title(c: dict) -> str:
    if c["checklist"] is None:
        return f"AI conformance (Kubernetes {c['kubernetesVersion']}): CNCF publishes no checklist for this version"
    return (
        f"AI conformance (Kubernetes {c['kubernetesVersion']}): {c['must']['met']}/{c['must']['judged']} MUST met, "
        f"{c['should']['met']}/{c['should']['judged']} SHOULD met (a report; it does not change the exit code)"
    )


def _conformance_lines(c: dict) -> list[str]:
    """The summary, then each unmet item with what is missing (the JSON and Markdown list every item)."""
    lines = ["", _conformance_title(c)]
    for v in c["items"]:
        if v["status"] == "not met":
            lines += [f"  [{v['level']}] {v['id']}: not met", f"      {v['detail']}"]
    if c["checklist"] is not None:
        lines.append(f"  checklist: {c['checklist']['source']}")
    if c.get("k8sConformanceUrl"):
        lines.append(f"  base conformance (k8sConformanceUrl): {c['k8sConformanceUrl']}")
    return lines


def _budget_verdict(within: Optional[bool]) -> str:
    """None: node groups without a price could still take the total over, so the verdict is unknown."""
    return "UNKNOWN against the" if within is None else "within" if within else "OVER"


def _cost_lines(cost: dict, bullet: str) -> list[str]:
    lines = ["", "Cost estimate (list prices):"]
    for component, v in cost["byComponent"].items():
        unknown = "" if v.get("complete", True) else "  + unknown (unpriced, not $0)"
        lines.append(
            f"{bullet}{component:<14} {_money(v['hourlyUsd']):>12}/h {_money(v['monthlyUsd']):>14}/month{unknown}"
        )
    known = "" if cost.get("complete", True) else "  AT LEAST: unpriced node groups are unknown, not $0"
    lines.append(
        f"{bullet}{'total':<14} {_money(cost['hourlyUsd']):>12}/h {_money(cost['monthlyUsd']):>14}/month"
        f"  (expected: node groups at desired size){known}"
    )
    worst = cost.get("worstCase")
    if worst:
        lines.append(
            f"{bullet}{'worst case':<14} {_money(worst['hourlyUsd']):>12}/h "
            f"{_money(worst['monthlyUsd']):>14}/month  ({worst['basis']})"
        )
    for r in cost.get("rates", []):
        price = "unpriced" if r["usdPerHour"] is None else f"{_money(r['usdPerHour'])}/h"
        lines.append(
            f"{bullet}rate {r['nodeGroup']}: {r['instanceType']} {r['capacity']} at {price} "
            f"({r['option']}; {r['source']})"
        )
        if r.get("sharing"):
            lines.append(f"{bullet}  per slice ({_slices(r['sharing'])}): {_slice_prices(r['sharing'])}")
    b = cost["budget"]
    verdict = _budget_verdict(b["withinBudget"])
    lines.append(f"{bullet}budget {_money(b['monthlyLimitUsd'])}/month: {b['usedPct']}% used ({verdict} budget)")
    if "worstCaseUsedPct" in b:
        verdict = _budget_verdict(b["worstCaseWithinBudget"])
        lines.append(f"{bullet}worst case uses {b['worstCaseUsedPct']}% of the budget ({verdict} budget)")
    lines += [f"{bullet}unpriced: {u}" for u in cost["unpriced"]]
    return lines


def _finding_lines(findings: list, packs: list) -> list[str]:
    judged = f" ({', '.join(packs)})" if packs else " (no policy packs run)"
    if not findings:
        return ["", f"Compliance findings{judged}: none"]
    lines = ["", f"Compliance findings{judged}: {len(findings)}"]
    for f in findings:
        where = f"{f['resourceType']} {f['resourceName']}" if f.get("resourceName") else "the stack"
        lines.append(f"  [{f['enforcementLevel']}/{f['severity']}] {f['policy']} on {where}")
        lines.append(f"      {f['message']}")
        lines.append(f"      controls: {controls(f['framework'])} (packs: {', '.join(f['packs'])})")
        if f.get("fix"):
            lines.append(f"      edit: {f['fix']['field']}  ({f['fix']['in']})")
        lines.append(f"      fix: {f['remediation']}")
    return lines


def render_markdown(plan: Plan) -> str:
    data = plan.to_json()
    out = [
        f"### Offline plan: `{plan.stack}` ({data['cloud']}, {data['region']})",
        "",
        _kubernetes_line(data["resolved"]["kubernetes"]) + ".",
        "",
    ]
    out += ["| node group | nodes | instance | GPUs | RDMA | $/h each |", "|---|---|---|---|---|---|"]
    for g in data["resolved"]["nodeGroups"]:
        price = f"{g['usdPerHour']:,.2f}" if g["usdPerHour"] is not None else "unpriced"
        out.append(
            f"| {g['name']} | {g['nodes']['desired']} ({g['nodes']['min']}-{g['nodes']['max']}) | "
            f"`{g['instanceType']}` | {g['gpusPerNode']} x {g['gpuModel']} | "
            f"{g['rdma']['kind']} x{g['rdma']['interfaces']} | {price} |"
        )
    if data["resolved"]["notes"]:
        out += ["", "**Resolver notes**", ""] + [f"- {n}" for n in data["resolved"]["notes"]]
    cost = data["cost"]
    out += ["", "| component | $/hour | $/month |", "|---|---:|---:|"]
    for component, v in cost["byComponent"].items():
        out.append(f"| {component} | {v['hourlyUsd']:,.2f} | {v['monthlyUsd']:,.2f} |")
    out.append(f"| **total** | **{cost['hourlyUsd']:,.2f}** | **{cost['monthlyUsd']:,.2f}** |")
    worst = cost.get("worstCase")
    if worst:
        out.append(f"| worst case ({worst['basis']}) | {worst['hourlyUsd']:,.2f} | {worst['monthlyUsd']:,.2f} |")
    b = cost["budget"]
    budget_line = f"Budget: ${b['monthlyLimitUsd']:,.2f}/month, {b['usedPct']}% used"
    if not cost.get("complete", True):
        budget_line += " of what is priced (unpriced node groups are unknown, not $0)"
    if "worstCaseUsedPct" in b:
        budget_line += f"; worst case {b['worstCaseUsedPct']}%"
    out += ["", budget_line + "."]
    if cost.get("rates"):
        out += ["", "| node group | instance | capacity | rate $/h | price source |", "|---|---|---|---:|---|"]
        for r in cost["rates"]:
            price = "unpriced" if r["usdPerHour"] is None else f"{r['usdPerHour']:,.4g}"
            out.append(
                f"| {r['nodeGroup']} | `{r['instanceType']}` | {r['capacity']} ({r['option']}) | {price} "
                f"| {r['source']} |"
            )
        shared = [r for r in cost["rates"] if r.get("sharing")]
        if shared:
            out += ["", "| node group | slices per node | $/h per slice |", "|---|---|---|"]
            out += [f"| {r['nodeGroup']} | {_slices(r['sharing'])} | {_slice_prices(r['sharing'])} |" for r in shared]
    out += [
        "",
        "<details><summary>" + f"{data['counts']['total']} registrations</summary>",
        "",
        "| type | count |",
        "|---|---:|",
    ]
    out += [f"| `{t}` | {n} |" for t, n in data["counts"]["byType"].items()]
    out += ["", "</details>"]
    out += _readiness_markdown(data["readiness"])
    out += _cold_start_markdown(data.get("coldStart") or [])
    out += _conformance_markdown(data["aiConformance"])
    out += _finding_markdown(data["findings"], data["policyPacks"])
    return "\n".join(out) + "\n"


def _readiness_markdown(findings: list) -> list[str]:
    if not findings:
        return ["", "**Readiness** (day one): no gaps found."]
    out = [
        "",
        f"**Readiness** (day one): {len(findings)} findings",
        "",
        "| level | check | resource | finding | fix |",
        "|---|---|---|---|---|",
    ]
    out += [
        f"| {f['level']} | `{f['check']}` | `{f['resource']}` | {_cell(f['message'])} | {_cell(f['fix'])} |"
        for f in findings
    ]
    return out


def _conformance_markdown(c: dict) -> list[str]:
    out = ["", f"**{_conformance_title(c)}**"]
    if c["checklist"] is None:
        return out
    out += ["", "| level | item | status | met by / missing |", "|---|---|---|---|"]
    out += [f"| {v['level']} | `{v['id']}` | {v['status']} | {_cell(v['detail'])} |" for v in c["items"]]
    out += ["", f"Checklist: {c['checklist']['source']}"]
    if c.get("k8sConformanceUrl"):
        out += ["", f"Base conformance (k8sConformanceUrl): {c['k8sConformanceUrl']}"]
    return out


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _finding_markdown(findings: list, packs: list) -> list[str]:
    judged = ", ".join(f"`{p}`" for p in packs) or "no policy packs run"
    if not findings:
        return ["", f"**Compliance** ({judged}): no findings."]
    out = [
        "",
        f"**Compliance** ({judged}): {len(findings)} findings",
        "",
        "| level | policy | resource | finding | controls | edit | fix |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in findings:
        where = f"`{f['resourceName']}`" if f.get("resourceName") else "stack"
        edit = f"`{_cell(f['fix']['field'])}` ({_cell(f['fix']['in'])})" if f.get("fix") else ""
        out.append(
            f"| {f['enforcementLevel']} ({f['severity']}) | `{f['policy']}` | {where} | {_cell(f['message'])} | "
            f"{_cell(controls(f['framework']))} | {edit} | {_cell(f['remediation'])} |"
        )
    return out


def render_json(plan: Plan) -> str:
    return json.dumps(plan.to_json(), indent=2, sort_keys=False) + "\n"


def render_bundle(plans: Sequence[Plan], failures: Sequence[tuple[str, str]] = ()) -> str:
    """Several plans in one JSON document, for `diff` between two commits; stacks that could not be
    planned are listed with their error so the pull-request comment can show them."""
    bundle = {
        "formatVersion": PLAN_FORMAT_VERSION,
        "plans": [p.to_json() for p in plans],
        "failures": [{"stack": stack, "error": error} for stack, error in failures],
    }
    return json.dumps(bundle, indent=2) + "\n"


def render_failure(stack: str, error: str, fmt: str) -> str:
    """A stack that could not be planned, in the text or Markdown of the other stacks' plans."""
    if fmt == "markdown":
        return f"### Offline plan: `{stack}` FAILED\n\n```\n{error}\n```\n"
    return f"Offline plan: {stack} FAILED\n{error}\n"


RENDERERS: dict[str, Callable[[Plan], str]] = {"text": render_text, "markdown": render_markdown, "json": render_json}


def _slices(sharing: Mapping[str, Any]) -> str:
    """How a shared or MIG group's node is sliced, e.g. `time-slicing x2 of all-1g.10gb: 14 nvidia.com/mig-1g.10gb`."""
    how = sharing["strategy"] + (f" x{sharing['replicasPerGpu']}" if sharing["replicasPerGpu"] > 1 else "")
    of = f" of {sharing['migProfile']}" if sharing.get("migProfile") else ""
    return f"{how}{of}: " + ", ".join(f"{n} {r}" for r, n in sorted(sharing["resources"].items()))


def _slice_prices(sharing: Mapping[str, Any]) -> str:
    """The hourly price of one slice of each resource (the node's rate over its slices; MIG by compute share)."""
    prices = sharing["usdPerResourceHour"]
    return ", ".join(f"{r} {'unpriced' if p is None else _money(p) + '/h'}" for r, p in sorted(prices.items()))
