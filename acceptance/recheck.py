"""Re-check idle GPU nodes: put the acceptance gate back on every accepted GPU node that holds no GPU pod and clear
its verdict, so the acceptance DaemonSet runs gpu_check.py there again (and lifts the gate if the node still passes).

Run by a CronJob on the system nodes (kubernetes.acceptance.recheckIdleHours). Standalone: standard library only.
Exit codes: 0 done, 3 not in a cluster.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import urllib.parse
import urllib.request
from typing import Any

GATE = {"key": "startup-taint.cluster-autoscaler.kubernetes.io/gpu-acceptance", "value": "pending",
        "effect": "NoSchedule"}
LABEL = "gpu-blueprints/acceptance"
GPU = "nvidia.com/gpu"


def holds_gpu(pod: dict[str, Any]) -> bool:
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    containers = (pod.get("spec") or {}).get("containers") or []
    return any(GPU in ((c.get("resources") or {}).get("limits") or {}) for c in containers)


def idle_accepted_nodes(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> list[str]:
    """Names of nodes that passed acceptance and run no pod holding a GPU."""
    busy = {(p.get("spec") or {}).get("nodeName") for p in pods if holds_gpu(p)}
    return sorted(n["metadata"]["name"] for n in nodes
                  if (n["metadata"].get("labels") or {}).get(LABEL) == "passed" and n["metadata"]["name"] not in busy)


def regate_patch(node: dict[str, Any]) -> dict[str, Any]:
    """Clear the verdict (the DaemonSet's affinity wants it absent) and put the gate back (once)."""
    taints = [t for t in (node.get("spec") or {}).get("taints") or [] if t.get("key") != GATE["key"]]
    return {"metadata": {"labels": {LABEL: None}}, "spec": {"taints": [*taints, dict(GATE)]}}


def _api(path: str, method: str = "GET", body: Any = None) -> Any:
    token = open("/var/run/secrets/kubernetes.io/serviceaccount/token", encoding="utf-8").read().strip()
    request = urllib.request.Request(
        f"https://{os.environ['KUBERNETES_SERVICE_HOST']}:{os.environ['KUBERNETES_SERVICE_PORT']}{path}",
        data=None if body is None else json.dumps(body).encode(), method=method,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/merge-patch+json"})
    context = ssl.create_default_context(cafile="/var/run/secrets/kubernetes.io/serviceaccount/ca.crt")
    with urllib.request.urlopen(request, context=context, timeout=30) as response:
        return json.load(response)


def main() -> int:
    if "KUBERNETES_SERVICE_HOST" not in os.environ:
        print("error: not running in a cluster", file=sys.stderr)
        return 3
    selector = urllib.parse.quote(f"{LABEL}=passed")
    nodes = _api(f"/api/v1/nodes?labelSelector={selector}")["items"]
    pods = _api("/api/v1/pods")["items"]
    by_name = {n["metadata"]["name"]: n for n in nodes}
    for name in idle_accepted_nodes(nodes, pods):
        _api(f"/api/v1/nodes/{name}", "PATCH", regate_patch(by_name[name]))
        print(f"re-gated {name} for a new acceptance check", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
