"""Verdicts of the plan diff beyond replacements: in-place changes the service refuses, and namespace deletions.

An impossible change is an error whatever the pull request acknowledges: `pulumi up` would fail at the API (a CPFS
shrink) or the provider would quietly replace the store to honour it (an FSx shrink). A namespace deletion takes
everything in it (claims, secrets, jobs and their checkpoints in flight), so it needs the same acknowledgement as a
data store (https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/#deleting-a-namespace is
"deletes everything under the namespace"; read 2026-11-24). An autoscaling engine switch (cluster-autoscaler <->
karpenter) deletes the GPU nodes' owners (managed node groups, NodePools) and creates the other engine's: the nodes are
replaced and running GPU pods evicted (catalog/node_owners.yaml), so it needs the same acknowledgement.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from catalog.impossible_changes import one_way_inputs
from catalog.node_owners import node_owners

NAMESPACE = "kubernetes:core/v1:Namespace"


def impossible_in_place(type_: str, old: Mapping[str, Any], new: Mapping[str, Any], replaced: bool) -> list[str]:
    """Why this update cannot happen in place: inputs that move the way their service refuses. A resource
    replaced for another reason starts afresh, so nothing is impossible about it."""
    if replaced:
        return []
    out = []
    for rule in one_way_inputs().get(type_, ()):
        before, after = old.get(rule.input), new.get(rule.input)
        if rule.applies(new) and rule.refused(before, after):
            out.append(f"{rule.input}: {before} -> {after} is impossible: {rule.what} ({rule.source})")
    return out


def _namespace_name(resource: Mapping[str, Any]) -> str:
    return str((resource.get("inputs") or {}).get("metadata", {}).get("name") or resource.get("name"))


def namespace_deletions(removed: Sequence[Mapping[str, Any]], changed: Sequence[Any]) -> list[str]:
    """Namespaces the change deletes (removed, or replaced under a new name): everything in them goes too."""
    out = [
        f"{NAMESPACE} {_namespace_name(r)} would be DELETED with everything in it (claims, secrets, jobs)"
        for r in removed
        if r["type"] == NAMESPACE
    ]
    out += [
        f"{NAMESPACE} {c.name} would be REPLACED ({'; '.join(c.replaces)}): the old namespace is deleted with "
        "everything in it"
        for c in changed
        if c.type == NAMESPACE and c.replaced
    ]
    return out


def _owner_name(resource: Mapping[str, Any]) -> str:
    """A Kubernetes object by its metadata.name (the NodePool `gpu`), a cloud resource by its Pulumi name."""
    return str((resource.get("inputs") or {}).get("metadata", {}).get("name") or resource["name"])


def engine_switches(removed: Sequence[Mapping[str, Any]], added: Sequence[Mapping[str, Any]]) -> list[str]:
    """The autoscaling engine switch: node owners of one engine deleted while another engine's are created. Each
    deleted owner's nodes are drained and terminated, so running GPU pods are evicted; the new engine launches new
    nodes only for the pods then pending."""
    owners = node_owners()
    gone = [(owners[r["type"]], r) for r in removed if r["type"] in owners]
    new = [(owners[r["type"]], r) for r in added if r["type"] in owners]
    out = []
    for owner, resource in gone:
        created = [(o, r) for o, r in new if o.engine != owner.engine]
        if not created:
            continue
        to = created[0][0]
        names = ", ".join(_owner_name(r) for _, r in created)
        out.append(
            f"autoscaling engine switch {owner.engine} -> {to.engine}: {owner.kind} {_owner_name(resource)} "
            f"({resource['type']}) is DELETED and {to.kind} {names} created: its nodes are replaced and running "
            f"GPU pods are evicted ({owner.on_delete}; {owner.source})"
        )
    return out
