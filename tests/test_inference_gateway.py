"""Inference routing (issue #25 item 3) and the exposure's TLS (item 1): the Gateway API objects validate against the
pinned CRDs (tests/data/crds, with SOURCE.md), the built-ins against Kubernetes' schema; the endpoint is reachable
only where the exposure says (the Gateway's Service and the NetworkPolicies agree); TLS 1.3 by default, 1.2 by a
field, anything else one line and exit 2; a model without a route is a blocking finding and exit 1."""

from __future__ import annotations

import copy
import dataclasses
import json

import jsonschema
import kubernetes_validate
import pytest
import yaml
from google.protobuf import struct_pb2

from blueprints.offline import readiness_serving
from blueprints.offline.readiness import check as readiness_check
from blueprints.stackconfig import ROOT
from components.kubernetes.inference_gateway import INFERENCE_POOL_CRD
from conftest import resources, run_cli, shipped_cluster, shipped_plan, validate_crd, write_stack

STACK = "startup-serving"
CRDS = ROOT / "tests" / "data" / "crds"
SCHEMAS = {
    "kubernetes:gateway.networking.k8s.io/v1:GatewayClass": "gateway-api-1.6.1/GatewayClass.json",
    "kubernetes:gateway.networking.k8s.io/v1:Gateway": "gateway-api-1.6.1/Gateway.json",
    "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute": "gateway-api-1.6.1/HTTPRoute.json",
    "kubernetes:inference.networking.k8s.io/v1:InferencePool": "inference-extension-1.0.2/InferencePool.json",
    "kubernetes:gateway.envoyproxy.io/v1alpha1:EnvoyProxy": "envoy-gateway-1.9.0/EnvoyProxy.json",
    "kubernetes:gateway.envoyproxy.io/v1alpha1:ClientTrafficPolicy": "envoy-gateway-1.9.0/ClientTrafficPolicy.json",
    "kubernetes:monitoring.coreos.com/v1:PodMonitor": "prometheus-operator-0.93.1/PodMonitor.json",
}
BUILTIN = (
    "kubernetes:apps/v1:Deployment",
    "kubernetes:core/v1:Service",
    "kubernetes:core/v1:ServiceAccount",
    "kubernetes:core/v1:ConfigMap",
    "kubernetes:core/v1:Secret",
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
    "kubernetes:rbac.authorization.k8s.io/v1:Role",
    "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding",
    "kubernetes:networking.k8s.io/v1:NetworkPolicy",
    "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
)
AWS_NLB = {
    "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
    "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
    "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes": "preserve_client_ip.enabled=true",
}
INTERNAL = {"mode": "internal", "allowedCidrs": ["10.20.0.0/16"], "tls": {"secretName": "inference-tls"}}


def _schema(type_: str) -> dict:
    return json.loads((CRDS / SCHEMAS[type_]).read_text())


def _named(plan, type_: str, name: str) -> dict:
    [found] = [r for r in resources(plan, type_) if (r.get("metadata") or {}).get("name") == name]
    return found


def _exposed(plan_variant, exposure: dict, stack: str = STACK):
    return plan_variant(stack, lambda c: c["serving"].update(exposure=exposure))


def test_the_installed_inferencepool_crd_is_the_pinned_upstream_schema():
    crd = yaml.safe_load(INFERENCE_POOL_CRD.read_text())
    [v1] = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    assert v1["schema"]["openAPIV3Schema"] == _schema("kubernetes:inference.networking.k8s.io/v1:InferencePool")


@pytest.mark.parametrize("exposure", [None, INTERNAL])
def test_every_routing_object_validates_against_its_pinned_schema(plan_variant, exposure):
    plan = shipped_plan(STACK) if exposure is None else _exposed(plan_variant, exposure)
    version = f"{plan.resolved.spec.kubernetes_version}.0"
    ours = ("-gateway-serving-", "-route-", "-inferencepool-crd", "-inferenceobjective-crd")  # ours and the CRDs
    seen = set()
    for r in plan.registrations:
        if r.type in SCHEMAS:
            validate_crd(r.inputs, _schema(r.type))
            seen.add(r.type)
        elif r.type in BUILTIN and any(k in r.name for k in ours):
            kubernetes_validate.validate(r.inputs, version, strict=True)
            seen.add(r.type)
    tls_floor = "kubernetes:gateway.envoyproxy.io/v1alpha1:ClientTrafficPolicy"
    assert seen == (set(SCHEMAS) - ({tls_floor} if exposure is None else set())) | set(BUILTIN)


@pytest.mark.parametrize(
    "type_, name, path, bad",
    [
        ("kubernetes:inference.networking.k8s.io/v1:InferencePool", "mistral-7b", "targetPorts", [{"number": 0}]),
        ("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", "mistral-7b", "rules", [{"backendRefs": [{"kind": 1}]}]),
        ("kubernetes:gateway.networking.k8s.io/v1:Gateway", "inference", "listeners", [{"name": "x", "port": 80}]),
        ("kubernetes:monitoring.coreos.com/v1:PodMonitor", "mistral-7b-epp", "podMetricsEndpoints", [{"port": 1}]),
    ],
)
def test_the_schemas_reject_a_broken_object(type_, name, path, bad):
    """The check above can fail: the same objects with one field of their spec broken do not validate."""
    broken = copy.deepcopy(_named(shipped_plan(STACK), type_, name))
    broken["spec"][path] = bad
    with pytest.raises(jsonschema.ValidationError):
        validate_crd(broken, _schema(type_))


def test_requests_reach_the_models_pool_through_the_gateway_in_cluster_by_default():
    plan = shipped_plan(STACK)
    [gateway] = resources(plan, "kubernetes:gateway.networking.k8s.io/v1:Gateway")
    assert gateway["spec"]["gatewayClassName"] == "envoy-gateway"
    assert gateway["spec"]["listeners"][0] | {} == {
        "name": "http",
        "port": 80,
        "protocol": "HTTP",
        "allowedRoutes": {"namespaces": {"from": "Same"}},
    }
    route = _named(plan, "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", "mistral-7b")
    assert route["spec"]["parentRefs"][0]["name"] == gateway["metadata"]["name"]
    assert route["spec"]["rules"][0]["backendRefs"][0] | {} == {
        "group": "inference.networking.k8s.io",
        "kind": "InferencePool",
        "name": "mistral-7b",
    }
    pool = _named(plan, "kubernetes:inference.networking.k8s.io/v1:InferencePool", "mistral-7b")
    model = _named(plan, "kubernetes:apps/v1:Deployment", "mistral-7b")
    assert pool["spec"]["selector"]["matchLabels"].items() <= model["spec"]["template"]["metadata"]["labels"].items()
    assert pool["spec"]["targetPorts"] == [{"number": 8000}]
    assert _named(plan, "kubernetes:core/v1:Service", pool["spec"]["endpointPickerRef"]["name"])
    proxy = resources(plan, "kubernetes:gateway.envoyproxy.io/v1alpha1:EnvoyProxy")[0]["spec"]["provider"]
    assert proxy["kubernetes"]["envoyService"] == {"type": "ClusterIP"}
    assert not resources(plan, "kubernetes:gateway.envoyproxy.io/v1alpha1:ClientTrafficPolicy")
    callers = _named(plan, "kubernetes:networking.k8s.io/v1:NetworkPolicy", "inference-gateway-callers")["spec"]
    assert callers["ingress"] == [{"from": [{"podSelector": {}}], "ports": [{"port": 10080, "protocol": "TCP"}]}]
    model_callers = _named(plan, "kubernetes:networking.k8s.io/v1:NetworkPolicy", "mistral-7b-callers")["spec"]
    assert not [c for c in model_callers["ingress"][0]["from"] if "ipBlock" in c]
    assert _named(plan, "kubernetes:core/v1:Service", "mistral-7b")["spec"]["type"] == "ClusterIP"


def test_the_endpoint_picker_is_scraped_with_a_token_that_may_only_read_metrics():
    """Its metrics (the model's wake signal) sit behind token review: the picker may review tokens, the scrape
    presents a reader's token allowed GET /metrics and nothing else, and the monitoring namespace reaches the port."""
    plan = shipped_plan(STACK)
    monitor = _named(plan, "kubernetes:monitoring.coreos.com/v1:PodMonitor", "mistral-7b-epp")
    picker = _named(plan, "kubernetes:apps/v1:Deployment", "mistral-7b-epp")["spec"]["template"]
    assert monitor["spec"]["selector"]["matchLabels"].items() <= picker["metadata"]["labels"].items()
    [endpoint] = monitor["spec"]["podMetricsEndpoints"]
    ports = {p["name"]: p["containerPort"] for p in picker["spec"]["containers"][0]["ports"]}
    assert ports[endpoint["port"]] == 9090 and endpoint["path"] == "/metrics"
    credentials = endpoint["authorization"]["credentials"]
    token = _named(plan, "kubernetes:core/v1:Secret", credentials["name"])
    assert token["type"] == "kubernetes.io/service-account-token" and credentials["key"] == "token"
    reader = token["metadata"]["annotations"]["kubernetes.io/service-account.name"]
    assert token["metadata"]["namespace"] == monitor["metadata"]["namespace"] == "serving"

    def cluster_rules(account):
        rbac = "kubernetes:rbac.authorization.k8s.io/v1"
        bindings = resources(plan, f"{rbac}:ClusterRoleBinding")
        roles = {r["metadata"]["name"]: r["rules"] for r in resources(plan, f"{rbac}:ClusterRole")}
        subject = {"kind": "ServiceAccount", "name": account, "namespace": "serving"}
        return [rule for b in bindings if subject in b["subjects"] for rule in roles[b["roleRef"]["name"]]]

    assert cluster_rules(reader) == [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]
    assert {(r["resources"][0], tuple(r["verbs"])) for r in cluster_rules(picker["spec"]["serviceAccountName"])} == {
        ("tokenreviews", ("create",)),
        ("subjectaccessreviews", ("create",)),
    }
    scrape = _named(plan, "kubernetes:networking.k8s.io/v1:NetworkPolicy", "mistral-7b-epp-scrape")["spec"]
    assert scrape["podSelector"]["matchLabels"].items() <= picker["metadata"]["labels"].items()
    assert scrape["ingress"] == [
        {
            "from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}],
            "ports": [{"port": 9090, "protocol": "TCP"}],
        }
    ]


def test_the_readers_token_secret_is_created_after_its_service_account():
    """The token controller deletes a service-account-token Secret whose ServiceAccount does not exist yet, which
    would leave the PodMonitor without its credentials: the Secret waits for the account."""
    plan = shipped_plan(STACK)

    def registration(type_, name):
        [found] = [r for r in plan.registrations if r.type == type_ and r.inputs["metadata"]["name"] == name]
        return found

    monitor = _named(plan, "kubernetes:monitoring.coreos.com/v1:PodMonitor", "mistral-7b-epp")
    [endpoint] = monitor["spec"]["podMetricsEndpoints"]
    token = registration("kubernetes:core/v1:Secret", endpoint["authorization"]["credentials"]["name"])
    owner = token.inputs["metadata"]["annotations"]["kubernetes.io/service-account.name"]
    account = registration("kubernetes:core/v1:ServiceAccount", owner)
    assert account.urn in token.dependencies


@pytest.mark.parametrize(
    "stack, annotation",
    [
        (STACK, AWS_NLB),
        ("startup-serving-aliyun", {"service.beta.kubernetes.io/alibaba-cloud-loadbalancer-address-type": "intranet"}),
    ],
)
def test_internal_exposure_admits_the_listed_networks_at_the_gateway_only(plan_variant, stack, annotation):
    plan = _exposed(plan_variant, INTERNAL, stack)
    service = resources(plan, "kubernetes:gateway.envoyproxy.io/v1alpha1:EnvoyProxy")[0]["spec"]["provider"]
    assert service["kubernetes"]["envoyService"] == {
        "type": "LoadBalancer",
        "annotations": annotation,
        "loadBalancerSourceRanges": ["10.20.0.0/16"],
        "externalTrafficPolicy": "Local",
    }
    callers = _named(plan, "kubernetes:networking.k8s.io/v1:NetworkPolicy", "inference-gateway-callers")["spec"]
    assert callers["podSelector"] == {"matchLabels": {"gateway.envoyproxy.io/owning-gateway-name": "inference"}}
    assert callers["ingress"][0] == {
        "from": [{"podSelector": {}}, {"ipBlock": {"cidr": "10.20.0.0/16"}}],
        "ports": [{"port": 10443, "protocol": "TCP"}],  # listener 443 served on 10443 in the proxy pod
    }
    model = _named(plan, "kubernetes:networking.k8s.io/v1:NetworkPolicy", "mistral-7b-callers")["spec"]
    assert not [c for c in model["ingress"][0]["from"] if "ipBlock" in c]  # the network reaches the Gateway only
    for r in resources(plan, "kubernetes:core/v1:Service"):
        assert r["spec"].get("type", "ClusterIP") == "ClusterIP", r["metadata"]["name"]


def test_internal_exposure_on_aws_is_an_nlb_that_keeps_the_callers_address_for_the_network_policy(plan_variant):
    """Issue #35 item 6: a Service of type LoadBalancer with only the internal annotation is a Classic ELB on EKS
    (cloud-provider-aws v1.35.2 reconciles it, no AWS Load Balancer Controller is installed), which proxies TCP and
    presents its own address: the proxies' ipBlock rule would never match a caller. The proxy Service is an internal
    NLB (instance targets, client IP preservation on) with externalTrafficPolicy Local, so the caller's own address
    reaches the proxy pod, and the NetworkPolicy admits exactly the allowed networks on the listener's pod port."""
    cidrs = ["10.20.0.0/16", "192.168.5.0/24"]
    plan = _exposed(plan_variant, {**INTERNAL, "allowedCidrs": cidrs})
    [proxy] = resources(plan, "kubernetes:gateway.envoyproxy.io/v1alpha1:EnvoyProxy")
    service = proxy["spec"]["provider"]["kubernetes"]["envoyService"]
    annotations = service["annotations"]
    assert service["type"] == "LoadBalancer" and service["loadBalancerSourceRanges"] == cidrs
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-type"] == "nlb"  # not the in-tree Classic ELB
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-internal"] == "true"
    attributes = annotations["service.beta.kubernetes.io/aws-load-balancer-target-group-attributes"].split(",")
    assert "preserve_client_ip.enabled=true" in attributes
    assert service["externalTrafficPolicy"] == "Local"  # kube-proxy does not masquerade the caller
    callers = _named(plan, "kubernetes:networking.k8s.io/v1:NetworkPolicy", "inference-gateway-callers")["spec"]
    [rule] = callers["ingress"]
    assert [c["ipBlock"]["cidr"] for c in rule["from"] if "ipBlock" in c] == cidrs
    assert rule["ports"] == [{"port": 10443, "protocol": "TCP"}]


@pytest.mark.parametrize("version", [None, "1.2"])
def test_tls_terminates_on_the_listener_at_1_3_by_default_and_1_2_by_the_field(plan_variant, version):
    tls = {"secretName": "inference-tls", **({"minVersion": version} if version else {})}
    plan = _exposed(plan_variant, {**INTERNAL, "tls": tls})
    [gateway] = resources(plan, "kubernetes:gateway.networking.k8s.io/v1:Gateway")
    [listener] = gateway["spec"]["listeners"]
    assert listener["protocol"] == "HTTPS" and listener["port"] == 443
    assert listener["tls"] == {"mode": "Terminate", "certificateRefs": [{"kind": "Secret", "name": "inference-tls"}]}
    [policy] = resources(plan, "kubernetes:gateway.envoyproxy.io/v1alpha1:ClientTrafficPolicy")
    assert policy["spec"]["targetRefs"] == [
        {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "inference"}
    ]
    assert policy["spec"]["tls"] == {"minVersion": version or "1.3"}


@pytest.mark.parametrize(
    "exposure, field",
    [
        ({**INTERNAL, "tls": {"secretName": "inference-tls", "minVersion": "1.1"}}, "exposure.tls.minVersion"),
        ({**INTERNAL, "tls": {"secretName": "inference-tls", "minVersion": "1.0"}}, "exposure.tls.minVersion"),
        ({"mode": "internal", "allowedCidrs": ["10.20.0.0/16"]}, "exposure"),
    ],
)
def test_other_tls_versions_and_internal_without_tls_are_one_line_and_exit_2(tmp_path, exposure, field):
    cluster = shipped_cluster(STACK)
    cluster["serving"]["exposure"] = exposure
    write_stack(tmp_path, "bad", cluster)
    result = run_cli("plan", "--stack", "bad", "--stacks-dir", str(tmp_path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = [x for x in (result.stderr + result.stdout).splitlines() if x.strip()]
    assert field in line


# ----------------------------------------------------------------------------------------------- readiness
def _without(drop) -> list:
    """The shipped plan's registrations less those ``drop(type, inputs)`` names: the program as it would be without."""
    out = []
    for r in shipped_plan(STACK).registrations:
        if not drop(r.type, r.inputs):
            props = struct_pb2.Struct()
            props.update(r.inputs)
            out.append(dataclasses.replace(r, properties=props))
    return out


@pytest.mark.parametrize(
    "drop, fragment",
    [
        (lambda t, i: t.endswith(":HTTPRoute"), "no HTTPRoute sends requests to InferencePool mistral-7b"),
        (lambda t, i: t.endswith(":InferencePool"), "no InferencePool selects its pods"),
        (
            lambda t, i: t == "kubernetes:core/v1:Service" and i["metadata"]["name"].endswith("-epp"),
            "endpoint picker Service mistral-7b-epp is not declared",
        ),
        (lambda t, i: t.endswith(":Gateway"), "attached to no declared Gateway"),
        (lambda t, i: t.endswith(":GatewayClass"), "class envoy-gateway is not declared"),
        (
            lambda t, i: t == "kubernetes:helm.sh/v3:Release" and i.get("name") == "ai-gateway-helm",
            "needs ai-gateway-helm installed",
        ),
    ],
)
def test_a_model_without_a_route_is_a_blocking_finding_and_exit_1(drop, fragment):
    plan = shipped_plan(STACK)
    assert readiness_serving.check(plan.registrations) == [] and plan.exit_code == 0
    regs = _without(drop)
    [found] = [f for f in readiness_serving.check(regs) if f.check == "serving-route"]
    assert found.level == "blocking" and fragment in found.message and found.fix
    gapped = dataclasses.replace(plan, registrations=tuple(regs), readiness=tuple(readiness_check(regs)))
    assert gapped.exit_code == 1
