"""Text and Markdown for plan diffs; the Markdown is the pull-request comment."""

from __future__ import annotations

import json
from typing import Any, Sequence

from .diff import ACK_LABEL, COMMENT_MARKER, StackDiff

MAX_ROWS = 60  # per stack in the comment; GitHub comments are limited to 65,536 characters


def _value(v: Any, limit: int = 60) -> str:
    text = "(unset)" if v is None else v if isinstance(v, str) else json.dumps(v, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _money(v: float) -> str:
    return f"{'+' if v > 0 else '-' if v < 0 else '±'}${abs(v):,.2f}"


def _counts(d: StackDiff) -> str:
    replaced = sum(1 for c in d.changed if c.replaced)
    return f"+{len(d.added)} -{len(d.removed)} ~{len(d.changed) - replaced} ±{replaced}"


def _budget(d: StackDiff) -> str:
    if d.budget_changed:
        return f"${d.budget_before:,.0f} → ${d.budget_after:,.0f}"
    return f"${d.budget_after:,.0f}" if d.budget_after is not None else "-"


def _findings_delta(d: StackDiff) -> str:
    return f"+{len(d.new_findings)} -{len(d.resolved_findings)}"


def render_diff_text(diffs: Sequence[StackDiff], acknowledged: bool = False) -> str:
    out: list[str] = []
    for d in diffs:
        if d.status == "failed":
            out.append(f"{d.stack}: FAILED to plan: {d.failure}")
            continue
        out.append(
            f"{d.stack}: {d.status}, resources {_counts(d)} (+add -delete ~update ±replace), "
            f"cost {_money(d.hourly_delta)}/h ({_money(d.monthly_delta)}/month), worst case at maxNodes "
            f"{_money(d.worst_monthly_delta)}/month, budget {_budget(d)}/month, findings {_findings_delta(d)}"
        )
        for reason in d.data_loss:
            out.append(f"  !! DATA LOSS: {reason}")
        for reason in d.node_replacements:
            out.append(f"  !! NODES REPLACED: {reason}")
        for blocker in d.blockers(acknowledged):
            out.append(f"  !! BLOCKS MERGE: {blocker}")
        out += [f"  + {r['type']} {r['name']}" for r in d.added]
        out += [f"  - {r['type']} {r['name']}" for r in d.removed]
        for c in d.changed:
            how = (
                " (replace, delete first)"
                if c.replaced and c.delete_before_replace
                else " (replace)"
                if c.replaced
                else ""
            )
            out.append(f"  {'±' if c.replaced else '~'} {c.type} {c.name}{how}")
            out += [f"      because {reason}" for reason in c.replaces]
            out += [f"      {path}: {_value(old)} -> {_value(new)}" for path, old, new in c.inputs]
        for c in d.changed + d.ignored:
            out += [
                f"  = {c.type} {c.name} {path}: {_value(old)} -> {_value(new)} ignored (ignoreChanges): "
                "not deployed, not priced"
                for path, old, new in c.ignored
            ]
        for f in d.new_findings:
            out.append(
                f"  new finding [{f['enforcementLevel']}] {f['policy']} on {f.get('resourceName') or 'the stack'}: "
                f"{f['message']}" + (f" (fix: {f['fix']['field']})" if f.get("fix") else "")
            )
        for f in d.resolved_findings:
            out.append(f"  resolved finding {f['policy']} on {f.get('resourceName') or 'the stack'}")
    return "\n".join(out) + "\n"


def _cell(text: Any) -> str:
    return str(text).replace("|", "/").replace("\n", " ")


def render_diff_markdown(diffs: Sequence[StackDiff], acknowledged: bool = False) -> str:
    """The pull-request comment: alerts, a table of every stack, then each changed stack's details."""
    changed = [d for d in diffs if d.status != "unchanged"]
    mandatory = sum(1 for d in diffs for f in d.findings if f["enforcementLevel"] == "mandatory")
    out = [COMMENT_MARKER, f"## Offline plan: {len(diffs)} stacks, {len(changed)} changed", ""]
    out += _md_failed(diffs)
    out += _md_data_loss(diffs, acknowledged)
    out += _md_node_replacements(diffs, acknowledged)
    out += _md_blockers(diffs, acknowledged)
    out += _md_summary_table(diffs)
    out += [
        "",
        "Resources: +add −delete ~update ±replace. Worst case: every node group at maxNodes.",
        "",
        f"Mandatory findings in this head: **{mandatory}**" + (" (the check fails)" if mandatory else "."),
        "",
    ]
    for d in changed:
        if d.status == "failed":
            continue
        out += _md_stack_details(d)
    return "\n".join(out) + "\n"


def _md_failed(diffs: Sequence[StackDiff]) -> list[str]:
    """A caution naming the stacks whose head could not be planned."""
    failed = [d for d in diffs if d.status == "failed"]
    if not failed:
        return []
    out = ["> [!CAUTION]", "> **These stacks could not be planned:**"]
    out += [f"> - `{d.stack}`: {_cell(d.failure)}" for d in failed]
    out.append("")
    return out


def _md_data_loss(diffs: Sequence[StackDiff], acknowledged: bool) -> list[str]:
    """A caution listing the data the change would destroy, and whether the label acknowledges it."""
    losses = [(d.stack, reason) for d in diffs for reason in d.data_loss]
    if not losses:
        return []
    out = ["> [!CAUTION]", "> **This change would destroy data:**"]
    out += [f"> - `{stack}`: {reason}" for stack, reason in losses]
    if any(d.protected_data_loss for d in diffs):
        out.append(
            f"> Acknowledged with the `{ACK_LABEL}` label."
            if acknowledged
            else f"> The check fails until the pull request carries the `{ACK_LABEL}` label."
        )
    out.append("")
    return out


def _md_node_replacements(diffs: Sequence[StackDiff], acknowledged: bool) -> list[str]:
    """A caution naming the nodes an autoscaling engine switch replaces (their running pods are evicted)."""
    switches = [(d.stack, reason) for d in diffs for reason in d.node_replacements]
    if not switches:
        return []
    out = ["> [!CAUTION]", "> **This change replaces GPU nodes; running GPU pods are evicted:**"]
    out += [f"> - `{stack}`: {_cell(reason)}" for stack, reason in switches]
    out.append(
        f"> Acknowledged with the `{ACK_LABEL}` label."
        if acknowledged
        else f"> The check fails until the pull request carries the `{ACK_LABEL}` label."
    )
    out.append("")
    return out


def _md_blockers(diffs: Sequence[StackDiff], acknowledged: bool) -> list[str]:
    """A warning listing what blocks the merge (failed stacks are reported above instead)."""
    blockers = [(d.stack, b) for d in diffs for b in d.blockers(acknowledged) if not d.failure]
    if not blockers:
        return []
    return ["> [!WARNING]", "> **Blocks the merge:**"] + [f"> - `{s}`: {_cell(b)}" for s, b in blockers] + [""]


def _md_summary_table(diffs: Sequence[StackDiff]) -> list[str]:
    """One row per stack: status, resource counts, cost deltas, budget and findings."""
    out = [
        "| stack | status | resources | $/hour | $/month | worst case $/month | budget/month | findings new/resolved "
        "| mandatory findings |",
        "|---|---|---|---:|---:|---:|---:|---|---:|",
    ]
    for d in diffs:
        if d.status == "failed":
            out.append(f"| `{d.stack}` | **failed** | - | - | - | - | - | - | - |")
            continue
        count = sum(1 for f in d.findings if f["enforcementLevel"] == "mandatory")
        out.append(
            f"| `{d.stack}` | {d.status} | {_counts(d)} | {_money(d.hourly_delta)} | {_money(d.monthly_delta)} | "
            f"{_money(d.worst_monthly_delta)} | {_budget(d)} | {_findings_delta(d)} | {count} |"
        )
    return out


def _md_stack_details(d: StackDiff) -> list[str]:
    """A changed stack's collapsible section, open when it loses data, replaces or brings findings."""
    loud = d.data_loss or d.node_replacements or d.new_findings or any(c.replaced for c in d.changed)
    out = [
        f"<details{' open' if loud else ''}>"
        f"<summary><code>{d.stack}</code>: {_counts(d)}, {_money(d.hourly_delta)}/h</summary>",
        "",
        "| | resource | what changes |",
        "|---|---|---|",
    ]
    rows = _md_resource_rows(d)
    out += rows[:MAX_ROWS]
    if len(rows) > MAX_ROWS:
        out.append(f"| | | {len(rows) - MAX_ROWS} more rows: see the plan artifact |")
    out += _md_findings_table(d)
    out += ["", "</details>", ""]
    return out


def _md_resource_rows(d: StackDiff) -> list[str]:
    """Every resource row (changed, ignored, added, deleted), before the comment's row limit."""
    rows = []
    for c in d.changed:
        what = "<br>".join(f"`{p}`: {_value(o)} → {_value(n)}" for p, o, n in c.inputs[:8])
        extra = f"<br>…and {len(c.inputs) - 8} more" if len(c.inputs) > 8 else ""
        why = "".join(f"<br>**replaced because** {_cell(r)}" for r in c.replaces)
        sign = ("**replace** (delete first)" if c.delete_before_replace else "**replace**") if c.replaced else "~"
        rows.append(f"| {sign} | `{c.type}` `{c.name}` | {_cell(what)}{extra}{why} |")
    for c in d.changed + d.ignored:
        rows += [
            f"| = | `{c.type}` `{c.name}` | `{p}`: {_value(o)} → {_value(n)} ignored (`ignoreChanges`): "
            "not deployed, not priced |"
            for p, o, n in c.ignored
        ]
    rows += [f"| + | `{r['type']}` `{r['name']}` | new |" for r in d.added]
    rows += [f"| − | `{r['type']}` `{r['name']}` | deleted |" for r in d.removed]
    return rows


def _md_findings_table(d: StackDiff) -> list[str]:
    """The findings the stack's head brings and resolves; nothing when neither."""
    if not (d.new_findings or d.resolved_findings):
        return []
    out = ["", "| finding | policy | resource | message | edit |", "|---|---|---|---|---|"]
    out += [
        f"| new {f['enforcementLevel']} | `{f['policy']}` | {f.get('resourceName') or 'stack'} | "
        f"{_cell(f['message'])} | {_cell(f['fix']['field']) if f.get('fix') else ''} |"
        for f in d.new_findings
    ]
    out += [
        f"| resolved | `{f['policy']}` | {f.get('resourceName') or 'stack'} | {_cell(f['message'])} | |"
        for f in d.resolved_findings
    ]
    return out
