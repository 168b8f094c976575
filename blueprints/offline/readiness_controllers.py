"""Readiness: does every controller the plan installs have every kind it watches, installed before it starts?

A controller built on controller-runtime lists and watches each kind it registers; when a kind's CRD is not served
its cache never syncs and the manager exits, so the Deployment never becomes ready (the Inference Extension's
endpoint picker v1.0.2 watches InferenceObjective as well as InferencePool). Some controllers look first and skip a
missing kind until restarted (Envoy AI Gateway v1.1.0's InferencePool controller): the kind is then never served.
Either way the controller cannot do its job, so every gap is blocking.

What each controller watches at its pinned version, and which CRDs its chart installs itself, is catalog data with
sources (catalog/controllers.yaml). A kind is satisfied by the controller's own chart, by a CRD the plan registers,
or by another release whose chart installs that group, and then only when that provider is ordered before the
controller. Pulumi creates a resource after its dependencies and after its parent's dependencies (the SDK registers
a child only once its parent's URN has resolved, and a resource only once its depends_on have: pulumi 3.272.0
sdk/python/lib/pulumi/runtime/resource.py prepare_resource), so the order is the closure of both. For a controller
the platform declares itself (a Deployment, not a chart), its ServiceAccount must also be allowed to list and watch
each kind (a cache's informers list, then watch).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Sequence

from catalog.controllers import Controller, Kind, for_chart, for_image
from components.kubernetes.mirror import split_image

from .engine import Registration
from .readiness import BLOCKING, HELM_RELEASE, POD_TEMPLATES, WARNING, Finding

CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
RBAC = "kubernetes:rbac.authorization.k8s.io/v1:"
ROLE, CLUSTER_ROLE = f"{RBAC}Role", f"{RBAC}ClusterRole"
ROLE_BINDING, CLUSTER_ROLE_BINDING = f"{RBAC}RoleBinding", f"{RBAC}ClusterRoleBinding"
CACHE_VERBS = ("list", "watch")


def _image(ref: str) -> tuple[str, str]:
    """(repository path without its registry host, tag) of an image reference; the tag is "" when only a digest."""
    path = split_image(ref.split("@", 1)[0])[1]
    name, _, tag = path.rpartition(":") if ":" in path.rsplit("/", 1)[-1] else (path, "", "")
    return name, tag


def _installed(regs: Sequence[Registration]) -> list[tuple[Optional[Controller], Registration, str, str]]:
    """(row or None, registration, version, what it is) for each Helm release and each Deployment whose image is a
    catalogued controller."""
    found = []
    for r in regs:
        if r.type == HELM_RELEASE:
            name = r.inputs.get("name", "")
            found.append((for_chart(name), r, str(r.inputs.get("version", "")), f"chart {name}"))
        elif r.type in POD_TEMPLATES:
            pod = ((r.inputs.get("spec") or {}).get("template") or {}).get("spec") or {}
            for container in pod.get("containers") or []:
                path, tag = _image(container.get("image") or "")
                row = for_image(path)
                if row is not None:
                    name = (r.inputs.get("metadata") or {}).get("name")
                    found.append((row, r, tag, f"{POD_TEMPLATES[r.type]} {name}"))
    return found


def _before(by_urn: Mapping[str, Registration], reg: Registration) -> set[str]:
    """Every URN Pulumi creates before `reg`: its dependencies and its ancestors', transitively."""
    seen: set[str] = set()
    todo = [*reg.dependencies, reg.parent]
    while todo:
        urn = todo.pop()
        if not urn or urn in seen:
            continue
        seen.add(urn)
        if urn in by_urn:
            todo += [*by_urn[urn].dependencies, by_urn[urn].parent]
    return seen


def _watched(row: Controller, values: Mapping[str, Any]) -> list[Kind]:
    """The kinds the row lists, and those the release's values name (installed by the plan, not the chart)."""
    extra = [Kind(group=g, version=v, kind=k, origin="plan", file=f) for g, v, k, f in row.values_kinds(values)]
    return [*row.watches, *extra]


# What installs a kind: (registration, group, kind or None for a whole chart group, versions served or None).
Install = tuple[Registration, str, Optional[str], Optional[list[str]]]


def _installs(regs: Sequence[Registration]) -> list[Install]:
    """The CRDs the plan registers (with the versions they serve) and the groups releases' charts install."""
    out: list[Install] = []
    for r in regs:
        if r.type == CRD:
            spec = r.inputs.get("spec") or {}
            served = [v.get("name") for v in spec.get("versions") or [] if v.get("served", True)]
            out.append((r, spec.get("group", ""), (spec.get("names") or {}).get("kind"), served))
        elif r.type == HELM_RELEASE:
            inputs = r.inputs
            row = for_chart(inputs.get("name", ""))
            crds = row.chart_crds if row else None
            if crds and crds.installed(inputs.get("values") or {}):
                out += [(r, group, None, None) for group in crds.groups]
    return out


def _allowed(regs: Sequence[Registration], workload: Registration, kind: Kind) -> bool:
    """Whether the pod's ServiceAccount may list and watch the kind in its namespace (Role or ClusterRole)."""
    namespace = (workload.inputs.get("metadata") or {}).get("namespace") or "default"
    pod = workload.inputs["spec"]["template"]["spec"]
    account = pod.get("serviceAccountName") or "default"
    roles = {
        (r.type, (r.inputs.get("metadata") or {}).get("namespace"), (r.inputs.get("metadata") or {}).get("name")): r
        for r in regs
        if r.type in (ROLE, CLUSTER_ROLE)
    }
    verbs: set[str] = set()
    subject = ("ServiceAccount", account, namespace)
    for b in regs:
        if b.type not in (ROLE_BINDING, CLUSTER_ROLE_BINDING):
            continue
        meta, ref = b.inputs.get("metadata") or {}, b.inputs.get("roleRef") or {}
        if b.type == ROLE_BINDING and (meta.get("namespace") or "default") != namespace:
            continue
        subjects = [(s.get("kind"), s.get("name"), s.get("namespace", namespace)) for s in b.inputs.get("subjects", [])]
        if subject not in subjects:
            continue
        key = (ROLE, namespace, ref.get("name")) if ref.get("kind") == "Role" else (CLUSTER_ROLE, None, ref.get("name"))
        role = roles.get(key)
        for rule in (role.inputs.get("rules") or []) if role else []:
            groups, resources = rule.get("apiGroups") or [], rule.get("resources") or []
            if (kind.group in groups or "*" in groups) and (kind.resource in resources or "*" in resources):
                verbs |= set(rule.get("verbs") or [])
    return "*" in verbs or all(v in verbs for v in CACHE_VERBS)


def check(regs: Iterable[Registration]) -> list[Finding]:
    regs = list(regs)
    by_urn = {r.urn: r for r in regs}
    installs = _installs(regs)
    findings: list[Finding] = []
    for row, reg, version, what in _installed(regs):
        if row is None or row.version != version:
            recorded = f"recorded at {row.version}" if row else "not recorded"
            findings.append(
                Finding(
                    "controller-kinds-unread",
                    WARNING,
                    reg.name,
                    f"{what} {version}: the kinds it watches are {recorded} (catalog/controllers.yaml); whether its "
                    "CRDs are installed before it is unchecked",
                    "read the controller's source at that version and record its row in catalog/controllers.yaml",
                )
            )
            continue
        values = reg.inputs.get("values") or {}
        own = row.chart_crds if row.chart_crds and row.chart_crds.installed(values) else None
        before = _before(by_urn, reg)
        for kind in _watched(row, values):
            if kind.origin == "cluster" or (own and kind.group in own.groups):
                pass
            else:
                findings += _kind_gap(installs, reg, what, row, kind, before)
            if row.image and kind.resource and not _allowed(regs, reg, kind):
                findings.append(
                    Finding(
                        "controller-kind-rbac",
                        BLOCKING,
                        reg.name,
                        f"{what} ({row.name} {row.version}) watches {kind.kind} ({kind.file}) but its "
                        f"ServiceAccount may not {' and '.join(CACHE_VERBS)} {kind.resource}: its cache cannot sync "
                        "and it exits",
                        f"grant get, list and watch on {kind.resource} ({kind.group or 'core'}) to its ServiceAccount",
                    )
                )
    return findings


def _kind_gap(
    installs: Sequence[Install], reg: Registration, what: str, row: Controller, kind: Kind, before: set[str]
) -> list[Finding]:
    source = f"{row.read_from.repo}@{row.read_from.tag} {kind.file}"
    said = f"{what} ({row.name} {row.version}) watches {kind.kind} ({kind.api}; {source})"
    providers = [(r, served) for r, group, k, served in installs if group == kind.group and k in (None, kind.kind)]
    if not providers:
        message = f"{said}, and nothing in the plan installs its CRD: the controller cannot start"
        fix = f"register the {kind.kind} CRD ({kind.group}) in the plan and make the controller depend on it"
        return [Finding("controller-kind-missing", BLOCKING, reg.name, message, fix)]
    ordered = [(p, served) for p, served in providers if p.urn in before]
    if not ordered:
        names = ", ".join(p.name for p, _ in providers)
        message = f"{said}; its CRD ({names}) is not ordered before the controller, which may start first and fail"
        fix = f"make the controller (or its parent) depend on {names} (ResourceOptions depends_on)"
        return [Finding("controller-kind-order", BLOCKING, reg.name, message, fix)]
    if all(served is not None and kind.version not in served for _, served in ordered):
        names = ", ".join(p.name for p, _ in ordered)
        message = f"{said}; the CRD registered ({names}) does not serve {kind.version}: the controller cannot start"
        fix = f"install the {kind.kind} CRD from the controller's own release, which serves {kind.version}"
        return [Finding("controller-kind-version", BLOCKING, reg.name, message, fix)]
    return []
