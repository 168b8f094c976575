"""Every object the evidence kit applies, as plain dicts: one builder per object, labelled so that a re-run replaces
them (same names, server-side apply) and the cleanup finds them (LABEL_SELECTOR), whatever run left them.
Every pod runs the target's image (target.py: the acceptance check's CUDA image, as the stack deploys it).
"""

from __future__ import annotations

from typing import Any, Mapping

from components.kubernetes.nodes import GPU_RESOURCE

from .target import Target

MANAGED_BY = "blueprints-conformance"
ITEM_LABEL = "gpu-blueprints/conformance-item"
LABEL_SELECTOR = f"app.kubernetes.io/managed-by={MANAGED_BY}"
NAMESPACE = "ai-conformance"
"""The kit's own namespace: created by the run, deleted by the cleanup with everything in it."""
METRICS_PORT = 8000
# vLLM's queue gauge (vllm/v1/metrics/loggers.py at v0.12.0, as components/kubernetes/serving.py cites): the
# model-server metric the HPA demonstration scales on. Its value is held above the HPA's target.
MODEL_METRIC = "vllm:num_requests_waiting"
SERVICE_METRIC = "ai_conformance_requests_total"
ROUTE_HEADER = "x-ai-conformance"
HOSTNAME_LABEL = "kubernetes.io/hostname"  # a well-known label the kubelet sets on every node

# A metrics endpoint in the Prometheus exposition format; {body} is the exposition text.
_EXPORTER = """import http.server
BODY = {body!r}.encode()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Type", "text/plain; version=0.0.4"); self.end_headers()
        self.wfile.write(BODY)
http.server.HTTPServer(("", {port}), H).serve_forever()
"""
# An OpenAI-style model list that names the run: the inference route's backend.
_BACKEND = """import http.server, json
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({{"object": "list", "data": [{{"id": {run!r}, "object": "model"}}]}}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.end_headers()
        self.wfile.write(body)
http.server.HTTPServer(("", {port}), H).serve_forever()
"""


def labels(item: str, app: str | None = None) -> dict[str, str]:
    out = {"app.kubernetes.io/managed-by": MANAGED_BY, ITEM_LABEL: item}
    if app:
        out["app.kubernetes.io/name"] = app
    return out


def _meta(name: str, namespace: str | None, item: str, app: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": labels(item, app)}
    if namespace:
        meta["namespace"] = namespace
    return meta


def namespace() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta(NAMESPACE, None, "all")}


def _gpu_placement(target: Target) -> dict[str, Any]:
    spec: dict[str, Any] = {"tolerations": [dict(t) for t in target.gpu_tolerations]}
    if target.node_selector:
        spec["nodeSelector"] = target.node_selector
    return spec


def _container(
    target: Target, name: str, command: list[str], gpus: int = 0, env: Mapping[str, str] | None = None, port=None
):
    container: dict[str, Any] = {
        "name": name,
        "image": target.image,
        "command": command,
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "512Mi"}},
    }
    if gpus:
        container["resources"]["requests"][GPU_RESOURCE] = str(gpus)
        container["resources"]["limits"][GPU_RESOURCE] = str(gpus)
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    if port:
        container["ports"] = [{"name": "http", "containerPort": port}]
    return container


# What each GPU-access pod prints: the GPUs nvidia-smi lists (absent when the runtime gave none) and the device
# nodes in /dev. The kit reads both from the pod's log.
ACCESS_SCRIPT = "nvidia-smi -L 2>&1; ls /dev 2>&1 | grep -E '^nvidia[0-9]+$' | sed 's,^,/dev/,'; true"


def access_pod(name: str, target: Target, requested: bool) -> dict[str, Any]:
    """A pod on a GPU node that asks for one GPU, or asks for none and sets NVIDIA_VISIBLE_DEVICES=all."""
    item = "secure_accelerator_access"
    env = None if requested else {"NVIDIA_VISIBLE_DEVICES": "all"}
    container = _container(target, "probe", ["sh", "-c", ACCESS_SCRIPT], gpus=1 if requested else 0, env=env)
    spec = {"restartPolicy": "Never", "containers": [container], **_gpu_placement(target)}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _meta(name, NAMESPACE, item), "spec": spec}


def gang_job(name: str, target: Target, size: int) -> dict[str, Any]:
    """A Job of ``size`` GPU pods in a team namespace, through the team's Kueue LocalQueue (admitted whole or not)."""
    meta = _meta(name, target.queue_namespace, "gang_scheduling")
    meta["labels"]["kueue.x-k8s.io/queue-name"] = target.queue
    pod = {
        "metadata": {"labels": labels("gang_scheduling")},
        "spec": {
            "restartPolicy": "Never",
            "containers": [_container(target, "member", ["sh", "-c", "sleep 60"], gpus=1)],
            **_gpu_placement(target),
        },
    }
    spec = {"parallelism": size, "completions": size, "suspend": True, "backoffLimit": 0, "template": pod}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


def scale_up_pod(name: str, target: Target, avoid: list[str]) -> dict[str, Any]:
    """A GPU pod that no node there now may take (node affinity: hostname not in ``avoid``): it stays pending until
    the autoscaler adds a node of the group for it."""
    container = _container(target, "pending", ["sh", "-c", "sleep 30"], gpus=1)
    spec = {"restartPolicy": "Never", "containers": [container], **_gpu_placement(target)}
    if avoid:
        term = {"matchExpressions": [{"key": HOSTNAME_LABEL, "operator": "NotIn", "values": sorted(avoid)}]}
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [term]}}}  # fmt: skip
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _meta(name, NAMESPACE, "cluster_autoscaling"), "spec": spec}


def exporter(name: str, item: str, exposition: str, target: Target, gpus: int = 0, replicas: int = 1):
    """A Deployment whose pods serve ``exposition`` on /metrics (port `http`)."""
    script = _EXPORTER.format(body=exposition, port=METRICS_PORT)
    pod_spec: dict[str, Any] = {
        "containers": [_container(target, "server", ["python3", "-c", script], gpus, port=METRICS_PORT)]
    }
    if gpus:
        pod_spec.update(_gpu_placement(target))
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(name, NAMESPACE, item, name),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {"metadata": {"labels": labels(item, name)}, "spec": pod_spec},
        },
    }


def pod_monitor(name: str, item: str) -> dict[str, Any]:
    """Prometheus (prometheus-operator) scrapes the pods of Deployment ``name`` on port `http`, /metrics."""
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PodMonitor",
        "metadata": _meta(name, NAMESPACE, item),
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "podMetricsEndpoints": [{"port": "http", "path": "/metrics", "interval": "15s"}],
        },
    }


def hpa(name: str, metric: str, maximum: int) -> dict[str, Any]:
    """Scales Deployment ``name`` on the pods' ``metric`` (custom metrics API), one waiting request per pod."""
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": _meta(name, NAMESPACE, "pod_autoscaling"),
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 1,
            "maxReplicas": maximum,
            "metrics": [
                {
                    "type": "Pods",
                    "pods": {"metric": {"name": metric}, "target": {"type": "AverageValue", "averageValue": "1"}},
                }
            ],
        },
    }


def route_backend(name: str, target: Target, run: str) -> list[dict[str, Any]]:
    """A Deployment answering an OpenAI-style /v1/models naming the run, and its Service, in the serving namespace."""
    item = "ai_inference"
    ns = target.serving_namespace
    script = _BACKEND.format(run=run, port=METRICS_PORT)
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(name, ns, item, name),
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {
                "metadata": {"labels": labels(item, name)},
                "spec": {"containers": [_container(target, "backend", ["python3", "-c", script], port=METRICS_PORT)]},
            },
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(name, ns, item, name),
        "spec": {
            "selector": {"app.kubernetes.io/name": name},
            "ports": [{"name": "http", "port": METRICS_PORT, "targetPort": "http"}],
        },
    }
    return [deployment, service]


def http_route(name: str, target: Target, run: str) -> dict[str, Any]:
    """Requests with header ROUTE_HEADER: <run> on the serving Gateway go to the backend (header-based routing)."""
    return {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": _meta(name, target.serving_namespace, "ai_inference"),
        "spec": {
            "parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": target.gateway}],
            "rules": [
                {
                    "matches": [
                        {
                            "path": {"type": "PathPrefix", "value": "/v1/models"},
                            "headers": [{"type": "Exact", "name": ROUTE_HEADER, "value": run}],
                        }
                    ],
                    "backendRefs": [{"name": name, "port": METRICS_PORT}],
                }
            ],
        },
    }


def jobset(name: str, target: Target) -> dict[str, Any]:
    """A JobSet of two CPU pods: the operator's webhook defaults it, its controller creates the Jobs."""
    pod = {"spec": {"restartPolicy": "Never", "containers": [_container(target, "step", ["sh", "-c", "sleep 5"])]}}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": _meta(name, NAMESPACE, "robust_controller"),
        "spec": {
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": 2,
                    "template": {"spec": {"parallelism": 1, "completions": 1, "backoffLimit": 0, "template": pod}},
                }
            ]
        },
    }
