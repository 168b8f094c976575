"""One run of the evidence kit: clean what an earlier run left, run each MUST item's demonstration with progress
on standard output, write each item's evidence file and the PRODUCT.yaml draft, and clean up (also on failure,
Ctrl-C or SIGTERM). Exit 0 when every MUST item was shown, 1 naming those that were not.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any, Callable

import yaml

from catalog.ai_conformance import Checklist, checklist

from ..errors import BlueprintError
from . import manifests as m
from .items import DEMONSTRATIONS, Context, ItemFailed, Record, utc_now
from .kubeapi import ApiError, Client
from .product import draft, evidence_path, must_items
from .target import Target

# Objects the kit puts outside its own namespace (which the cleanup deletes whole): (namespace of the target, kind).
_OUTSIDE = (
    ("queue_namespace", "batch/v1", "Job"),
    ("serving_namespace", "gateway.networking.k8s.io/v1", "HTTPRoute"),
    ("serving_namespace", "apps/v1", "Deployment"),
    ("serving_namespace", "v1", "Service"),
)


def order(listed: Checklist) -> list[str]:
    """The checklist's MUST items in the kit's order (those it has no demonstration for last)."""
    musts = list(must_items(listed))
    return [i for i in DEMONSTRATIONS if i in musts] + [i for i in musts if i not in DEMONSTRATIONS]


def cleanup(api: Client, target: Target) -> list[str]:
    """Delete everything the kit labels (this run's or an earlier one's): what was deleted, and any refusal."""
    done = []
    for attr, api_version, kind in _OUTSIDE:
        namespace = getattr(target, attr)
        if not namespace:
            continue
        try:
            for obj in api.list(api_version, kind, namespace, selector=m.LABEL_SELECTOR):
                api.delete(api_version, kind, obj["metadata"]["name"], namespace)
                done.append(f"{kind} {namespace}/{obj['metadata']['name']}")
        except ApiError as error:
            done.append(f"not deleted: {error}")
    try:
        if api.delete("v1", "Namespace", m.NAMESPACE):
            done.append(f"Namespace {m.NAMESPACE}")
    except ApiError as error:
        done.append(f"not deleted: {error}")
    return done


def leftovers(api: Client, target: Target) -> list[str]:
    """What of the kit's is still on the cluster (deleted objects may take a while to go: finalizers, pods)."""
    left = [f"Namespace {m.NAMESPACE}"] if api.get("v1", "Namespace", m.NAMESPACE) is not None else []
    for attr, api_version, kind in _OUTSIDE:
        namespace = getattr(target, attr)
        if namespace:
            objs = api.list(api_version, kind, namespace, selector=m.LABEL_SELECTOR)
            left += [f"{kind} {namespace}/{o['metadata']['name']}" for o in objs]
    return left


def _write_yaml(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=10_000, allow_unicode=True), encoding="utf-8")


def _evidence(rec: Record, listed: Checklist, target: Target, version: str) -> dict[str, Any]:
    item = next(i for i in listed.items if i.id == rec.item)
    return {
        "item": rec.item,
        "level": item.level,
        "description": item.description,
        "checklist": f"cncf/k8s-ai-conformance {listed.path} at {listed.commit}",
        "stack": target.stack,
        "cluster": version,
        "status": rec.status,
        "summary": rec.summary,
        "started": rec.started,
        "finished": rec.finished,
        "applied": rec.applied,
        "observed": rec.observed,
    }


def _on_term(signum, frame):  # noqa: ARG001 - the signal handler's signature
    raise KeyboardInterrupt


def server_version(api: Client) -> str:
    """The API server's gitVersion (GET /version), "" when it does not answer."""
    try:
        answer = api.request("GET", "/version")
        return str(answer.json().get("gitVersion") or "") if answer.status == 200 else ""
    except (ApiError, ValueError, AttributeError):
        return ""


def _demonstrate(ctx: Context, item: str) -> Record:
    """Run one item's demonstration; its Record says whether it was shown and what was seen."""
    rec = Record(item, started=utc_now())
    began = ctx.clock()
    try:
        demo = DEMONSTRATIONS.get(item)
        if demo is None:
            raise ItemFailed("this kit has no demonstration for the item")
        rec.summary, rec.status = demo(ctx, rec), "shown"
    except (ItemFailed, ApiError) as error:
        rec.summary, rec.status = str(error), "failed"
    rec.finished = utc_now()
    rec.seconds = ctx.clock() - began
    return rec


def _write_outputs(out, listed, target, version, items, results, summary, interrupted) -> None:
    """run.yaml, an evidence file for each item the run did not reach, and the PRODUCT.yaml draft."""
    summary["finished"] = utc_now()
    summary["items"] = {i: ("shown" if results[i][0] else "failed") if i in results else "not run" for i in items}
    for item in (i for i in items if i not in results):  # the run stopped first: say so in the evidence too
        rec = Record(item, started="", finished="", status="not run")
        rec.summary = "not run: " + (
            "the run was interrupted" if interrupted else f"setup failed: {summary.get('setup')}"
        )
        results[item] = (False, rec.summary)
        _write_yaml(out / evidence_path(item), _evidence(rec, listed, target, version))
    _write_yaml(out / "run.yaml", summary)
    (out / "PRODUCT.yaml").write_text(draft(listed, version, results), encoding="utf-8")


def run_kit(
    api: Client,
    target: Target,
    out: Path,
    emit: Callable[[str], None] = print,
    **options: Any,
) -> int:
    listed = checklist(target.minor)
    if listed is None:
        raise BlueprintError("--stack", f"CNCF publishes no AI Conformance checklist for Kubernetes {target.minor}")
    version = server_version(api)
    if not version:
        emit(f"error: the API server {api.connection.server} did not answer GET /version; nothing was applied")
        return 1
    run = "run-" + time.strftime("%Y%m%d%H%M%S", time.gmtime())
    ctx = Context(api=api, target=target, run=run, **options)
    items = order(listed)
    emit(f"AI Conformance {listed.minor} on {target.stack} ({version}): {len(items)} MUST items; evidence in {out}")
    results: dict[str, tuple[bool, str]] = {}
    summary: dict[str, Any] = {"stack": target.stack, "cluster": version, "run": run, "started": utc_now()}
    previous = signal.signal(signal.SIGTERM, _on_term)
    interrupted = False
    try:
        left = cleanup(api, target)
        if left:
            emit(f"removed what an earlier run left: {', '.join(left)}")
        setup = Record("setup")
        ctx.wait(setup, "what an earlier run left is gone", lambda: (not (left := leftovers(api, target)), left))
        ctx.apply(setup, m.namespace())
        summary["preparation"] = {"applied": setup.applied, "observed": setup.observed}
        for n, item in enumerate(items, 1):
            emit(f"[{n}/{len(items)}] {item}: running")
            rec = _demonstrate(ctx, item)
            results[item] = (rec.status == "shown", rec.summary)
            _write_yaml(out / evidence_path(item), _evidence(rec, listed, target, version))
            mark = "shown" if rec.status == "shown" else "FAILED"
            emit(f"[{n}/{len(items)}] {item}: {mark} ({rec.seconds:.0f}s): {rec.summary}")
    except (ItemFailed, ApiError) as error:  # the setup failed: no item ran
        emit(f"error: setup: {error}")
        summary["setup"] = str(error)
    except KeyboardInterrupt:
        interrupted = True
        emit("interrupted: cleaning up")
    finally:
        signal.signal(signal.SIGTERM, previous)
        summary["cleanup"] = cleanup(api, target)
        emit(f"cleaned up: {', '.join(summary['cleanup']) or 'nothing to delete'}")
    _write_outputs(out, listed, target, version, items, results, summary, interrupted)
    failed = [i for i in items if not results.get(i, (False, ""))[0]]
    if failed:
        why = "interrupted; not shown" if interrupted else "not shown"
        emit(f"{why}: {', '.join(failed)} (see {out}/evidence/); PRODUCT.yaml draft written")
        return 1
    emit(f"every MUST item shown; PRODUCT.yaml draft in {out} (fill its metadata placeholders before submitting)")
    return 0
