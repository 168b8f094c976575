"""The few Kubernetes API calls the evidence kit makes, over plain HTTPS with the kubeconfig's credentials.

Why no client library: the kit needs a dozen REST calls (server-side apply, get, list by label, delete, pod logs,
a service proxy GET); the `kubernetes` package from PyPI would add it and its dependencies (urllib3, google-auth,
requests-oauthlib, websocket-client...) to requirements.txt for every user of `make plan`, and it is not installed
here. The standard library's http.client does these calls; nothing is added to the requirements.

Idempotence: objects are applied with server-side apply (PATCH application/apply-patch+yaml, fieldManager
`blueprints-conformance`, force), so a re-run replaces what an earlier run left (API concepts: Server-Side Apply,
https://kubernetes.io/docs/reference/using-api/server-side-apply/).
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
from dataclasses import dataclass
from typing import Any, Mapping

from ..errors import BlueprintError
from .kubeconfig import Connection

FIELD_MANAGER = "blueprints-conformance"
REQUEST_TIMEOUT_S = 30

# (apiVersion, kind) -> (plural, namespaced), for the kinds the kit applies or reads. A kind not here is a bug.
RESOURCES: dict[tuple[str, str], tuple[str, bool]] = {
    ("v1", "Namespace"): ("namespaces", False),
    ("v1", "Node"): ("nodes", False),
    ("v1", "Pod"): ("pods", True),
    ("v1", "Service"): ("services", True),
    ("v1", "Event"): ("events", True),
    ("apps/v1", "Deployment"): ("deployments", True),
    ("batch/v1", "Job"): ("jobs", True),
    ("autoscaling/v2", "HorizontalPodAutoscaler"): ("horizontalpodautoscalers", True),
    ("gateway.networking.k8s.io/v1", "HTTPRoute"): ("httproutes", True),
    ("gateway.networking.k8s.io/v1", "Gateway"): ("gateways", True),
    ("monitoring.coreos.com/v1", "PodMonitor"): ("podmonitors", True),
    ("jobset.x-k8s.io/v1alpha2", "JobSet"): ("jobsets", True),
    ("kueue.x-k8s.io/v1beta2", "Workload"): ("workloads", True),
}


class ApiError(Exception):
    """The API server refused a call or could not be reached: the demonstration that made it fails."""


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body or b"null")

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def collection_path(api_version: str, kind: str, namespace: str | None = None) -> str:
    plural, namespaced = RESOURCES[(api_version, kind)]
    root = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    if namespaced and namespace:
        return f"{root}/namespaces/{namespace}/{plural}"
    return f"{root}/{plural}"


def object_path(obj: Mapping[str, Any]) -> str:
    meta = obj["metadata"]
    base = collection_path(obj["apiVersion"], obj["kind"], meta.get("namespace"))
    return f"{base}/{meta['name']}"


class Client:
    def __init__(self, connection: Connection):
        self.connection = connection
        parsed = urllib.parse.urlsplit(connection.server)
        self._https = parsed.scheme == "https"
        self._host = parsed.hostname or ""
        self._port = parsed.port
        self._prefix = parsed.path.rstrip("/")

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str = "application/json",
        query: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        response = self._send(method, path, body, content_type, query, headers)
        if response.status == 401 and self.connection.refresh is not None:  # an expired exec-plugin token
            try:
                self.connection.headers["Authorization"] = f"Bearer {self.connection.refresh()}"
            except BlueprintError as error:
                raise ApiError(f"{method} {path}: HTTP 401 and no new token: {error}") from None
            response = self._send(method, path, body, content_type, query, headers)
        return response

    def _send(self, method, path, body, content_type, query, headers) -> Response:
        url = self._prefix + path + (f"?{urllib.parse.urlencode(query)}" if query else "")
        if self._https:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                self._host, self._port, timeout=REQUEST_TIMEOUT_S, context=self.connection.context
            )
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=REQUEST_TIMEOUT_S)
        sent = {"Accept": "application/json", **self.connection.headers, **(headers or {})}
        if body is not None:
            sent["Content-Type"] = content_type
        try:
            conn.request(method, url, body=body, headers=sent)
            answer = conn.getresponse()
            return Response(answer.status, answer.read())
        except (OSError, http.client.HTTPException) as error:
            raise ApiError(f"{method} {path}: {error}") from None
        finally:
            conn.close()

    def _ok(self, response: Response, what: str) -> Any:
        if response.status >= 400:
            try:
                message = response.json().get("message", response.text)
            except (ValueError, AttributeError):
                message = response.text
            raise ApiError(f"{what}: HTTP {response.status}: {message.strip()[:300]}")
        return response.json()

    def apply(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Create or replace ``obj`` (server-side apply): what the server stored."""
        body = json.dumps(obj).encode()  # JSON is YAML: the apply-patch content type takes it
        query = {"fieldManager": FIELD_MANAGER, "force": "true"}
        response = self.request("PATCH", object_path(obj), body, "application/apply-patch+yaml", query)
        return self._ok(response, f"apply {obj['kind']} {obj['metadata']['name']}")

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        path = f"{collection_path(api_version, kind, namespace)}/{name}"
        response = self.request("GET", path)
        if response.status == 404:
            return None
        return self._ok(response, f"get {kind} {name}")

    def list(
        self, api_version: str, kind: str, namespace: str | None = None, selector: str = "", fields: str = ""
    ) -> list[dict[str, Any]]:
        query = {k: v for k, v in (("labelSelector", selector), ("fieldSelector", fields)) if v}
        response = self.request("GET", collection_path(api_version, kind, namespace), query=query or None)
        return list(self._ok(response, f"list {kind}").get("items") or [])

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> bool:
        """Delete one object (its dependents in the background); False when it was not there."""
        path = f"{collection_path(api_version, kind, namespace)}/{name}"
        body = json.dumps({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"})
        response = self.request("DELETE", path, body.encode())
        if response.status == 404:
            return False
        self._ok(response, f"delete {kind} {name}")
        return True

    def log(self, name: str, namespace: str) -> str:
        response = self.request("GET", f"/api/v1/namespaces/{namespace}/pods/{name}/log")
        if response.status >= 400:
            raise ApiError(f"log of pod {name}: HTTP {response.status}")
        return response.text

    def proxy(self, namespace: str, service: str, port: int | str, path: str, query=None, headers=None) -> Response:
        """GET through the API server's service proxy (works for ClusterIP services, from outside the cluster)."""
        base = f"/api/v1/namespaces/{namespace}/services/{service}:{port}/proxy"
        return self.request("GET", base + path, query=query, headers=headers)
