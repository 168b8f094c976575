"""Readiness of served models (issue #25): would each model server start, be scaled and be reachable on day one?

Per model server (a Deployment, or a LeaderWorkerSet for a replica spanning nodes, carrying the model annotations
ModelServing sets):
- fit: each pod's GPUs are on one node of its group, and weights + KV cache at the configured context and batch fit
  the replica's GPUs (tensor x pipeline parallel) at its precision (the sizing advisor's memory model,
  blueprints/sizing/memory.py, with its 20% headroom);
- a LeaderWorkerSet: its controller is installed, its group can hold a whole replica (size nodes at once, and
  maxReplicas of them), and its stages talk over an RDMA fabric (a warning without one);
- the tensor-parallel degree divides the model's attention heads (vLLM splits heads across GPUs);
- its node group exists for it and, when it starts at zero nodes, an autoscaler adds nodes for it;
- its load metric has a scrape path: KEDA installed, a ScaledObject aimed at it, the monitoring stack, and a
  PodMonitor/ServiceMonitor selecting its pods (DCGM's exporter for the GPU-utilization signal);
- its route exists: an HTTPRoute on a declared Gateway sends requests to an InferencePool that selects its pods on
  the server's port and names a declared endpoint picker Service, and the Gateway's class is served by an installed
  implementation that routes to InferencePools (Envoy Gateway with Envoy AI Gateway as its extension).
A ScaledObject at minReplicaCount 0 whose triggers read only the model's own metrics cannot wake it: with no
replica there is no series (KEDA treats the empty result as 0), so it is reported; a trigger reading the requests its
endpoint picker refuses for want of a ready replica wakes it (components/kubernetes/inference_gateway.py wake_query),
provided a PodMonitor scrapes that picker.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional, Sequence

from catalog import load_catalog
from catalog.model_shapes import model_shapes
from components.kubernetes.inference_gateway import REFUSED
from components.kubernetes.nodes import EFA_PRESENT_LABEL, ERDMA_PRESENT_LABEL

from ..serving_spec import (  # the spec's own fit, so the spec and this check agree
    ModelSpec,
    replica_fit_of,
)
from .engine import Registration
from .index import RegistrationIndex, index
from .readiness import (
    BLOCKING,
    STARTUP_TAINT_PREFIX,
    WARNING,
    Finding,
    Pod,
    Pool,
    _pools,
    admits,
)

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
SCALED_OBJECT = "kubernetes:keda.sh/v1alpha1:ScaledObject"
MONITORS = ("kubernetes:monitoring.coreos.com/v1:PodMonitor", "kubernetes:monitoring.coreos.com/v1:ServiceMonitor")
SERVICE = "kubernetes:core/v1:Service"
GATEWAY_API = "gateway.networking.k8s.io"
INFERENCE_POOL = "kubernetes:inference.networking.k8s.io/v1:InferencePool"
# GatewayClass controller -> the charts that must be installed for it to route to an InferencePool. Envoy Gateway
# routes to one only through Envoy AI Gateway, its extension server (Envoy AI Gateway v1.1.0
# site/docs/capabilities/inference/httproute-inferencepool.md; components/kubernetes/inference_gateway.py).
POOL_IMPLEMENTATIONS = {"gateway.envoyproxy.io/gatewayclass-controller": ("gateway-helm", "ai-gateway-helm")}
MODEL = "gpu-blueprints/model"  # annotation: the architecture in catalog/model_shapes.yaml
PRECISION = "gpu-blueprints/precision"


def _flag(args: Sequence[str], name: str) -> Optional[str]:
    return next((args[i + 1] for i, a in enumerate(args[:-1]) if a == name), None)


def _meta(r: Registration) -> Mapping[str, Any]:
    return r.inputs.get("metadata") or {}


def _kind(r: Registration) -> str:
    return r.type.rpartition(":")[2]


def _serving_template(r: Registration) -> Mapping[str, Any]:
    """The pod template serving the API: the Deployment's, or the LeaderWorkerSet's leader (its worker template
    where it declares no leader, as LWS does)."""
    spec = r.inputs.get("spec") or {}
    if r.type == LWS:
        group = spec.get("leaderWorkerTemplate") or {}
        return group.get("leaderTemplate") or group.get("workerTemplate") or {}
    return spec.get("template") or {}


def _group_size(r: Registration) -> int:
    """Pods (so nodes) per replica: a LeaderWorkerSet's size (default 1), 1 for a Deployment."""
    return int(((r.inputs.get("spec") or {}).get("leaderWorkerTemplate") or {}).get("size", 1)) if r.type == LWS else 1


def _pod_labels(r: Registration) -> Mapping[str, str]:
    return (_serving_template(r).get("metadata") or {}).get("labels") or {}


def _selects(selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def _servers(regs: RegistrationIndex) -> list[tuple[Registration, Mapping[str, Any], Mapping[str, str]]]:
    out = []
    for r in regs.of_type(DEPLOYMENT, LWS):
        if MODEL not in (_meta(r).get("annotations") or {}):
            continue
        out.append((r, _serving_template(r).get("spec") or {}, _meta(r)["annotations"]))
    return out


def _fit(name: str, pod: Mapping[str, Any], notes: Mapping[str, str], pools: Sequence[Pool]) -> list[Finding]:
    args = [str(a) for a in pod["containers"][0].get("args") or []]
    tp = int(_flag(args, "--tensor-parallel-size") or 1)
    pp = int(_flag(args, "--pipeline-parallel-size") or 1)
    model = notes[MODEL]
    shape = model_shapes()[1].get(model)
    if shape is None:
        return [
            Finding(
                "serving-fit",
                WARNING,
                name,
                f"{name}: {model} is not in catalog/model_shapes.yaml, so its memory is unchecked",
                "name a published architecture, or add it to the catalog",
            )
        ]
    if shape.heads % tp:
        return [
            Finding(
                "serving-tensor-parallel",
                BLOCKING,
                name,
                f"{name}: tensor-parallel degree {tp} does not divide {model}'s {shape.heads} "
                "attention heads; vLLM refuses to start",
                "set tensorParallel to a divisor of the heads "
                f"({', '.join(str(d) for d in range(1, 17) if shape.heads % d == 0)})",
            )
        ]
    spec = ModelSpec.model_construct(
        model=model,
        precision=notes.get(PRECISION, "fp16"),
        tensor_parallel=tp,
        pipeline_parallel=pp,
        max_context=int(_flag(args, "--max-model-len") or shape.context),
        max_batch=int(_flag(args, "--max-num-seqs") or 256),
    )
    return [f for pool in pools if (f := _pool_fit(name, pool, spec, tp, pp)) is not None]


def _pool_fit(name: str, pool: Pool, spec: ModelSpec, tp: int, pp: int) -> Optional[Finding]:
    """A pod's GPUs must be on one node of the pool, and the replica's tp x pp GPUs must hold the model."""
    gpu = load_catalog().get(pool.instance_type)
    if gpu is None or not gpu.gpu.count:
        return None
    if tp > gpu.gpu.count:
        return Finding(
            "serving-fit",
            BLOCKING,
            name,
            f"{name}: a pod asks for {tp} GPUs but {pool.name}'s {pool.instance_type} has {gpu.gpu.count}: "
            "it never schedules",
            f"set tensorParallel <= {gpu.gpu.count} and spread the model over nodes with pipelineParallel",
        )
    fit = replica_fit_of(spec, gpu.gpu.memory_gib)  # sizing/fit.py: the advisor's own fit
    if fit.fits:
        return None
    weights, kv, usable = fit.weights_gib, fit.kv_gib, fit.usable_gib
    nodes = f" on each of {pp} nodes" if pp > 1 else ""
    return Finding(
        "serving-fit",
        BLOCKING,
        name,
        f"{name}: {spec.model} at {spec.precision} needs {weights:,.1f} GiB weights + {kv:,.1f} GiB KV cache "
        f"({spec.max_context} tokens x {spec.max_batch} sequences); {tp} x {gpu.gpu.model} of {pool.name}"
        f"{nodes} leave {usable:,.1f} GiB",
        "lower maxContext or maxBatch, quantize, raise tensorParallel or pipelineParallel (nodes per "
        "replica), or run it on a group with larger GPUs",
    )


def _placement(
    name: str, pod: Mapping[str, Any], pools: Sequence[Pool], autoscaler: bool
) -> tuple[list[Finding], list[Pool]]:
    """The pools the server may land on, the acceptance gate aside (a startup taint the check removes)."""
    seen = Pod(name, name.split(" ", 1)[0], pod.get("nodeSelector") or {}, pod.get("tolerations") or [])
    fits = [
        p
        for p in pools
        if admits(
            Pool(
                p.name,
                p.urn,
                p.labels,
                tuple(t for t in p.taints if not t[0].startswith(STARTUP_TAINT_PREFIX)),
                p.min_nodes,
                p.max_nodes,
                p.instance_type,
                p.autoscaled,
            ),
            seen,
        )
        and p.max_nodes >= 1
    ]
    if not fits:
        return [
            Finding(
                "serving-placement",
                BLOCKING,
                name,
                f"{name} fits no node group (selector {dict(seen.node_selector)})",
                "set the model's nodeGroup to a GPU group of the cluster",
            )
        ], []
    if all(p.min_nodes == 0 for p in fits) and not (autoscaler or any(p.autoscaled for p in fits)):
        return [
            Finding(
                "serving-scale-from-zero",
                BLOCKING,
                name,
                f"{name}'s group {fits[0].name} starts at zero nodes and nothing scales it: the server stays pending",
                "set autoscaling.enabled: true, or the group's minNodes >= 1",
            )
        ], fits
    return [], fits


def _scaled_objects(server: Registration, regs: RegistrationIndex) -> list[Registration]:
    """ScaledObjects aimed at the server: same namespace, name and kind (scaleTargetRef.kind defaults to
    Deployment, https://keda.sh/docs/2.20/reference/scaledobject-spec/)."""
    meta = _meta(server)
    return [
        r
        for r in regs.of_type(SCALED_OBJECT)
        if _meta(r).get("namespace") == meta.get("namespace")
        and (ref := (r.inputs.get("spec") or {}).get("scaleTargetRef") or {}).get("name") == meta.get("name")
        and (ref.get("kind") or "Deployment") == _kind(server)
    ]


def _scaling(name: str, server: Registration, regs: RegistrationIndex) -> list[Finding]:
    scaled = _scaled_objects(server, regs)
    if not scaled:
        return [
            Finding(
                "serving-autoscaling",
                WARNING,
                name,
                f"{name} has no ScaledObject: its replicas never follow the load",
                "declare the model through serving.models (KEDA ScaledObject)",
            )
        ]
    releases = regs.release_names()
    spec = scaled[0].inputs.get("spec") or {}
    triggers = spec.get("triggers") or []
    queries = [str((t.get("metadata") or {}).get("query", "")) for t in triggers if t.get("type") == "prometheus"]
    return [
        *_scaler_installed(name, releases),
        *_metric_sources(name, server, regs, releases, queries),
        *_wake_from_zero(name, spec, queries, regs),
    ]


def _scaler_installed(name: str, releases: set) -> list[Finding]:
    """A ScaledObject does nothing without KEDA, and its Prometheus query nothing without Prometheus."""
    findings = []
    if "keda" not in releases:
        findings.append(
            Finding(
                "serving-autoscaling",
                BLOCKING,
                name,
                f"{name}'s ScaledObject needs KEDA, which is not installed",
                "install the pinned keda chart (components/kubernetes/charts.yaml)",
            )
        )
    if "kube-prometheus-stack" not in releases:
        findings.append(
            Finding(
                "serving-metrics",
                BLOCKING,
                name,
                f"{name}'s load query has no Prometheus to read (no monitoring stack)",
                "set kubernetes.monitoring.enabled: true",
            )
        )
    return findings


def _metric_sources(
    name: str, server: Registration, regs: RegistrationIndex, releases: set, queries: list[str]
) -> list[Finding]:
    """vLLM's metrics need a monitor selecting its pods; GPU utilization needs the GPU Operator's exporter."""
    meta, labels, findings = _meta(server), _pod_labels(server), []
    scraped = any(
        _meta(r).get("namespace") == meta.get("namespace")
        and _selects(((r.inputs.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}, labels)
        for r in regs.of_type(*MONITORS)
    )
    if any(q.startswith(("sum(vllm:", "avg(vllm:")) for q in queries) and not scraped:
        findings.append(
            Finding(
                "serving-metrics",
                BLOCKING,
                name,
                f"{name}'s load metric ({queries[0]}) has no "
                "scrape path: no PodMonitor or ServiceMonitor selects its pods",
                "add a PodMonitor for the pods' /metrics (ModelServing declares one)",
            )
        )
    if any("DCGM_" in q for q in queries) and "gpu-operator" not in releases:
        # The query reads the pod labels as the Operator's exporter is scraped (honorLabels); the standalone
        # dcgm-exporter chart's ServiceMonitor renames them exported_pod/exported_namespace.
        findings.append(
            Finding(
                "serving-metrics",
                BLOCKING,
                name,
                f"{name} scales on GPU utilization, which is "
                "read from the GPU Operator's DCGM exporter, not installed here",
                "set kubernetes.gpuStack: gpu-operator, or signal requests-waiting or kv-cache",
            )
        )
    return findings


def _wake_from_zero(name: str, spec: dict, queries: list[str], regs: RegistrationIndex) -> list[Finding]:
    """At zero replicas a model's own metrics have no series, so only a trigger on its endpoint picker's refusals
    wakes it, and only while a PodMonitor scrapes the picker (the job the query names, <namespace>/<monitor>)."""
    if spec.get("minReplicaCount") != 0:
        return []
    wake = [q for q in queries if REFUSED in q]
    if not wake:
        return [
            Finding(
                "serving-wake",
                BLOCKING,
                name,
                f"{name} scales to zero and no trigger reads the requests its endpoint picker refuses: at zero "
                "replicas its own metrics have no series, so requests fail until a replica is started by hand",
                "set minReplicas: 1, or declare the model through serving.models (its ScaledObject then wakes on "
                "the picker's refusals)",
            )
        ]
    job = re.search(r'job="([^"/]+)/([^"]+)"', wake[0])
    if job and regs.named(MONITORS[0], job[1], job[2]):
        return []
    return [
        Finding(
            "serving-wake",
            BLOCKING,
            name,
            f"{name}'s wake trigger reads its endpoint picker's metrics, which no PodMonitor scrapes "
            f"({job[0] if job else 'no job in its query'}): at zero replicas nothing wakes it",
            "route the model through the serving Gateway (InferenceRoute scrapes its endpoint picker)",
        )
    ]


def _fabric(pool: Pool) -> bool:
    return pool.labels.get(EFA_PRESENT_LABEL) == "true" or pool.labels.get(ERDMA_PRESENT_LABEL) == "true"


def _multi_node(name: str, server: Registration, fits: Sequence[Pool], regs: RegistrationIndex) -> list[Finding]:
    """A LeaderWorkerSet needs its controller, a group holding a whole replica's nodes at once (LWS creates a
    replica's pods together; a part of one serves nothing) and, recommended, an RDMA fabric between its stages."""
    if server.type != LWS:
        return []
    size, findings = _group_size(server), []
    if "lws" not in regs.release_names():
        findings.append(
            Finding(
                "serving-multi-node",
                BLOCKING,
                name,
                f"{name} needs the LeaderWorkerSet controller and CRD, which are not installed: it is never created",
                "install the pinned lws chart (components/kubernetes/charts.yaml)",
            )
        )
    holding = [p for p in fits if p.max_nodes >= size]
    if fits and not holding:
        groups = ", ".join(f"{p.name} (maxNodes {p.max_nodes})" for p in fits)
        return findings + [
            Finding(
                "serving-group-size",
                BLOCKING,
                name,
                f"{name}: a replica spans {size} nodes but {groups} cannot hold them at once: no replica ever serves",
                f"raise the group's maxNodes to at least {size} (times maxReplicas), or lower pipelineParallel",
            )
        ]
    most = max((p.max_nodes for p in holding), default=0)
    wanted = max(
        (int((r.inputs.get("spec") or {}).get("maxReplicaCount", 1)) for r in _scaled_objects(server, regs)), default=1
    )
    if holding and wanted * size > most:
        findings.append(
            Finding(
                "serving-group-size",
                WARNING,
                name,
                f"{name}: maxReplicas {wanted} x {size} nodes = {wanted * size} but its group holds {most}: "
                f"at most {most // size} replicas ever run",
                f"raise the group's maxNodes to {wanted * size}, or lower maxReplicas to {most // size}",
            )
        )
    if holding and not any(_fabric(p) for p in holding):
        findings.append(
            Finding(
                "serving-fabric",
                WARNING,
                name,
                f"{name}'s {size} pipeline stages run on {', '.join(p.name for p in holding)}, which has no RDMA "
                "fabric (EFA, eRDMA): activations cross nodes over TCP at every decoding step",
                "serve multi-node models from a group with rdma: true (EFA or eRDMA, one zone, a placement group)",
            )
        )
    return findings


def _objects(regs: RegistrationIndex, kind: str, namespace: Any = None) -> list[Registration]:
    """Gateway API objects of a kind (any version), in a namespace when one is given."""
    types = [t for t in regs.types() if t.startswith(f"kubernetes:{GATEWAY_API}/") and t.endswith(f":{kind}")]
    return [r for r in regs.of_type(*types) if namespace is None or _meta(r).get("namespace") == namespace]


def _pool_for(server: Registration, pod: Mapping[str, Any], regs: RegistrationIndex) -> Optional[Registration]:
    """The InferencePool in the server's namespace whose selector matches its pods on a port its container serves."""
    labels, namespace = _pod_labels(server), _meta(server).get("namespace")
    ports = {p.get("containerPort") for c in pod.get("containers") or [] for p in c.get("ports") or []}
    for r in regs.of_type(INFERENCE_POOL):
        spec = r.inputs.get("spec") or {}
        if (
            _meta(r).get("namespace") == namespace
            and _selects((spec.get("selector") or {}).get("matchLabels") or {}, labels)
            and any(t.get("number") in ports for t in spec.get("targetPorts") or [])
        ):
            return r
    return None


def _routes_to(pool: Registration, regs: RegistrationIndex) -> list[Registration]:
    namespace, name = _meta(pool).get("namespace"), _meta(pool).get("name")
    return [
        r
        for r in _objects(regs, "HTTPRoute", namespace)
        if any(
            ref.get("kind") == "InferencePool"
            and ref.get("name") == name
            and ref.get("namespace", namespace) == namespace
            for rule in (r.inputs.get("spec") or {}).get("rules") or []
            for ref in rule.get("backendRefs") or []
        )
    ]


def _gateway_gaps(route: Registration, regs: RegistrationIndex) -> list[str]:
    """What is missing between the route and a running implementation: its Gateway, the class, the charts."""
    namespace = _meta(route).get("namespace")
    parents = [
        p for p in (route.inputs.get("spec") or {}).get("parentRefs") or [] if p.get("kind", "Gateway") == "Gateway"
    ]
    gateways = {(_meta(g).get("namespace"), _meta(g).get("name")): g for g in _objects(regs, "Gateway")}
    found = [gateways.get((p.get("namespace", namespace), p.get("name"))) for p in parents]
    if not any(found):
        return [f"HTTPRoute {_meta(route).get('name')} is attached to no declared Gateway"]
    classes = {
        _meta(c).get("name"): (c.inputs.get("spec") or {}).get("controllerName") for c in _objects(regs, "GatewayClass")
    }
    releases = regs.release_names()
    for gateway in filter(None, found):
        class_name = (gateway.inputs.get("spec") or {}).get("gatewayClassName")
        controller = classes.get(class_name)
        needed = POOL_IMPLEMENTATIONS.get(controller or "")
        if controller is None:
            return [f"Gateway {_meta(gateway).get('name')}'s class {class_name} is not declared"]
        if needed is None:
            return [
                f"GatewayClass {class_name} ({controller}) is not an implementation known to route to InferencePools"
            ]
        absent = [c for c in needed if c not in releases]
        if absent:
            return [f"GatewayClass {class_name} needs {', '.join(absent)} installed to route to an InferencePool"]
    return []


def _route(name: str, server: Registration, pod: Mapping[str, Any], regs: RegistrationIndex) -> list[Finding]:
    """HTTPRoute -> InferencePool -> the model's pods, through a Gateway an installed implementation serves."""
    pool = _pool_for(server, pod, regs)
    gaps: list[str] = []
    if pool is None:
        gaps = ["no InferencePool selects its pods on the server's port"]
    else:
        picker = ((pool.inputs.get("spec") or {}).get("endpointPickerRef") or {}).get("name")
        if not regs.named(SERVICE, _meta(pool).get("namespace"), picker):
            gaps.append(f"InferencePool {_meta(pool).get('name')}'s endpoint picker Service {picker} is not declared")
        routes = _routes_to(pool, regs)
        if not routes:
            gaps.append(f"no HTTPRoute sends requests to InferencePool {_meta(pool).get('name')}")
        elif all(_gateway_gaps(r, regs) for r in routes):
            gaps += _gateway_gaps(routes[0], regs)
    if not gaps:
        return []
    return [
        Finding(
            "serving-route",
            BLOCKING,
            name,
            f"{name} has no route: {'; '.join(gaps)}; requests cannot reach the model",
            "declare the model through serving.models (the platform adds its InferencePool, endpoint picker and "
            "HTTPRoute on the serving Gateway), and keep the Kubernetes layer's Gateway API implementation",
        )
    ]


def check(registrations: Sequence[Registration]) -> list[Finding]:
    regs = index(registrations)  # every lookup below is by type or name: linear in the plan's size (issue #42)
    servers = _servers(regs)
    if not servers:
        return []
    pools = _pools(regs)
    autoscaler = "cluster-autoscaler" in regs.release_names()
    findings: list[Finding] = []
    for server, pod, notes in servers:
        name = f"{_kind(server)} {_meta(server).get('namespace')}/{_meta(server).get('name')}"
        placed, fits = _placement(name, pod, pools, autoscaler)
        findings += placed + _fit(name, pod, notes, fits) + _multi_node(name, server, fits, regs)
        findings += _scaling(name, server, regs) + _route(name, server, pod, regs)
    return findings
