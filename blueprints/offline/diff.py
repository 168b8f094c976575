"""Compare two offline plans (base and head of a pull request) as `pulumi up` would act on them.

Which input changes replace a resource comes from the providers' own source (their ForceNew /
willReplaceOnChanges inputs and pulumi-kubernetes' forceNew list, extracted with sources in
catalog/replacements.yaml; a named Kubernetes object is deleted first) and from the
resource's own `replaceOnChanges` option; inputs a resource lists in `ignoreChanges` are not
changes at all, so they are shown as ignored and not priced. The real `pulumi preview` in the PR
workflow remains the authority; this diff runs without credentials on every pull request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from catalog.clouds import types_of
from catalog.replacements import ReplacementRules, replacement_rules

from ..errors import EXIT_FINDINGS, EXIT_OK
from ..inputs import MAX_JSON_DEPTH, PLAN_JSON_BYTES, json_depth, parse_json, read_text
from .diff_verdicts import engine_switches, impossible_in_place, namespace_deletions
from .plan_schema import check_plan_json

COMMENT_MARKER = "<!-- gpu-cluster-blueprints:plan-diff -->"
# The pull-request label the workflow turns into --data-loss-acknowledged.
ACK_LABEL = "data-loss-acknowledged"
NODE_GROUP_TYPES = types_of("node_group")


@dataclass
class Change:
    urn: str
    type: str
    name: str
    inputs: list[tuple[str, Any, Any]]  # (path, before, after) that `pulumi up` acts on
    replaces: list[str] = field(default_factory=list)  # why it is replaced: "capacityType: ON_DEMAND -> SPOT"
    ignored: list[tuple[str, Any, Any]] = field(default_factory=list)  # changes its ignoreChanges hides
    protected: bool = False
    data_store: bool = False
    delete_before_replace: bool = False
    name_clash: str = ""  # the fixed name a create-before-delete replacement would reuse
    impossible: list[str] = field(default_factory=list)  # in-place changes the service refuses

    @property
    def replaced(self) -> bool:
        return bool(self.replaces)

    @property
    def destroys_data(self) -> bool:
        return self.replaced and self.data_store


@dataclass
class StackDiff:
    stack: str
    status: str  # changed | unchanged | added | removed | failed
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    changed: list[Change] = field(default_factory=list)
    ignored: list[Change] = field(default_factory=list)  # only ignored inputs changed: no update
    hourly_before: float = 0.0
    hourly_after: float = 0.0
    worst_before: float = 0.0  # $/h with every node group at maxNodes
    worst_after: float = 0.0
    budget_before: float | None = None  # monthly limit, USD
    budget_after: float | None = None
    hours_per_month: int = 730
    findings: list[dict[str, Any]] = field(default_factory=list)  # head's findings
    new_findings: list[dict[str, Any]] = field(default_factory=list)
    resolved_findings: list[dict[str, Any]] = field(default_factory=list)
    exit_code: int = 0
    failure: str = ""  # the head could not be planned: its error

    @property
    def hourly_delta(self) -> float:
        # Cost items carry 4 decimals each, so sums and rescaled items can differ by a few 1e-4 $/h from the plan's
        # own total: report the delta to a tenth of a cent.
        return round(self.hourly_after - self.hourly_before, 3)

    @property
    def monthly_delta(self) -> float:
        return round(self.hourly_delta * self.hours_per_month, 2)

    @property
    def worst_monthly_delta(self) -> float:
        return round((self.worst_after - self.worst_before) * self.hours_per_month, 2)

    @property
    def budget_changed(self) -> bool:
        return (
            self.budget_before is not None and self.budget_after is not None and self.budget_before != self.budget_after
        )

    def _removed_stores(self) -> list[dict[str, Any]]:
        rules = replacement_rules()
        return [r for r in self.removed if r["type"] in rules and rules[r["type"]].data_store]

    @property
    def data_loss(self) -> list[str]:
        """Why data would be destroyed: replaced or removed data stores, worst first."""
        reasons = [
            f"{c.type} {c.name} would be REPLACED ({'; '.join(c.replaces)})"
            + ("; it is protected, so `pulumi up` will stop" if c.protected else "")
            for c in self.changed
            if c.destroys_data
        ]
        reasons += [
            f"{r['type']} {r['name']} would be DELETED" + ("; it is protected" if r.get("protect") else "")
            for r in self._removed_stores()
        ]
        return reasons + namespace_deletions(self.removed, self.changed)

    @property
    def node_replacements(self) -> list[str]:
        """Nodes the change replaces, evicting their running pods: an autoscaling engine switch."""
        return engine_switches(self.removed, self.added)

    @property
    def protected_data_loss(self) -> bool:
        return any(c.destroys_data and c.protected for c in self.changed) or any(
            r.get("protect") for r in self._removed_stores()
        )

    def blockers(self, acknowledged: bool) -> list[str]:
        """What fails the pull-request check for this stack, beyond the head's own exit code."""
        out = [
            f"{c.type} {c.name}: replacing it creates a second resource named {c.name_clash!r} before the "
            "old one is deleted; give it a generated name or deleteBeforeReplace"
            for c in self.changed
            if c.name_clash
        ]
        out += [f"{c.type} {c.name}: {why}" for c in self.changed for why in c.impossible]
        if namespace_deletions(self.removed, self.changed) and not acknowledged:
            out.append(
                f"a namespace would be deleted with everything in it; label the pull request `{ACK_LABEL}` "
                "once its data is safe, or keep it (kubernetes.trainingNamespace, kubernetes.teams)"
            )
        if self.node_replacements and not acknowledged:
            out.append(
                f"the autoscaling engine switch replaces the GPU nodes and evicts running GPU pods; label the pull "
                f"request `{ACK_LABEL}` once running jobs are checkpointed or drained"
            )
        if self.protected_data_loss and not acknowledged:
            out.append(
                f"a protected data store would be replaced or deleted; label the pull request "
                f"`{ACK_LABEL}` once the data is safe"
            )
        if self.failure:
            out.append(f"the head could not be planned: {self.failure}")
        return out


def load_bundle(path: Path) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """A plan JSON file, or a bundle from `plan --all-stacks`: stack -> plan, and stack -> failure.

    Read within a size cap (a device or an endless pipe is refused), parsed within a nesting depth and checked
    against the plan schema before any field is used: bad input is one line naming the file and the path."""
    where = str(path)
    what = "plan JSON file (`python -m blueprints plan --format json`)"
    data = parse_json(read_text(path, PLAN_JSON_BYTES, where, what), where, what)
    check_plan_json(data, where)
    plans = data["plans"] if "plans" in data else [data]
    return {p["stack"]: p for p in plans}, {f["stack"]: f["error"] for f in data.get("failures", [])}


def load_plans(path: Path) -> dict[str, dict[str, Any]]:
    return load_bundle(path)[0]


def _parsed(value: Any) -> Any:
    """Providers take policies and tag maps as JSON text; compare what the text means, not its key order."""
    if isinstance(value, str) and value[:1] in "{[":
        if json_depth(value) > MAX_JSON_DEPTH:  # compared as the text it is: no recursion over it
            return value
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _leaf_changes(before: Any, after: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    before, after = _parsed(before), _parsed(after)
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in sorted(set(before) | set(after)):
            yield from _leaf_changes(before.get(key), after.get(key), f"{path}.{key}" if path else key)
    elif before != after:
        yield path, before, after


def _under(path: str, patterns: Sequence[str]) -> bool:
    """Pulumi option paths (ignoreChanges, replaceOnChanges): a path, a parent of it, or "*"."""
    return any(p == "*" or path == p or path.startswith(p + ".") or path.startswith(p + "[") for p in patterns)


def _at(inputs: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted input path ("metadata.name"), or None."""
    value: Any = inputs
    for key in path.split("."):
        value = _parsed(value)
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:39] + "…"


def _change(old: Mapping[str, Any], new: Mapping[str, Any]) -> Change | None:
    options = new.get("options") or {}
    leaves = list(_leaf_changes(old["inputs"], new["inputs"], ""))
    if not leaves:
        return None
    ignore = options.get("ignoreChanges") or []
    rules: ReplacementRules | None = replacement_rules().get(new["type"])
    change = Change(
        new["urn"],
        new["type"],
        new["name"],
        [c for c in leaves if not _under(c[0], ignore)],
        ignored=[c for c in leaves if _under(c[0], ignore)],
        protected=bool(old.get("protect")),
        data_store=bool(rules and rules.data_store),
        delete_before_replace=bool(options.get("deleteBeforeReplace")),
    )
    for path, before, after in change.inputs:
        if rules and rules.forcing(path):
            change.replaces.append(
                f"{path}: {_short(before)} -> {_short(after)} forces replacement (provider schema: {rules.source})"
            )
        elif _under(path, options.get("replaceOnChanges") or []):
            change.replaces.append(f"{path}: {_short(before)} -> {_short(after)} (resource option replaceOnChanges)")
    change.impossible = impossible_in_place(new["type"], old["inputs"], new["inputs"], change.replaced)
    named = rules.deletes_first_when_named if rules else None
    if change.replaced and named:
        namespace = named.rpartition(".")[0] + ".namespace" if "." in named else "namespace"
        same_name = _at(old["inputs"], named) == _at(new["inputs"], named)
        same_namespace = _at(old["inputs"], namespace) == _at(new["inputs"], namespace)
        change.delete_before_replace |= isinstance(_at(new["inputs"], named), str) and same_name and same_namespace
    shrink = rules.replaces_when_shrinking if rules else None
    if shrink and not _under(shrink, ignore):
        b, a = old["inputs"].get(shrink), new["inputs"].get(shrink)
        if isinstance(b, (int, float)) and isinstance(a, (int, float)) and a < b:
            change.replaces.append(f"{shrink} shrinks: {b} -> {a} (it can only grow in place)")
    if change.replaced and rules and rules.fixed_name and not change.delete_before_replace:
        name = new["inputs"].get(rules.fixed_name)
        if isinstance(name, str) and name == old["inputs"].get(rules.fixed_name):
            change.name_clash = name
    return change


def _finding_key(finding: Mapping[str, Any]) -> tuple:
    return finding["policy"], finding.get("urn"), finding["message"]


def _cost_of(plan: Mapping[str, Any], resource: str) -> float:
    return sum(i["usdPerHour"] or 0.0 for i in plan["cost"].get("items", []) if i["resource"] == resource)


def _ignored_count_cost(change: Change, base: Mapping[str, Any], head: Mapping[str, Any]) -> float:
    """The engine keeps the deployed node count when the count is ignored: the head's estimate priced
    the new count, so take the difference back out. A node group's cost items (instances, their disks)
    are linear in its count, so the head's items are rescaled to the deployed count; other in-place
    changes (an ACK pool's instance type) keep their new price."""
    counts = [
        (b, a)
        for path, b, a in change.ignored
        if path.split(".")[-1] == "desiredSize" and isinstance(b, int) and isinstance(a, int)
    ]
    if not counts:
        return 0.0
    deployed, declared = counts[0]
    head_cost = _cost_of(head, change.name)
    if declared == 0:  # nothing to rescale: the deployed group as the base priced it
        return _cost_of(base, change.name) - head_cost
    return head_cost * (deployed / declared) - head_cost


def worst_case_hourly(plan: Mapping[str, Any]) -> float:
    """$/h with every node group (and the system group) at maxNodes: what the budget must survive.
    Node instances are priced at maxNodes; their root volumes are left out (a few cents per node)."""
    cost, resolved = plan["cost"], plan.get("resolved") or {}
    groups_ = {r["name"] for r in plan["resources"] if r["type"] in NODE_GROUP_TYPES}
    fixed = cost["hourlyUsd"] - sum(i["usdPerHour"] or 0.0 for i in cost.get("items", []) if i["resource"] in groups_)
    groups = list(resolved.get("nodeGroups") or []) + ([resolved["systemNodes"]] if resolved.get("systemNodes") else [])
    return round(fixed + sum((g.get("usdPerHour") or 0.0) * g["nodes"]["max"] for g in groups), 4)


def _budget(plan: Mapping[str, Any] | None) -> float | None:
    return plan["cost"]["budget"]["monthlyLimitUsd"] if plan else None


def diff_stack(
    stack: str, base: Mapping[str, Any] | None, head: Mapping[str, Any] | None, failure: str = ""
) -> StackDiff:
    """One stack's diff: failed or removed on the head, else resources, cost and findings compared."""
    if head is None and failure:
        return _failed_stack(stack, base, failure)
    if head is None:
        return _removed_stack(stack, base)
    before, after = _resources_by_urn(base, head)
    result = _stack_diff(stack, base, head)
    result.added = [after[u] for u in after if u not in before]
    result.removed = [before[u] for u in before if u not in after]
    _diff_resources(result, before, after, base, head)
    _diff_findings(result, base, head)
    if base is not None and _has_changes(result):
        result.status = "changed"
    return result


def _failed_stack(stack: str, base: Mapping[str, Any] | None, failure: str) -> StackDiff:
    """The head could not be planned: the base's cost on both sides, exit code 2."""
    return StackDiff(
        stack,
        "failed",
        failure=failure,
        exit_code=2,
        hourly_before=base["cost"]["hourlyUsd"] if base else 0.0,
        hourly_after=base["cost"]["hourlyUsd"] if base else 0.0,
    )


def _removed_stack(stack: str, base: Mapping[str, Any]) -> StackDiff:
    """The stack is gone from the head: every base resource removed, its cost saved."""
    return StackDiff(
        stack,
        "removed",
        removed=list(base["resources"]),
        budget_before=_budget(base),
        hourly_before=base["cost"]["hourlyUsd"],
        worst_before=worst_case_hourly(base),
        hours_per_month=base["cost"]["hoursPerMonth"],
    )


def _resources_by_urn(base: Mapping[str, Any] | None, head: Mapping[str, Any]) -> tuple[dict, dict]:
    """Both sides' resources by URN, a head resource aliased to a base URN keyed by that URN."""
    before = {r["urn"]: r for r in (base or {}).get("resources", [])}
    after = {r["urn"]: r for r in head["resources"]}
    # A resource whose URN changed but that names its old URN as an alias is the same resource to the
    # engine (no delete and create): key it by the base's URN.
    for urn, resource in list(after.items()):
        old_urn = next((a for a in resource.get("aliases") or () if a in before and a not in after), None)
        if urn not in before and old_urn:
            after[old_urn] = dict(after.pop(urn), urn=old_urn)
    return before, after


def _stack_diff(stack: str, base: Mapping[str, Any] | None, head: Mapping[str, Any]) -> StackDiff:
    """The diff before resources are compared: both sides' cost, budget and the head's findings."""
    return StackDiff(
        stack,
        "added" if base is None else "unchanged",
        hourly_before=base["cost"]["hourlyUsd"] if base else 0.0,
        hourly_after=head["cost"]["hourlyUsd"],
        worst_before=worst_case_hourly(base) if base else 0.0,
        worst_after=worst_case_hourly(head),
        budget_before=_budget(base),
        budget_after=_budget(head),
        hours_per_month=head["cost"]["hoursPerMonth"],
        findings=list(head["findings"]),
        exit_code=head["exitCode"],
    )


def _diff_resources(
    result: StackDiff, before: dict, after: dict, base: Mapping[str, Any] | None, head: Mapping[str, Any]
) -> None:
    """Resources on both sides: changed or ignored, the cost of ignored count changes added back."""
    for urn in after.keys() & before.keys():
        change = _change(before[urn], after[urn])
        if change is None:
            continue
        if change.ignored and not change.replaced:
            result.hourly_after += _ignored_count_cost(change, base, head)
        (result.changed if change.inputs else result.ignored).append(change)
    result.hourly_after = round(result.hourly_after, 4)
    result.changed.sort(key=lambda c: (not c.destroys_data, not c.replaced, c.type, c.name))


def _diff_findings(result: StackDiff, base: Mapping[str, Any] | None, head: Mapping[str, Any]) -> None:
    """Findings the head brings, and those it resolves."""
    old_findings = {_finding_key(f) for f in (base or {}).get("findings", [])}
    new_findings = {_finding_key(f) for f in head["findings"]}
    result.new_findings = [f for f in head["findings"] if _finding_key(f) not in old_findings]
    result.resolved_findings = [f for f in (base or {}).get("findings", []) if _finding_key(f) not in new_findings]


def _has_changes(result: StackDiff) -> bool:
    """Whether anything a reviewer sees differs: resources, cost, findings or budget."""
    return bool(
        result.added
        or result.removed
        or result.changed
        or result.hourly_delta
        or result.new_findings
        or result.resolved_findings
        or result.budget_changed
    )


def diff_plans(
    base: Mapping[str, Mapping[str, Any]],
    head: Mapping[str, Mapping[str, Any]],
    head_failures: Mapping[str, str] | None = None,
    progress=None,
) -> list[StackDiff]:
    """Every stack of either side; ``progress(items, what)`` may wrap the loop (the CLI's bar on a TTY)."""
    failures = dict(head_failures or {})
    stacks = sorted(set(base) | set(head) | set(failures))
    stacks = progress(stacks, "diffing") if progress else stacks
    return [diff_stack(s, base.get(s), head.get(s), failures.get(s, "")) for s in stacks]


def check_exit_code(diffs: Sequence[StackDiff], acknowledged: bool) -> int:
    """1 when the pull request must not merge as it is, the verdict the comment states: blockers in any stack
    (see StackDiff.blockers), or a head plan that itself fails (mandatory findings, blocking readiness gaps)."""
    return EXIT_FINDINGS if any(d.blockers(acknowledged) or d.exit_code for d in diffs) else EXIT_OK
