"""A small fake Kubernetes API server on 127.0.0.1 for the evidence kit's offline tests.

It stores what it is sent (server-side apply, get, list by label, delete with namespace cascade) and stands in for
the cluster's controllers with the answers a working cluster gives: the kubelet runs pods (and the NVIDIA runtime
shows a GPU only to the pod that requested one), Kueue admits a job whole, the HPA scales on its custom metric,
the Gateway accepts a route and routes by header, Prometheus holds DCGM's and the workload's series, JobSet's
webhook defaults and its controller reconciles, the autoscaler adds a GPU node. ``broken`` names what a broken
cluster gets wrong instead (one name per MUST item), so a test can check that the kit catches it.
"""

from __future__ import annotations

import copy
import http.server
import json
import ssl
import threading
import urllib.parse
import uuid
from typing import Any

GROUP_LABEL = "gpu-blueprints/node-group"
GPU = "nvidia.com/gpu"
ENVOY = "envoy-serving-inference-6f2c1a"
PLURALS = {
    "namespaces",
    "nodes",
    "pods",
    "services",
    "deployments",
    "jobs",
    "horizontalpodautoscalers",
    "httproutes",
    "podmonitors",
    "jobsets",
    "workloads",
    "events",
}


def _node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {GROUP_LABEL: "gpu", "kubernetes.io/hostname": name}},
        "status": {"allocatable": {GPU: "1"}},
    }


class FakeCluster:
    def __init__(self, broken: frozenset[str] = frozenset()):
        self.broken = set(broken)
        self.objects: dict[str, dict[str, Any]] = {}  # collection path + "/" + name -> object
        self.applied: list[dict[str, Any]] = []  # every object the kit applied, as sent
        self.requests: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.token: str | None = None  # set: only "Bearer <token>" is let in (401 otherwise)
        self.authorizations: list[str] = []
        self._put("/api/v1/nodes", _node("gpu-node-1"))
        self._put(
            "/api/v1/namespaces/jobset-system/pods",
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "jobset-controller-manager-0", "namespace": "jobset-system"},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
            },
        )
        self._put(
            "/api/v1/namespaces/serving/services",
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {
                    "name": ENVOY,
                    "namespace": "serving",
                    "labels": {
                        "gateway.envoyproxy.io/owning-gateway-name": "inference",
                        "gateway.envoyproxy.io/owning-gateway-namespace": "serving",
                    },
                },
                "spec": {"ports": [{"name": "http-80", "port": 80}]},
            },
        )

    # --- storage --------------------------------------------------------------------------------------------------
    def _put(self, collection: str, obj: dict[str, Any]) -> dict[str, Any]:
        obj.setdefault("metadata", {}).setdefault("uid", str(uuid.uuid4()))
        self.objects[f"{collection}/{obj['metadata']['name']}"] = obj
        return obj

    def labelled(self) -> list[str]:
        """What the kit left behind: its namespace or any object carrying its label."""
        return [
            path
            for path, obj in self.objects.items()
            if (obj["metadata"].get("labels") or {}).get("app.kubernetes.io/managed-by") == "blueprints-conformance"
            or "/namespaces/ai-conformance/" in path
        ]

    def _list(self, collection: str, selector: str) -> list[dict[str, Any]]:
        want = dict(p.split("=", 1) for p in selector.split(",") if p)
        out = []
        for path, obj in self.objects.items():
            parent = path.rsplit("/", 1)[0]
            cluster_wide = collection.rsplit("/", 1)
            if parent != collection and not (
                "/namespaces/" not in collection
                and parent.startswith(cluster_wide[0] + "/namespaces/")
                and parent.endswith("/" + cluster_wide[1])
            ):
                continue
            labels = obj["metadata"].get("labels") or {}
            if all(labels.get(k) == v for k, v in want.items()):
                out.append(obj)
        return out

    def _delete(self, path: str) -> bool:
        if path not in self.objects:
            return False
        if "stuck" in self.broken and self.objects[path]["kind"] == "Namespace":  # a finalizer that never ends
            self.objects[path]["status"] = {"phase": "Terminating"}
            return True
        obj = self.objects.pop(path)
        if obj["kind"] == "Namespace":
            name = obj["metadata"]["name"]
            for key in [k for k in self.objects if f"/namespaces/{name}/" in k]:
                del self.objects[key]
        if obj["kind"] == "Job":  # background propagation: the Job's pods and Workload go too
            owned = [
                k
                for k, o in self.objects.items()
                if any(r.get("uid") == obj["metadata"]["uid"] for r in o["metadata"].get("ownerReferences") or [])
                or (o["metadata"].get("labels") or {}).get("batch.kubernetes.io/job-name") == obj["metadata"]["name"]
            ]
            for key in owned:
                del self.objects[key]
        return True

    # --- the controllers' answers ----------------------------------------------------------------------------------
    def _apply(self, collection: str, obj: dict[str, Any]) -> dict[str, Any]:
        self.applied.append(copy.deepcopy(obj))
        obj = copy.deepcopy(obj)
        ns = obj["metadata"].get("namespace")
        kind, name = obj["kind"], obj["metadata"]["name"]
        if kind == "Pod":
            node = "gpu-node-1"
            affinity = obj["spec"].get("affinity", {}).get("nodeAffinity", {})
            terms = affinity.get("requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms", [])
            avoid = {v for t in terms for e in t["matchExpressions"] if e["operator"] == "NotIn" for v in e["values"]}
            if node in avoid:  # no node there now fits: the autoscaler adds one (a broken one does not)
                node = None
            if name == "scale-up" and node is None and "cluster_autoscaling" not in self.broken:
                node = "gpu-node-2"
                self._put("/api/v1/nodes", _node(node))
            obj["spec"]["nodeName"] = node
            obj["status"] = {"phase": "Succeeded" if node else "Pending"}
        elif kind == "JobSet" and "robust_controller" not in self.broken:
            for job in obj["spec"]["replicatedJobs"]:
                job["template"]["spec"].setdefault("completionMode", "Indexed")  # the defaulting webhook
                for i in range(job["replicas"]):
                    self._put(
                        f"/apis/batch/v1/namespaces/{ns}/jobs",
                        {
                            "apiVersion": "batch/v1",
                            "kind": "Job",
                            "metadata": {
                                "name": f"{name}-{job['name']}-{i}",
                                "namespace": ns,
                                "labels": {"jobset.sigs.k8s.io/jobset-name": name},
                            },
                        },
                    )
            obj["status"] = {"conditions": [{"type": "Completed", "status": "True"}]}
        elif kind == "HTTPRoute":
            ok = "True"
            obj["status"] = {
                "parents": [
                    {
                        "parentRef": obj["spec"]["parentRefs"][0],
                        "conditions": [{"type": "Accepted", "status": ok}, {"type": "ResolvedRefs", "status": ok}],
                    }
                ]
            }
        elif kind == "HorizontalPodAutoscaler" and "pod_autoscaling" not in self.broken:
            obj["status"] = {
                "desiredReplicas": 2,
                "currentReplicas": 2,
                "currentMetrics": [
                    {
                        "type": "Pods",
                        "pods": {
                            "metric": obj["spec"]["metrics"][0]["pods"]["metric"],
                            "current": {"averageValue": "5"},
                        },
                    }
                ],
                "conditions": [{"type": "ScalingActive", "status": "True"}],
            }
            deployment = self.objects.get(f"/apis/apps/v1/namespaces/{ns}/deployments/{name}")
            if deployment:
                deployment["status"] = {"readyReplicas": 2}
        elif kind == "Deployment":
            obj["status"] = {"readyReplicas": obj["spec"].get("replicas", 1)}
        stored = self._put(collection, obj)
        if kind == "Job" and "gang_scheduling" not in self.broken:
            size = obj["spec"]["parallelism"]
            self._put(
                f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{ns}/workloads",
                {
                    "apiVersion": "kueue.x-k8s.io/v1beta2",
                    "kind": "Workload",
                    "metadata": {
                        "name": f"job-{name}-1a2b3",
                        "namespace": ns,
                        "ownerReferences": [{"kind": "Job", "name": name, "uid": stored["metadata"]["uid"]}],
                    },
                    "spec": {"podSets": [{"name": "main", "count": size}]},
                    "status": {"conditions": [{"type": "Admitted", "status": "True"}]},
                },
            )
            for i in range(size):
                self._put(
                    f"/api/v1/namespaces/{ns}/pods",
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "metadata": {
                            "name": f"{name}-{i}",
                            "namespace": ns,
                            "labels": {"batch.kubernetes.io/job-name": name},
                        },
                        "spec": {"nodeName": f"gpu-node-{i + 1}"},
                        "status": {"phase": "Running", "startTime": "2026-11-27T17:00:00Z"},
                    },
                )
        return stored

    def _log(self, pod: dict[str, Any]) -> str:
        limits = pod["spec"]["containers"][0].get("resources", {}).get("limits", {})
        env = {e["name"]: e["value"] for e in pod["spec"]["containers"][0].get("env") or []}
        sees = GPU in limits or (
            env.get("NVIDIA_VISIBLE_DEVICES") == "all" and "secure_accelerator_access" in self.broken
        )
        if sees:
            return "GPU 0: NVIDIA L4 (UUID: GPU-5a0f2b1c-0000-0000-0000-000000000000)\n/dev/nvidia0\n"
        return "sh: 1: nvidia-smi: not found\n"

    def _prometheus(self, query: str) -> list[dict[str, Any]]:
        if query.startswith("DCGM_") and "accelerator_metrics" not in self.broken:
            return [{"metric": {"__name__": query, "gpu": "0", "Hostname": "gpu-node-1"}, "value": [1, "3"]}]
        if query.startswith("ai_conformance_requests_total") and "ai_service_metrics" not in self.broken:
            if "/apis/apps/v1/namespaces/ai-conformance/deployments/service-metrics" in self.objects:
                return [
                    {
                        "metric": {"__name__": "ai_conformance_requests_total", "namespace": "ai-conformance"},
                        "value": [1, "42"],
                    }
                ]
        return []

    def _gateway(self, headers) -> tuple[int, dict[str, Any]]:
        route = self.objects.get("/apis/gateway.networking.k8s.io/v1/namespaces/serving/httproutes/conformance-route")
        if route and "ai_inference" not in self.broken:
            match = route["spec"]["rules"][0]["matches"][0]["headers"][0]
            if headers.get(match["name"]) == match["value"]:
                return 200, {"object": "list", "data": [{"id": match["value"], "object": "model"}]}
        return 404, {"message": "no route"}

    # --- HTTP -------------------------------------------------------------------------------------------------------
    def handle(self, method: str, raw_path: str, headers, body: bytes) -> tuple[int, Any]:
        parsed = urllib.parse.urlsplit(raw_path)
        path, query = parsed.path, dict(urllib.parse.parse_qsl(parsed.query))
        with self.lock:
            self.requests.append((method, path))
            self.authorizations.append(headers.get("Authorization") or "")
            if self.token is not None and headers.get("Authorization") != f"Bearer {self.token}":
                return 401, {"kind": "Status", "message": "Unauthorized"}
            if path == "/version":
                return 200, {"gitVersion": "v1.35.2-eks.9"}
            if path == "/apis/resource.k8s.io":
                served = (
                    [] if "dra_support" in self.broken else [{"groupVersion": "resource.k8s.io/v1", "version": "v1"}]
                )
                return 200, {"kind": "APIGroup", "name": "resource.k8s.io", "versions": served}
            if path == "/apis/resource.k8s.io/v1/deviceclasses":
                return 200, {"items": [{"metadata": {"name": "gpu.nvidia.com"}}]}
            if "/services/prometheus-operated:web/proxy/api/v1/query" in path:
                return 200, {
                    "status": "success",
                    "data": {"resultType": "vector", "result": self._prometheus(query["query"])},
                }
            if f"/services/{ENVOY}:http-80/proxy/" in path:
                return self._gateway(headers)
            if path.endswith("/log"):
                pod = self.objects.get(path[: -len("/log")])
                return (200, self._log(pod)) if pod else (404, {"message": "not found"})
            if method == "PATCH":
                obj = json.loads(body)
                return 200, self._apply(path.rsplit("/", 1)[0], obj)
            if method == "DELETE":
                return (200, {"status": "Success"}) if self._delete(path) else (404, {"message": "not found"})
            if method == "GET" and path in self.objects:
                return 200, self.objects[path]
            if method == "GET" and path.rsplit("/", 1)[1] in PLURALS:
                return 200, {"items": self._list(path, query.get("labelSelector", ""))}
            return 404, {"message": "not found"}


def serve(cluster: FakeCluster, tls: ssl.SSLContext | None = None) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        def _any(self):
            length = int(self.headers.get("Content-Length") or 0)
            status, answer = cluster.handle(self.command, self.path, self.headers, self.rfile.read(length))
            data = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain" if isinstance(answer, str) else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_PATCH = do_DELETE = _any

        def log_message(self, *args):  # quiet
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    # shutdown() waits for the serving loop's next poll: 10 ms, not the default half second, per test
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    return server
