"""One demonstration per MUST item of the checklist: what it applies, what it waits for (bounded), what it observes.

A demonstration raises ItemFailed with what it saw when the item is not shown; everything it applied and observed,
with UTC timestamps, goes into its Record, which becomes the item's evidence file.
"""

from __future__ import annotations

import datetime
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from catalog.ai_conformance import table
from components.kubernetes.fabric import CONTROLLER_NAMESPACE as JOBSET_NAMESPACE
from components.kubernetes.nodes import NODE_GROUP_LABEL

from . import manifests as m
from .kubeapi import ApiError, Client
from .target import Target

# Envoy Gateway labels the Service of a Gateway's proxies with its Gateway (envoyproxy/gateway
# internal/gatewayapi/translator.go: OwningGatewayNameLabel, OwningGatewayNamespaceLabel).
OWNING_GATEWAY = "gateway.envoyproxy.io/owning-gateway-name"
OWNING_GATEWAY_NS = "gateway.envoyproxy.io/owning-gateway-namespace"
GANG_SIZE = 2
GPU_LINE = re.compile(r"^GPU \d+:", re.MULTILINE)
DEVICE_LINE = re.compile(r"^/dev/nvidia\d+$", re.MULTILINE)


class ItemFailed(Exception):
    """The item was not shown; the message says what was seen."""


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Record:
    item: str
    started: str = ""
    finished: str = ""
    status: str = ""  # shown | failed
    summary: str = ""
    seconds: float = 0.0
    applied: list[dict[str, Any]] = field(default_factory=list)
    observed: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Context:
    api: Client
    target: Target
    run: str
    timeout_s: float = 300.0
    scale_timeout_s: float = 900.0
    poll_s: float = 5.0
    hpa_metric: str = m.MODEL_METRIC
    applied_log: list[dict[str, Any]] = field(default_factory=list)
    """Every object applied in this run (all items), for the cleanup and the schema test."""
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep

    def apply(self, rec: Record, obj: dict[str, Any]) -> dict[str, Any]:
        rec.applied.append({"at": utc_now(), "manifest": obj})
        self.applied_log.append(obj)
        return self.api.apply(obj)

    def observe(self, rec: Record, what: str, value: Any) -> Any:
        rec.observed.append({"at": utc_now(), "what": what, "value": value})
        return value

    def wait(self, rec: Record, what: str, probe: Callable[[], tuple[bool, Any]], timeout_s: float | None = None):
        """Poll ``probe`` (-> (done, what it saw)) until done or the timeout; the last sighting is recorded."""
        limit = self.timeout_s if timeout_s is None else timeout_s
        deadline = self.clock() + limit
        while True:
            done, seen = probe()
            if done:
                return self.observe(rec, what, seen)
            if self.clock() >= deadline:
                self.observe(rec, f"{what} (timed out)", seen)
                raise ItemFailed(f"{what}: not within {limit:g}s; last seen: {_short(seen)}")
            self.sleep(self.poll_s)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 200 else text[:197] + "..."


def _condition(obj: dict[str, Any] | None, kind: str) -> str | None:
    for cond in ((obj or {}).get("status") or {}).get("conditions") or []:
        if cond.get("type") == kind:
            return cond.get("status")
    return None


def _finished_pod(ctx: Context, name: str, namespace: str) -> Callable[[], tuple[bool, Any]]:
    def probe():
        pod = ctx.api.get("v1", "Pod", name, namespace) or {}
        phase = (pod.get("status") or {}).get("phase", "absent")
        return phase in ("Succeeded", "Failed"), {
            "pod": name,
            "phase": phase,
            "node": pod.get("spec", {}).get("nodeName"),
        }

    return probe


def _prometheus(ctx: Context, query: str) -> Callable[[], tuple[bool, Any]]:
    t = ctx.target

    def probe():
        answer = ctx.api.proxy(
            t.monitoring_namespace, t.prometheus_service, t.prometheus_port, "/api/v1/query", query={"query": query}
        )
        if answer.status != 200:
            return False, {"query": query, "http": answer.status}
        result = (answer.json().get("data") or {}).get("result") or []
        return bool(result), {"query": query, "series": len(result), "first": result[0] if result else None}

    return probe


# --- the demonstrations ----------------------------------------------------------------------------------------------


def dra_support(ctx: Context, rec: Record) -> str:
    answer = ctx.api.request("GET", "/apis/resource.k8s.io")
    versions = [v.get("version") for v in (answer.json() or {}).get("versions") or []] if answer.status == 200 else []
    ctx.observe(rec, "API group resource.k8s.io served versions", versions)
    if "v1" not in versions:
        raise ItemFailed(f"resource.k8s.io/v1 is not served (HTTP {answer.status}, versions {versions})")
    classes = ctx.api.request("GET", "/apis/resource.k8s.io/v1/deviceclasses")
    names = [i["metadata"]["name"] for i in (classes.json() or {}).get("items") or []] if classes.status == 200 else []
    ctx.observe(rec, "DeviceClasses", names)
    return f"resource.k8s.io/v1 served; {len(names)} DeviceClass(es)"


def secure_accelerator_access(ctx: Context, rec: Record) -> str:
    given = m.access_pod("gpu-requested", ctx.target, requested=True)
    bare = m.access_pod("gpu-not-requested", ctx.target, requested=False)
    for pod in (given, bare):
        ctx.apply(rec, pod)
    for pod in (given, bare):
        ctx.wait(
            rec,
            f"pod {pod['metadata']['name']} finished",
            _finished_pod(ctx, pod["metadata"]["name"], m.NAMESPACE),
            ctx.scale_timeout_s,
        )
    given_log = ctx.observe(rec, "log of gpu-requested", ctx.api.log("gpu-requested", m.NAMESPACE))
    bare_log = ctx.observe(
        rec,
        "log of gpu-not-requested (NVIDIA_VISIBLE_DEVICES=all, no GPU request)",
        ctx.api.log("gpu-not-requested", m.NAMESPACE),
    )
    if not GPU_LINE.search(given_log):
        raise ItemFailed("the pod that requested a GPU lists none (nvidia-smi -L): the control is not shown")
    if GPU_LINE.search(bare_log) or DEVICE_LINE.search(bare_log):
        raise ItemFailed("the pod without a GPU request sees a GPU (NVIDIA_VISIBLE_DEVICES=all was honoured)")
    return "the GPU pod lists its GPU; the pod without a request that sets NVIDIA_VISIBLE_DEVICES=all sees none"


def gang_scheduling(ctx: Context, rec: Record) -> str:
    t = ctx.target
    if not t.queue_namespace:
        raise ItemFailed("the stack has no team namespace with a Kueue LocalQueue (kubernetes.teams, queueing)")
    job = ctx.apply(rec, m.gang_job("gang", t, GANG_SIZE))
    uid = (job.get("metadata") or {}).get("uid", "")

    def admitted():
        workloads = [
            w
            for w in ctx.api.list("kueue.x-k8s.io/v1beta2", "Workload", t.queue_namespace)
            if any(
                o.get("kind") == "Job" and o.get("name") == "gang" and (not uid or o.get("uid") == uid)
                for o in w["metadata"].get("ownerReferences") or []
            )
        ]
        state = [
            {
                "workload": w["metadata"]["name"],
                "Admitted": _condition(w, "Admitted"),
                "podSets": [p.get("count") for p in w.get("spec", {}).get("podSets") or []],
            }
            for w in workloads
        ]
        return any(s["Admitted"] == "True" for s in state), state

    ctx.wait(rec, "Kueue admitted the job's Workload", admitted, ctx.scale_timeout_s)

    def all_running():
        pods = ctx.api.list("v1", "Pod", t.queue_namespace, selector="batch.kubernetes.io/job-name=gang")
        seen = [
            {
                "pod": p["metadata"]["name"],
                "phase": p.get("status", {}).get("phase"),
                "node": p.get("spec", {}).get("nodeName"),
                "started": p.get("status", {}).get("startTime"),
            }
            for p in pods
        ]
        up = [s for s in seen if s["phase"] in ("Running", "Succeeded") and s["node"]]
        return len(up) == GANG_SIZE, seen

    ctx.wait(rec, f"all {GANG_SIZE} GPU pods of the gang running", all_running, ctx.scale_timeout_s)
    return f"Kueue admitted the {GANG_SIZE}-pod GPU job whole; all its pods ran"


def cluster_autoscaling(ctx: Context, rec: Record) -> str:
    t = ctx.target
    selector = f"{NODE_GROUP_LABEL}={t.gpu_group}"
    before = ctx.api.list("v1", "Node", selector=selector)
    names = {n["metadata"]["name"] for n in before}
    hosts = [(n["metadata"].get("labels") or {}).get(m.HOSTNAME_LABEL, n["metadata"]["name"]) for n in before]
    ctx.observe(rec, f"nodes of group {t.gpu_group} before", sorted(names))
    ctx.apply(rec, m.scale_up_pod("scale-up", t, hosts))

    def on_new_node():
        pod = ctx.api.get("v1", "Pod", "scale-up", m.NAMESPACE) or {}
        node = pod.get("spec", {}).get("nodeName")
        now = sorted(n["metadata"]["name"] for n in ctx.api.list("v1", "Node", selector=selector))
        return bool(node) and node not in names, {"pod node": node, "group nodes": now}

    seen = ctx.wait(rec, "the pending GPU pod runs on a node added for it", on_new_node, ctx.scale_timeout_s)
    return f"the autoscaler added node {seen['pod node']} to group {t.gpu_group} for a pending GPU pod"


def pod_autoscaling(ctx: Context, rec: Record) -> str:
    name = "hpa-gpu"
    exposition = f'# TYPE {ctx.hpa_metric} gauge\n{ctx.hpa_metric}{{model_name="ai-conformance"}} 5\n'
    ctx.apply(rec, m.exporter(name, "pod_autoscaling", exposition, ctx.target, gpus=1))
    ctx.apply(rec, m.pod_monitor(name, "pod_autoscaling"))
    ctx.apply(rec, m.hpa(name, ctx.hpa_metric, 2))

    def scaled():
        hpa = ctx.api.get("autoscaling/v2", "HorizontalPodAutoscaler", name, m.NAMESPACE) or {}
        status = hpa.get("status") or {}
        seen = {
            "desiredReplicas": status.get("desiredReplicas"),
            "currentMetrics": status.get("currentMetrics"),
            "ScalingActive": _condition(hpa, "ScalingActive"),
        }
        return (status.get("desiredReplicas") or 0) >= 2 and seen["ScalingActive"] == "True", seen

    ctx.wait(rec, f"the HPA scales on {ctx.hpa_metric}", scaled, ctx.scale_timeout_s)

    def ready():
        deployment = ctx.api.get("apps/v1", "Deployment", name, m.NAMESPACE) or {}
        count = (deployment.get("status") or {}).get("readyReplicas") or 0
        return count >= 2, {"readyReplicas": count}

    ctx.wait(rec, "2 GPU pods ready", ready, ctx.scale_timeout_s)
    return f"the HPA scaled a GPU Deployment from 1 to 2 pods on the pods' {ctx.hpa_metric}"


def accelerator_metrics(ctx: Context, rec: Record) -> str:
    if not ctx.target.monitoring_namespace:
        raise ItemFailed("the stack installs no Prometheus (kubernetes.monitoring.enabled)")
    metrics = table()["judging"]["core_gpu_metrics"]
    for metric in metrics:
        ctx.wait(rec, f"Prometheus holds {metric}", _prometheus(ctx, metric))
    return f"Prometheus scraped DCGM's {', '.join(metrics)}"


def ai_service_metrics(ctx: Context, rec: Record) -> str:
    if not ctx.target.monitoring_namespace:
        raise ItemFailed("the stack installs no Prometheus (kubernetes.monitoring.enabled)")
    name = "service-metrics"
    exposition = f"# TYPE {m.SERVICE_METRIC} counter\n{m.SERVICE_METRIC} 42\n"
    ctx.apply(rec, m.exporter(name, "ai_service_metrics", exposition, ctx.target))
    ctx.apply(rec, m.pod_monitor(name, "ai_service_metrics"))
    query = f'{m.SERVICE_METRIC}{{namespace="{m.NAMESPACE}"}}'
    ctx.wait(rec, "Prometheus discovered and scraped the workload", _prometheus(ctx, query))
    return "Prometheus discovered a workload's PodMonitor and scraped its Prometheus-format metrics"


def ai_inference(ctx: Context, rec: Record) -> str:
    t = ctx.target
    if not t.serving_namespace:
        raise ItemFailed("the stack serves no model, so it declares no Gateway (serving.models)")
    name = "conformance-route"
    for obj in m.route_backend(name, t, ctx.run):
        ctx.apply(rec, obj)
    ctx.apply(rec, m.http_route(name, t, ctx.run))

    def accepted():
        route = ctx.api.get("gateway.networking.k8s.io/v1", "HTTPRoute", name, t.serving_namespace) or {}
        parents = (route.get("status") or {}).get("parents") or []
        state = [{c.get("type"): c.get("status") for c in p.get("conditions") or []} for p in parents]
        return any(s.get("Accepted") == "True" and s.get("ResolvedRefs") == "True" for s in state), state

    ctx.wait(rec, "the Gateway accepted the HTTPRoute", accepted)
    selector = f"{OWNING_GATEWAY}={t.gateway},{OWNING_GATEWAY_NS}={t.serving_namespace}"
    services = ctx.api.list("v1", "Service", selector=selector)
    if not services:
        raise ItemFailed(f"no Service of Gateway {t.serving_namespace}/{t.gateway}'s proxies ({selector})")
    svc = services[0]
    first = svc["spec"]["ports"][0]  # the service proxy names a port by its name (a single unnamed port: by number)
    ns, svc_name, port = svc["metadata"]["namespace"], svc["metadata"]["name"], first.get("name") or first["port"]

    def answered():
        answer = ctx.api.proxy(ns, svc_name, port, "/v1/models", headers={m.ROUTE_HEADER: ctx.run})
        return answer.status == 200 and ctx.run in answer.text, {"http": answer.status, "body": answer.text[:300]}

    ctx.wait(rec, f"GET /v1/models with {m.ROUTE_HEADER}: {ctx.run} through the Gateway", answered)
    other = ctx.api.proxy(ns, svc_name, port, "/v1/models")
    ctx.observe(
        rec,
        "the same request without the header (not routed to the backend)",
        {"http": other.status, "body": other.text[:300]},
    )
    if other.status == 200 and ctx.run in other.text:
        raise ItemFailed("the request without the header reached the backend: header-based routing not shown")
    return "the Gateway routed an OpenAI-style request by header to its backend, and only with the header"


def robust_controller(ctx: Context, rec: Record) -> str:
    pods = ctx.api.list("v1", "Pod", JOBSET_NAMESPACE)
    state = [
        {"pod": p["metadata"]["name"], "phase": p.get("status", {}).get("phase"), "Ready": _condition(p, "Ready")}
        for p in pods
    ]
    ctx.observe(rec, f"JobSet operator pods in {JOBSET_NAMESPACE}", state)
    if not state or any(s["Ready"] != "True" for s in state):
        raise ItemFailed(f"the JobSet operator's pods in {JOBSET_NAMESPACE} are not all ready: {_short(state)}")
    stored = ctx.apply(rec, m.jobset("conformance", ctx.target))
    mode = (stored.get("spec", {}).get("replicatedJobs") or [{}])[0].get("template", {}).get("spec", {})
    mode = mode.get("completionMode")
    # JobSet's defaulting webhook sets completionMode Indexed when unset (kubernetes-sigs/jobset
    # pkg/webhooks/jobset_webhook.go Default); the manifest leaves it unset, so the stored value is the webhook's.
    ctx.observe(rec, "completionMode the webhook set on the stored JobSet", mode)
    if mode != "Indexed":
        raise ItemFailed(f"the JobSet's defaulting webhook did not run (completionMode {mode!r}, expected Indexed)")

    def reconciled():
        jobs = ctx.api.list("batch/v1", "Job", m.NAMESPACE, selector="jobset.sigs.k8s.io/jobset-name=conformance")
        js = ctx.api.get("jobset.x-k8s.io/v1alpha2", "JobSet", "conformance", m.NAMESPACE)
        seen = {"jobs": sorted(j["metadata"]["name"] for j in jobs), "Completed": _condition(js, "Completed")}
        return len(jobs) == 2 and seen["Completed"] == "True", seen

    ctx.wait(rec, "the JobSet controller created its Jobs and completed the JobSet", reconciled)
    return "JobSet's operator pods ready, its webhook defaulted a JobSet, its controller reconciled it to Completed"


# Order: the GPU pods first (they bring a GPU node up for the metrics and the HPA); scale-up last.
DEMONSTRATIONS: dict[str, Callable[[Context, Record], str]] = {
    "dra_support": dra_support,
    "secure_accelerator_access": secure_accelerator_access,
    "gang_scheduling": gang_scheduling,
    "accelerator_metrics": accelerator_metrics,
    "ai_service_metrics": ai_service_metrics,
    "pod_autoscaling": pod_autoscaling,
    "ai_inference": ai_inference,
    "robust_controller": robust_controller,
    "cluster_autoscaling": cluster_autoscaling,
}

__all__ = ["ApiError", "Context", "DEMONSTRATIONS", "ItemFailed", "Record"]
