"""Text and Markdown for plan diffs; the Markdown is the pull-request comment."""

from __future__ import annotations

import json
from typing import Any, Sequence

from .diff import COMMENT_MARKER, StackDiff

MAX_ROWS = 60  # per stack in the comment; GitHub comments are limited to 65,536 characters


def _value(v: Any, limit: int = 60) -> str:
    text = "(unset)" if v is None else v if isinstance(v, str) else json.dumps(v, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _money(v: float) -> str:
    return f"{'+' if v > 0 else '-' if v < 0 else '±'}${abs(v):,.2f}"


def _counts(d: StackDiff) -> str:
    return f"+{len(d.added)} -{len(d.removed)} ~{len(d.changed)}"


def render_diff_text(diffs: Sequence[StackDiff]) -> str:
    out: list[str] = []
    for d in diffs:
        out.append(f"{d.stack}: {d.status}, resources {_counts(d)}, cost {_money(d.hourly_delta)}/h "
                   f"({_money(d.monthly_delta)}/month)")
        for reason in d.data_loss:
            out.append(f"  !! DATA LOSS: {reason}")
        out += [f"  + {r['type']} {r['name']}" for r in d.added]
        out += [f"  - {r['type']} {r['name']}" for r in d.removed]
        for c in d.changed:
            out.append(f"  ~ {c.type} {c.name}" + (" (replace)" if c.destroys_data else ""))
            out += [f"      {path}: {_value(old)} -> {_value(new)}" for path, old, new in c.inputs]
        for f in d.new_findings:
            out.append(f"  new finding [{f['enforcementLevel']}] {f['policy']} on {f.get('resourceName') or 'the stack'}: "
                       f"{f['message']}")
        for f in d.resolved_findings:
            out.append(f"  resolved finding {f['policy']} on {f.get('resourceName') or 'the stack'}")
    return "\n".join(out) + "\n"


def render_diff_markdown(diffs: Sequence[StackDiff]) -> str:
    changed = [d for d in diffs if d.status != "unchanged"]
    mandatory = sum(1 for d in diffs for f in d.findings if f["enforcementLevel"] == "mandatory")
    out = [COMMENT_MARKER, f"## Offline plan: {len(diffs)} stacks, {len(changed)} changed", ""]
    losses = [(d.stack, reason) for d in diffs for reason in d.data_loss]
    if losses:
        out += ["> [!CAUTION]", "> **This change would destroy data:**"]
        out += [f"> - `{stack}`: {reason}" for stack, reason in losses]
        out.append("")
    out += ["| stack | status | resources | $/hour | $/month | mandatory findings |", "|---|---|---|---:|---:|---:|"]
    for d in diffs:
        count = sum(1 for f in d.findings if f["enforcementLevel"] == "mandatory")
        out.append(f"| `{d.stack}` | {d.status} | {_counts(d)} | {_money(d.hourly_delta)} | {_money(d.monthly_delta)} | "
                   f"{count} |")
    out += ["", f"Mandatory findings in this head: **{mandatory}**" + (" (the check fails)" if mandatory else "."), ""]
    for d in changed:
        out += [f"<details{' open' if d.data_loss or d.new_findings else ''}><summary><code>{d.stack}</code>: "
                f"{_counts(d)}, {_money(d.hourly_delta)}/h</summary>", "",
                "| | resource | what changes |", "|---|---|---|"]
        rows = []
        for c in d.changed:
            what = "<br>".join(f"`{p}`: {_value(o)} → {_value(n)}" for p, o, n in c.inputs[:8])
            extra = f"<br>…and {len(c.inputs) - 8} more" if len(c.inputs) > 8 else ""
            sign = "**replace**" if c.destroys_data else "~"
            rows.append(f"| {sign} | `{c.type}` `{c.name}` | {what.replace('|', '/')}{extra} |")
        rows += [f"| + | `{r['type']}` `{r['name']}` | new |" for r in d.added]
        rows += [f"| − | `{r['type']}` `{r['name']}` | deleted |" for r in d.removed]
        out += rows[:MAX_ROWS]
        if len(rows) > MAX_ROWS:
            out.append(f"| | | {len(rows) - MAX_ROWS} more rows: see the plan artifact |")
        if d.new_findings or d.resolved_findings:
            out += ["", "| finding | policy | resource | message |", "|---|---|---|---|"]
            out += [f"| new {f['enforcementLevel']} | `{f['policy']}` | {f.get('resourceName') or 'stack'} | "
                    f"{f['message'].replace('|', '/')} |" for f in d.new_findings]
            out += [f"| resolved | `{f['policy']}` | {f.get('resourceName') or 'stack'} | "
                    f"{f['message'].replace('|', '/')} |" for f in d.resolved_findings]
        out += ["", "</details>", ""]
    return "\n".join(out) + "\n"
