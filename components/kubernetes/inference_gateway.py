"""Inference routing through the Gateway API and its Inference Extension (issue #25 item 3), on EKS and ACK alike.

Every cluster gets the implementation as a platform capability (`install_gateway_api`): Envoy Gateway, Envoy AI
Gateway (Envoy Gateway's extension server that turns an HTTPRoute backendRef to an InferencePool into endpoint-picker
routing), the InferencePool CRD and one GatewayClass. A cluster that serves models gets, in its serving namespace,
one Gateway (`ServingGateway`) whose Envoy proxies run in that namespace, and per model (`InferenceRoute`) an
InferencePool selecting the model's pods, its endpoint picker (EPP, scraped: the requests it refuses while the pool
has no ready pod wake a model at zero replicas, `wake_query`) and an HTTPRoute from the Gateway to the pool.

Who may call: private = pods of the serving namespace only (the proxies' Service is ClusterIP); internal = an
internal load balancer whose source ranges and the proxies' NetworkPolicy list the same CIDRs. The model pods admit
only their own namespace (proxies, EPP) and the scrape, so the Gateway is the one way in.

Sources (read 2026-11-24; why this implementation: components/kubernetes/charts.yaml):
- Envoy AI Gateway v1.1.0 manifests/envoy-gateway-values.yaml and
  examples/inference-pool/envoy-gateway-values-addon.yaml: the Envoy Gateway values
  (extensionManager hooks, service, backendResources InferencePool v1).
- Envoy Gateway v1.9.0: GatewayNamespace deploy mode (api/v1alpha1/envoygateway_types.go), proxy pods labelled
  gateway.envoyproxy.io/owning-gateway-name (internal/gatewayapi/translator.go), a listener port below 1024 served
  on port + 10000 in the pod (listener.go, wellKnownPortShift), ClientTrafficPolicy tls.minVersion ("1.2", "1.3";
  https://gateway.envoyproxy.io/v1.9/tasks/security/secure-gateways/ "Customize Gateway TLS Parameters",
  site/content/en/v1.9/tasks/security/secure-gateways.md, and api/v1alpha1/tls_types.go), EnvoyProxy
  provider.kubernetes.envoyService (type, annotations, loadBalancerSourceRanges, externalTrafficPolicy) referenced
  from the Gateway's spec.infrastructure.parametersRef.
- gateway-api-inference-extension v1.0.2: InferencePool v1 (config/crd/bases), the EPP Deployment, its plugin
  ConfigMap and RBAC as config/charts/inferencepool/templates renders them (image epp:v1.0.2, gRPC 9002, health 9003).
- The EPP's kinds (same tag, read 2026-11-27): it always registers InferencePool, InferenceObjective and Pod
  reconcilers (pkg/epp/server/runserver.go SetupWithManager; pkg/epp/controller/*_reconciler.go) and caches all three
  in its namespace (pkg/epp/server/controller_manager.go), so both CRDs (crds/, with SOURCE.md) are installed before
  any EPP (catalog/controllers.yaml lists what each controller watches; the plan checks it). Its Role grants get,
  list and watch on the three, as the chart's templates/rbac.yaml does; leader election (and its Role) only with
  replicas > 1 (templates/leader-election-rbac.yaml), and we run one.
- The EPP scrapes each model server for queue depth, KV-cache use and LoRA adapters under the names its flags give
  (cmd/epp/runner/runner.go --total-queued-requests-metric, --kv-cache-usage-percentage-metric, --lora-info-metric;
  defaults vllm:num_requests_waiting, vllm:gpu_cache_usage_perc, vllm:lora_requests_info in
  pkg/epp/server/runserver.go). vLLM v0.12.0 (the served image) has no vllm:gpu_cache_usage_perc: its KV-cache gauge
  is vllm:kv_cache_usage_perc (vllm/v1/metrics/loggers.py; the old name went in vllm-project/vllm PR #29330), so the
  KV-cache flag is passed (VLLM_METRICS). The queue gauge keeps its name; vllm:lora_requests_info exists only when
  LoRA is on, and a missing family is a partial scrape error the EPP logs at trace level and ignores
  (pkg/epp/backend/metrics/metrics.go promToPodMetrics, pod_metrics.go refreshMetrics).
- The EPP's metrics (same tag, read 2026-11-27): served on 9090 behind Kubernetes authentication and authorization
  (cmd/epp/runner/runner.go, controller-runtime filters.WithAuthenticationAndAuthorization), so the EPP may create
  TokenReviews and SubjectAccessReviews and the scraper presents a token allowed `get` on the non-resource URL
  /metrics (config/charts/inferencepool/templates/rbac.yaml, epp-servicemonitor.yaml, epp-sa-token-secret.yaml;
  site-src/guides/metrics-and-observability.md). A PodMonitor's series carry job="<namespace>/<monitor name>"
  (prometheus-operator v0.93.0 pkg/prometheus/promcfg.go, generatePodMonitorConfig).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
import yaml

from ..base import KUBERNETES, Args, Component, as_args
from .charts import SAFE_LOADER, chart_release
from .monitoring import NAMESPACE as MONITORING_NAMESPACE

GATEWAY_CLASS = "envoy-gateway"
CONTROLLER = "gateway.envoyproxy.io/gatewayclass-controller"
EG_NAMESPACE = "envoy-gateway-system"
AIGW_NAMESPACE = "envoy-ai-gateway-system"
# The Envoy Gateway v1.9.0 controller's own proxy image (api/v1alpha1/shared_types.go), pinned in the chart's values
# so that global.imageRegistry (a mirror) reaches it: envoy_gateway_values.
ENVOY_PROXY_IMAGE = "docker.io/envoyproxy/envoy:distroless-v1.39.0"
INFERENCE_GROUP = "inference.networking.k8s.io"
CRDS = Path(__file__).parent / "crds"
INFERENCE_POOL_CRD = CRDS / "inference.networking.k8s.io_inferencepools.yaml"
INFERENCE_OBJECTIVE_CRD = CRDS / "inference.networking.x-k8s.io_inferenceobjectives.yaml"
EPP_IMAGE = "registry.k8s.io/gateway-api-inference-extension/epp:v1.0.2"
EPP_PORT, EPP_HEALTH_PORT, EPP_METRICS_PORT = 9002, 9003, 9090
# vLLM v0.12.0's KV-cache gauge (1 = 100%), and the EPP's metric flags for it (module docstring): only the KV-cache
# gauge differs from the EPP's defaults. serving.py scales on the same gauge.
VLLM_KV_CACHE_GAUGE = "vllm:kv_cache_usage_perc"
VLLM_METRICS = ("--kv-cache-usage-percentage-metric", VLLM_KV_CACHE_GAUGE)
GATEWAY_NAME = "inference"
OWNING_GATEWAY = "gateway.envoyproxy.io/owning-gateway-name"
TLS_VERSIONS = ("1.3", "1.2")
PORT_SHIFT = 10000  # Envoy Gateway serves a listener port below 1024 on port + 10000 inside the proxy pod
EPP_PLUGINS = """apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: queue-scorer
- type: kv-cache-utilization-scorer
- type: prefix-cache-scorer
schedulingProfiles:
- name: default
  plugins:
  - pluginRef: queue-scorer
  - pluginRef: kv-cache-utilization-scorer
  - pluginRef: prefix-cache-scorer
"""


# Requests the EPP answered 503 because its pool had no ready pod (the name follows the EPP image: v1.1.0 renames it
# inference_objective_request_error_total), and the requests it routed that are still in flight (v1.0.2
# pkg/epp/metrics/metrics.go; requestcontrol/director.go, handlers/server.go).
REFUSED = "inference_model_request_error_total"
RUNNING = "inference_model_running_requests"
WAKE_WINDOW = "2m"


def epp_name(model: str) -> str:
    """The model's endpoint picker: its Deployment, Service, ServiceAccount and PodMonitor."""
    return f"{model}-epp"


def wake_query(namespace: str, model: str) -> str:
    """1 while requests for the model are refused for want of a ready replica (in the last WAKE_WINDOW) or are in
    flight through its endpoint picker, else 0: the model's pool is in demand.

    With no ready pod the EPP answers each inference request (one with a JSON body naming a model) 503 at once
    (v1.0.2 requestcontrol/director.go HandleRequest: no candidate pods -> ServiceUnavailable; handlers/server.go
    buildErrResponse -> ImmediateResponse 503; test/integration/epp/hermetic_test.go "no pods available") and counts
    it with error_code="ServiceUnavailable", a code used for nothing else. It lists only Ready pods
    (controller/pod_reconciler.go), so the first requests are refused until a replica has loaded its weights, and
    clients must retry. A request without a body (GET /v1/models) is answered 500 instead (handlers/request.go, "no
    pods available in datastore", error_code="Internal") and wakes nothing. The EPP creates the series on its first
    refusal and Prometheus's increase() needs two samples, so a series younger than the window counts by its
    presence alone."""
    job = f'job="{namespace}/{epp_name(model)}"'
    refused = f'{REFUSED}{{{job},error_code="ServiceUnavailable"}}'
    return (
        f"((sum(increase({refused}[{WAKE_WINDOW}])) or vector(0))"
        f" + (count({refused} unless {refused} offset {WAKE_WINDOW}) or vector(0))"
        f" + (sum({RUNNING}{{{job}}}) or vector(0))) > bool 0"
    )


def envoy_gateway_values(node_selector: Mapping[str, str]) -> dict:
    """Envoy Gateway with Envoy AI Gateway as its extension server, InferencePool as a backend, proxies deployed in
    each Gateway's own namespace (so the serving namespace's policies govern them).

    The proxies' image (issue #35 item 3, read at Envoy Gateway v1.9.0, commit 39763b1c): without a value the
    controller runs its built-in docker.io/envoyproxy/envoy:distroless-v1.39.0 (api/v1alpha1/shared_types.go
    DefaultEnvoyProxyImage), which global.imageRegistry never reaches: the chart puts the image, registry in front,
    into the EnvoyGateway config's default envoyProxy only when global.images.envoyProxy.image is set
    (charts/gateway-helm/templates/_helpers.tpl, eg.default-envoy-gateway-config and eg.envoyProxy.image). So the
    values pin ENVOY_PROXY_IMAGE, and the serving Gateway's EnvoyProxy merges with that default (mergeType
    StrategicMerge): one without mergeType replaces it (internal/gatewayapi/envoyproxy_merge.go
    MergeEnvoyProxyConfigs; api/v1alpha1/envoyproxy_types.go MergeType), and its proxies would pull the built-in
    default again. The ratelimit and shutdown-manager images always take global.imageRegistry (eg.ratelimit.image,
    eg.image). catalog/runtime_images.yaml keeps these facts for the readiness check."""
    return {
        "global": {"images": {"envoyProxy": {"image": ENVOY_PROXY_IMAGE}}},
        "deployment": {"pod": {"nodeSelector": dict(node_selector)}},
        "certgen": {"job": {"nodeSelector": dict(node_selector)}},
        "config": {
            "envoyGateway": {
                "gateway": {"controllerName": CONTROLLER},
                "provider": {"type": "Kubernetes", "kubernetes": {"deploy": {"type": "GatewayNamespace"}}},
                "extensionApis": {"enableEnvoyPatchPolicy": True, "enableBackend": True},
                "extensionManager": {
                    "hooks": {
                        "xdsTranslator": {
                            "translation": {
                                k: {"includeAll": True} for k in ("listener", "route", "cluster", "secret")
                            },
                            "post": ["Translation", "Cluster", "Route"],
                        }
                    },
                    "service": {
                        "fqdn": {"hostname": f"ai-gateway-controller.{AIGW_NAMESPACE}.svc.cluster.local", "port": 1063}
                    },
                    "backendResources": [{"group": INFERENCE_GROUP, "kind": "InferencePool", "version": "v1"}],
                },
            }
        },
    }


def install_gateway_api(
    parent: pulumi.Resource, name: str, node_selector: Mapping[str, str], labels: Mapping[str, str]
) -> dict[str, pulumi.Resource]:
    """The implementation every cluster gets: the Inference Extension's CRDs (InferencePool, and InferenceObjective
    that every endpoint picker watches), Envoy Gateway (with the Gateway API CRDs its chart ships), Envoy AI Gateway,
    and the GatewayClass models' Gateways use. The CRDs are returned too ("inferencepool-crd",
    "inferenceobjective-crd"): endpoint pickers are created after them."""
    pool_crd = _crd(parent, f"{name}-inferencepool-crd", INFERENCE_POOL_CRD, labels)
    objective_crd = _crd(parent, f"{name}-inferenceobjective-crd", INFERENCE_OBJECTIVE_CRD, labels)
    envoy = chart_release(
        parent,
        f"{name}-gateway-helm",
        "gateway-helm",
        EG_NAMESPACE,
        envoy_gateway_values(node_selector),
        create_namespace=True,
        depends_on=[pool_crd],
    )
    ai_crds = chart_release(
        parent, f"{name}-ai-gateway-crds", "ai-gateway-crds-helm", AIGW_NAMESPACE, {}, create_namespace=True
    )
    ai = chart_release(
        parent,
        f"{name}-ai-gateway",
        "ai-gateway-helm",
        AIGW_NAMESPACE,
        {"controller": {"nodeSelector": dict(node_selector)}},
        depends_on=[ai_crds, envoy],
    )
    gateway_class = k8s.apiextensions.CustomResource(
        f"{name}-gatewayclass",
        api_version="gateway.networking.k8s.io/v1",
        kind="GatewayClass",
        metadata={"name": GATEWAY_CLASS, "labels": dict(labels)},
        spec={"controllerName": CONTROLLER},
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[envoy]),
    )
    return {
        "gateway-helm": envoy,
        "ai-gateway-helm": ai,
        "gatewayclass": gateway_class,
        "inferencepool-crd": pool_crd,
        "inferenceobjective-crd": objective_crd,
    }


def _crd(parent: pulumi.Resource, name: str, path: Path, labels: Mapping[str, str]) -> pulumi.Resource:
    """One upstream CRD file (crds/) as a CustomResourceDefinition, our labels added."""
    crd = yaml.load(path.read_text(), Loader=SAFE_LOADER)  # noqa: S506 - a safe loader
    return k8s.apiextensions.v1.CustomResourceDefinition(
        name,
        metadata={**crd["metadata"], "labels": dict(labels)},
        spec=crd["spec"],
        opts=pulumi.ResourceOptions(parent=parent),
    )


@dataclass(frozen=True)
class GatewayExposure(Args):
    """Who may call the served models through the Gateway, and its TLS. Defaults: in-cluster, plain HTTP."""

    allowed_cidrs: Optional[Sequence[str]] = ()
    """Networks that may call through an internal load balancer; empty keeps the Gateway in-cluster (ClusterIP)."""
    internal_lb_annotations: Optional[Mapping[str, str]] = field(default_factory=dict)
    """The cloud's internal load balancer annotations, used with allowed_cidrs."""
    tls_secret: Optional[str] = None
    """A kubernetes.io/tls Secret in the serving namespace; the listener terminates TLS on 443 with it. None: HTTP
    on 80 (in-cluster only)."""
    tls_min_version: Optional[str] = "1.3"
    """Lowest TLS version the listener accepts: 1.3 (default) or 1.2."""

    def __post_init__(self) -> None:
        if self.tls_min_version not in TLS_VERSIONS:
            raise ValueError(f"tls_min_version {self.tls_min_version!r}: allowed {', '.join(TLS_VERSIONS)}")

    @property
    def port(self) -> int:
        return 443 if self.tls_secret else 80


@dataclass(frozen=True)
class ServingGatewayArgs(Args):
    namespace: str
    """The serving namespace: the Gateway, its proxies and the routes live there."""
    exposure: GatewayExposure
    """Who may call, and the listener's TLS."""
    node_selector: Mapping[str, str]
    """Where the Envoy proxies run (the system group)."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Labels on every object; none by default."""


class ServingGateway(Component):
    """One Gateway for a serving namespace: its proxies' Service (EnvoyProxy), TLS floor and ingress policy."""

    PACKAGE = KUBERNETES

    def __init__(self, name: str, args: ServingGatewayArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(ServingGatewayArgs, args)
        exposure, child = args.exposure, pulumi.ResourceOptions(parent=self)
        meta = {"namespace": args.namespace, "labels": dict(args.labels)}
        proxy = k8s.apiextensions.CustomResource(
            f"{name}-envoyproxy",
            api_version="gateway.envoyproxy.io/v1alpha1",
            kind="EnvoyProxy",
            metadata={**meta, "name": GATEWAY_NAME},
            # Merged over the EnvoyGateway config's default EnvoyProxy (its proxy image), not replacing it.
            spec={
                "mergeType": "StrategicMerge",
                "provider": {"type": "Kubernetes", "kubernetes": self._kubernetes(args)},
            },
            opts=child,
        )
        listener: dict = {"name": "https" if exposure.tls_secret else "http", "port": exposure.port}
        if exposure.tls_secret:
            listener |= {
                "protocol": "HTTPS",
                "tls": {"mode": "Terminate", "certificateRefs": [{"kind": "Secret", "name": exposure.tls_secret}]},
            }
        else:
            listener["protocol"] = "HTTP"
        listener["allowedRoutes"] = {"namespaces": {"from": "Same"}}
        self.gateway = k8s.apiextensions.CustomResource(
            f"{name}-gateway",
            api_version="gateway.networking.k8s.io/v1",
            kind="Gateway",
            metadata={**meta, "name": GATEWAY_NAME},
            spec={
                "gatewayClassName": GATEWAY_CLASS,
                "infrastructure": {
                    "parametersRef": {"group": "gateway.envoyproxy.io", "kind": "EnvoyProxy", "name": GATEWAY_NAME}
                },
                "listeners": [listener],
            },
            opts=pulumi.ResourceOptions(parent=self, depends_on=[proxy]),
        )
        if exposure.tls_secret:
            k8s.apiextensions.CustomResource(
                f"{name}-tls-floor",
                api_version="gateway.envoyproxy.io/v1alpha1",
                kind="ClientTrafficPolicy",
                metadata={**meta, "name": f"{GATEWAY_NAME}-tls"},
                spec={
                    "targetRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": GATEWAY_NAME}],
                    "tls": {"minVersion": exposure.tls_min_version},
                },
                opts=child,
            )
        self._callers(name, args, meta)
        self.register_outputs({})

    @staticmethod
    def _kubernetes(args: ServingGatewayArgs) -> dict:
        """The proxies on the system group; their Service in-cluster, or an internal load balancer limited to the
        allowed CIDRs (externalTrafficPolicy Local keeps the caller's address for the NetworkPolicy, provided the load
        balancer passes it on: on AWS the caller's annotations ask for an NLB, as a Classic ELB presents its own)."""
        exposure = args.exposure
        service: dict = {"type": "ClusterIP"}
        if exposure.allowed_cidrs:
            service = {
                "type": "LoadBalancer",
                "annotations": dict(exposure.internal_lb_annotations),
                "loadBalancerSourceRanges": list(exposure.allowed_cidrs),
                "externalTrafficPolicy": "Local",
            }
        return {"envoyDeployment": {"pod": {"nodeSelector": dict(args.node_selector)}}, "envoyService": service}

    def _callers(self, name: str, args: ServingGatewayArgs, meta: dict) -> None:
        """The proxies admit the serving namespace's pods and, when internal, the allowed CIDRs; nothing else."""
        callers: list[dict] = [{"podSelector": {}}]
        callers += [{"ipBlock": {"cidr": cidr}} for cidr in args.exposure.allowed_cidrs]
        k8s.networking.v1.NetworkPolicy(
            f"{name}-callers",
            metadata={**meta, "name": f"{GATEWAY_NAME}-gateway-callers"},
            spec={
                "podSelector": {"matchLabels": {OWNING_GATEWAY: GATEWAY_NAME}},
                "policyTypes": ["Ingress"],
                "ingress": [{"from": callers, "ports": [{"port": args.exposure.port + PORT_SHIFT, "protocol": "TCP"}]}],
            },
            opts=pulumi.ResourceOptions(parent=self),
        )


@dataclass(frozen=True)
class InferenceRouteArgs(Args):
    model: str
    """The served model's name (its pods' app.kubernetes.io/instance)."""
    namespace: str
    """The serving namespace."""
    selector: Mapping[str, str]
    """Labels of the model's pods."""
    port: int
    """The model server's port."""
    node_selector: Mapping[str, str]
    """Where the endpoint picker runs (the system group)."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Labels on every object; none by default."""
    image: Optional[str] = EPP_IMAGE
    """The endpoint picker's image: EPP_IMAGE (by tag) by default; a stack passes it pinned by digest."""


class InferenceRoute(Component):
    """A model's InferencePool, its endpoint picker (scraped: its refusals wake a model at zero replicas) and the
    HTTPRoute from the serving Gateway to the pool."""

    PACKAGE = KUBERNETES

    def __init__(self, name: str, args: InferenceRouteArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(InferenceRouteArgs, args)
        epp = epp_name(args.model)
        meta = {"namespace": args.namespace, "labels": dict(args.labels)}
        self._endpoint_picker(name, args, epp, meta)
        pool = k8s.apiextensions.CustomResource(
            f"{name}-pool",
            api_version=f"{INFERENCE_GROUP}/v1",
            kind="InferencePool",
            metadata={**meta, "name": args.model},
            spec={
                "selector": {"matchLabels": dict(args.selector)},
                "targetPorts": [{"number": args.port}],
                "endpointPickerRef": {"name": epp, "port": {"number": EPP_PORT}, "failureMode": "FailClose"},
            },
            opts=pulumi.ResourceOptions(parent=self),
        )
        # Each model is its own path prefix: a client's base URL is <gateway>/<model>/v1; the prefix is rewritten
        # to / before vLLM (HTTPRoute URLRewrite ReplacePrefixMatch), so vLLM sees /v1/chat/completions.
        k8s.apiextensions.CustomResource(
            f"{name}-route",
            api_version="gateway.networking.k8s.io/v1",
            kind="HTTPRoute",
            metadata={**meta, "name": args.model},
            spec={
                "parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": GATEWAY_NAME}],
                "rules": [
                    {
                        "matches": [{"path": {"type": "PathPrefix", "value": f"/{args.model}"}}],
                        "filters": [
                            {
                                "type": "URLRewrite",
                                "urlRewrite": {"path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": "/"}},
                            }
                        ],
                        "backendRefs": [{"group": INFERENCE_GROUP, "kind": "InferencePool", "name": args.model}],
                        "timeouts": {"request": "300s"},
                    }
                ],
            },
            opts=pulumi.ResourceOptions(parent=self, depends_on=[pool]),
        )
        self.register_outputs({})

    def _endpoint_picker(self, name: str, args: InferenceRouteArgs, epp: str, meta: dict) -> None:
        """The EPP as the upstream chart renders it: a ServiceAccount reading pods and pools, its plugin config, one
        replica (Recreate) and a gRPC Service the Gateway's ext_proc calls."""
        child = pulumi.ResourceOptions(parent=self)
        app = {"inferencepool": epp}
        k8s.core.v1.ServiceAccount(f"{name}-epp-sa", metadata={**meta, "name": epp}, opts=child)
        k8s.rbac.v1.Role(
            f"{name}-epp-role",
            metadata={**meta, "name": epp},
            rules=[
                {
                    "apiGroups": ["inference.networking.x-k8s.io"],
                    "resources": ["inferenceobjectives"],
                    "verbs": ["get", "watch", "list"],
                },
                {"apiGroups": [INFERENCE_GROUP], "resources": ["inferencepools"], "verbs": ["get", "watch", "list"]},
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "watch", "list"]},
            ],
            opts=child,
        )
        _bind(f"{name}-epp-binding", {**meta, "name": epp}, "Role", epp, epp, args.namespace, child)
        k8s.core.v1.ConfigMap(
            f"{name}-epp-config", metadata={**meta, "name": epp}, data={"default-plugins.yaml": EPP_PLUGINS}, opts=child
        )
        k8s.apps.v1.Deployment(
            f"{name}-epp",
            metadata={**meta, "name": epp},
            spec={
                "replicas": 1,
                "strategy": {"type": "Recreate"},
                "selector": {"matchLabels": app},
                "template": {"metadata": {"labels": {**meta["labels"], **app}}, "spec": _epp_pod(args, epp)},
            },
            opts=child,
        )
        k8s.core.v1.Service(
            f"{name}-epp-service",
            metadata={**meta, "name": epp},
            spec={
                "selector": app,
                "ports": [{"name": "grpc-ext-proc", "port": EPP_PORT, "protocol": "TCP", "appProtocol": "http2"}],
            },
            opts=child,
        )
        self._scrape(name, args, epp, meta, app)

    def _scrape(self, name: str, args: InferenceRouteArgs, epp: str, meta: dict, app: dict) -> None:
        """The kube-prometheus-stack scrapes the EPP's /metrics (the model's wake signal, serving.py) with the
        reader's token (_metrics_access); the monitoring namespace may reach the metrics port (the serving
        namespace denies ingress by default)."""
        reader, token = self._metrics_access(name, args, epp, meta)
        k8s.apiextensions.CustomResource(
            f"{name}-epp-podmonitor",
            api_version="monitoring.coreos.com/v1",
            kind="PodMonitor",
            metadata={**meta, "name": epp},
            spec={
                "selector": {"matchLabels": dict(app)},
                "podMetricsEndpoints": [
                    {
                        "port": "metrics",
                        "path": "/metrics",
                        "interval": "15s",
                        "authorization": {"type": "Bearer", "credentials": {"name": reader, "key": "token"}},
                    }
                ],
            },
            opts=pulumi.ResourceOptions(parent=self, depends_on=[token]),
        )
        scrapers = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": MONITORING_NAMESPACE}}}
        k8s.networking.v1.NetworkPolicy(
            f"{name}-epp-scrape",
            metadata={**meta, "name": f"{epp}-scrape"},
            spec={
                "podSelector": {"matchLabels": dict(app)},
                "policyTypes": ["Ingress"],
                "ingress": [{"from": [scrapers], "ports": [{"port": EPP_METRICS_PORT, "protocol": "TCP"}]}],
            },
            opts=pulumi.ResourceOptions(parent=self),
        )

    def _metrics_access(
        self, name: str, args: InferenceRouteArgs, epp: str, meta: dict
    ) -> tuple[str, k8s.core.v1.Secret]:
        """What the EPP's authenticated /metrics needs: the EPP may review tokens and access, and a reader
        ServiceAccount allowed only GET /metrics holds a token (a Secret) the PodMonitor presents. Returns the
        reader's name (also its Secret's) and the Secret."""
        child = pulumi.ResourceOptions(parent=self)
        cluster_meta = {"labels": dict(args.labels)}
        reviews = f"{args.namespace}-{epp}-reviews"  # cluster-scoped: the namespace keeps the names unique
        k8s.rbac.v1.ClusterRole(
            f"{name}-epp-reviews",
            metadata={**cluster_meta, "name": reviews},
            rules=[
                {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
                {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]},
            ],
            opts=child,
        )
        reviewing = {**cluster_meta, "name": reviews}
        _bind(f"{name}-epp-reviews-binding", reviewing, "ClusterRole", reviews, epp, args.namespace, child)
        reader = f"{epp}-metrics-reader"
        reading = f"{args.namespace}-{reader}"
        account = k8s.core.v1.ServiceAccount(
            f"{name}-epp-reader", metadata={**meta, "name": reader}, automount_service_account_token=False, opts=child
        )
        k8s.rbac.v1.ClusterRole(
            f"{name}-epp-metrics",
            metadata={**cluster_meta, "name": reading},
            rules=[{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}],
            opts=child,
        )
        read_meta = {**cluster_meta, "name": reading}
        _bind(f"{name}-epp-metrics-binding", read_meta, "ClusterRole", reading, reader, args.namespace, child)
        # After its ServiceAccount: the token controller deletes a token Secret whose ServiceAccount it cannot find
        # (kubernetes pkg/controller/serviceaccount/tokens_controller.go syncSecret, "Service account does not
        # exist, deleting token"); Helm orders them so (ServiceAccount before Secret), Pulumi only by dependency.
        token = k8s.core.v1.Secret(
            f"{name}-epp-reader-token",
            metadata={**meta, "name": reader, "annotations": {"kubernetes.io/service-account.name": reader}},
            type="kubernetes.io/service-account-token",
            opts=pulumi.ResourceOptions(parent=self, depends_on=[account]),
        )
        return reader, token


def _bind(
    name: str, metadata: dict, kind: str, role: str, account: str, namespace: str, opts: pulumi.ResourceOptions
) -> pulumi.CustomResource:
    """A RoleBinding (kind "Role") or ClusterRoleBinding (kind "ClusterRole") of ``role`` to one ServiceAccount."""
    binding = k8s.rbac.v1.RoleBinding if kind == "Role" else k8s.rbac.v1.ClusterRoleBinding
    return binding(
        name,
        metadata=metadata,
        subjects=[{"kind": "ServiceAccount", "name": account, "namespace": namespace}],
        role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role},
        opts=opts,
    )


def _epp_pod(args: InferenceRouteArgs, epp: str) -> dict:
    grpc = {"grpc": {"port": EPP_HEALTH_PORT, "service": "inference-extension"}}
    return {
        "serviceAccountName": epp,
        "nodeSelector": dict(args.node_selector),
        "terminationGracePeriodSeconds": 130,
        "containers": [
            {
                "name": "epp",
                "image": args.image,
                "args": [
                    "--pool-name",
                    args.model,
                    "--pool-namespace",
                    args.namespace,
                    "--zap-encoder",
                    "json",
                    "--config-file",
                    "/config/default-plugins.yaml",
                    *VLLM_METRICS,
                ],
                "ports": [
                    {"name": "grpc", "containerPort": EPP_PORT},
                    {"name": "grpc-health", "containerPort": EPP_HEALTH_PORT},
                    {"name": "metrics", "containerPort": EPP_METRICS_PORT},
                ],
                "livenessProbe": {**grpc, "initialDelaySeconds": 5, "periodSeconds": 10},
                "readinessProbe": {**grpc, "periodSeconds": 2},
                "env": [{"name": "NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}],
                # The image is distroless static:nonroot (uid 65532, the repository's Dockerfile BASE_IMAGE).
                "securityContext": {
                    "runAsNonRoot": True,
                    "runAsUser": 65532,
                    "readOnlyRootFilesystem": True,
                    "allowPrivilegeEscalation": False,
                    "capabilities": {"drop": ["ALL"]},
                    "seccompProfile": {"type": "RuntimeDefault"},  # Pod Security Standards, restricted
                },
                # Upstream sets no requests; ours, so the system group's capacity accounts for it.
                "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"memory": "1Gi"}},
                "volumeMounts": [
                    {"name": "plugins-config-volume", "mountPath": "/config"},
                    {"name": "tmp", "mountPath": "/tmp"},
                ],
            }
        ],
        "volumes": [
            {"name": "plugins-config-volume", "configMap": {"name": epp}},
            {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}},
        ],
    }
