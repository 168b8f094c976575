"""`serving.models.<name>`: models the cluster serves with vLLM, each scaling on its own load (issue #25).

Kept out of spec.py so the cluster spec stays one screen per concern; ClusterSpec carries one `serving` field.
What needs the catalog (does the model fit its group's GPUs?) is checked after the resolver chose the group's
shape (`fit_problems`), reusing the sizing advisor's memory model, never a second one.

Sources: VLLM_IMAGE is docker/Dockerfile's vllm-openai target at vllm-project/vllm tag v0.12.0, commit
4fd9d6a85c00ac0186aa9abbeff73fc2ac6c721e (read 2026-11-27 from the vllm-0.12.0.tar.gz source distribution); what
components/kubernetes/serving.py relies on in it (paths, flags, port, metrics) is listed there.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from catalog.model_shapes import model_shapes

from .errors import BlueprintError
from .platform_namespaces import PLATFORM_NAMESPACES
from .sizing.fit import ReplicaFit, replica_fit, weights_bytes
from .sizing.workload import MAX_BATCH, SERVED_PRECISIONS, Workload

# The vLLM OpenAI-compatible server image, pinned. Source: Docker Hub vllm/vllm-openai tag v0.12.0
# (https://hub.docker.com/layers/vllm/vllm-openai/v0.12.0/images/
#  sha256-f2309d913a07da49ea20b2a694703f4cfcb5ad8e7437ec0f26145479ac01e002,
# built from https://github.com/vllm-project/vllm/releases/tag/v0.12.0), read 2026-11-24.
VLLM_IMAGE = "vllm/vllm-openai:v0.12.0"
# Key prefixes in the stack's own bucket: no scheme (s3://, oss://), no leading '/', no '..' segment.
PREFIX = re.compile(r"^(?!.*(^|/)\.\.?(/|$))[A-Za-z0-9][A-Za-z0-9._/-]{0,511}/$")
Precision = Literal[SERVED_PRECISIONS]  # type: ignore[valid-type]
# The model server's load signals, as the autoscaler's query reads them (components/kubernetes/serving.py).
Signal = Literal["requests-waiting", "kv-cache", "gpu-utilization"]
# vLLM --dtype per precision; fp8 quantizes at load (--quantization fp8); int8/int4 need a quantized checkpoint
# (AWQ/GPTQ), whose config.json tells vLLM its method. https://docs.vllm.ai/en/stable/features/quantization/
ENGINE_DTYPE = {"bf16": "bfloat16", "fp16": "float16", "fp8": "fp8", "int8": "int8", "int4": "int4"}
# A Service of type LoadBalancer kept inside the VPC, per cloud:
# https://kubernetes.io/docs/concepts/services-networking/service/#internal-load-balancer (read 2026-11-24).
# AWS (issue #35 item 6): with `internal` alone the in-tree controller makes a Classic ELB, which proxies TCP and
# presents its own address, so the proxies' ipBlock NetworkPolicy would see the ELB, not the caller. No AWS Load
# Balancer Controller is installed, so EKS's cloud provider (kubernetes/cloud-provider-aws v1.35.2, commit 1c494fbc,
# pkg/providers/v1/aws.go) reconciles the Service: `aws-load-balancer-type: nlb` makes an NLB (isNLB) with instance
# targets (aws_loadbalancer.go, TargetTypeEnumInstance), `aws-load-balancer-internal` its internal scheme, and the
# source ranges are opened on the nodes' security group (updateInstanceSecurityGroupsForNLB). An instance target
# group keeps the client's IPv4 address by default (AWS, "Edit target group attributes for your Network Load
# Balancer", Client IP preservation: Instance type target groups: Enabled), and the target-group-attributes
# annotation sets preserve_client_ip.enabled=true explicitly (cloud-provider-aws v1.34.0 on, validated in
# aws_validations.go; older providers ignore it and keep AWS's default). With externalTrafficPolicy Local
# (components/kubernetes/inference_gateway.py) kube-proxy does not masquerade, so the proxy pod sees the caller.
INTERNAL_LB = {
    "aws": {
        "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
        "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
        "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes": "preserve_client_ip.enabled=true",
    },
    "alicloud": {"service.beta.kubernetes.io/alibaba-cloud-loadbalancer-address-type": "intranet"},
}
NAME = re.compile(r"^[a-z][a-z0-9-]{0,30}$")
# KEDA's accepted range for a Prometheus trigger's threshold (kedacore/keda v2.20.2, the chart we pin:
# pkg/scalers/prometheus_scaler.go reads it as a float64; pkg/scalers/scaler.go quantityFromFloat64 turns NaN, Inf and
# negatives into a target of 0 and writes the rest with "%.3f", so below 0.001 the target is 0, and notes int64
# overflow "when metricValue * 1000 exceeds math.MaxInt64 (~9.2e15 threshold)": the HPA counts in milli-units).
TARGET_MIN = 0.001
TARGET_MAX = (2**63 - 1) // 1000
# The Kubernetes objects a served model declares, (kind, name) with {m} its name and {ns} the serving namespace: its
# ModelServing (components/kubernetes/serving.py: a Deployment or, across nodes, a LeaderWorkerSet; on ACK its
# weights' claim and volume) and its InferenceRoute (inference_gateway.py: pool, route, endpoint picker and its
# metrics access); NAMESPACE_OBJECTS those declared once in the namespace (the serving Gateway, inference_gateway.py;
# the namespace's isolation, platform.py). The spec cannot import the
# components (tests/test_layers.py), so tests/test_serving_spec.py checks these against every object a plan registers.
MODEL_OBJECTS = (
    *((kind, "{m}") for kind in ("ServiceAccount", "Deployment", "LeaderWorkerSet", "Service", "PodMonitor")),
    *((kind, "{m}") for kind in ("ScaledObject", "InferencePool", "HTTPRoute")),
    ("NetworkPolicy", "{m}-callers"),
    ("PersistentVolumeClaim", "{m}-weights"),
    ("PersistentVolume", "{ns}-{m}-weights"),
    *((kind, "{m}-epp") for kind in ("ServiceAccount", "Role", "RoleBinding", "ConfigMap", "Deployment", "Service")),
    ("PodMonitor", "{m}-epp"),
    ("NetworkPolicy", "{m}-epp-scrape"),
    ("ClusterRole", "{ns}-{m}-epp-reviews"),
    ("ClusterRoleBinding", "{ns}-{m}-epp-reviews"),
    ("ServiceAccount", "{m}-epp-metrics-reader"),
    ("Secret", "{m}-epp-metrics-reader"),
    ("ClusterRole", "{ns}-{m}-epp-metrics-reader"),
    ("ClusterRoleBinding", "{ns}-{m}-epp-metrics-reader"),
)
NAMESPACE_OBJECTS = (
    ("Gateway", "inference"),
    ("EnvoyProxy", "inference"),
    ("ClientTrafficPolicy", "inference-tls"),
    ("NetworkPolicy", "inference-gateway-callers"),
    ("NetworkPolicy", "default-deny-ingress"),
    ("NetworkPolicy", "allow-same-namespace"),
)


def model_objects(model: str, namespace: str) -> frozenset[tuple[str, str]]:
    """(kind, name) of every Kubernetes object the model declares."""
    return frozenset((kind, name.format(m=model, ns=namespace)) for kind, name in MODEL_OBJECTS)


def covers_everything(cidrs: list[str]) -> Optional[str]:
    """The address space ("0.0.0.0/0" or "::/0") the networks' union covers whole, else None."""
    nets = [ipaddress.ip_network(c, strict=False) for c in cidrs]
    for everything in (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")):
        same = [n for n in nets if n.version == everything.version]
        if everything in ipaddress.collapse_addresses(same):
            return str(everything)
    return None


class SpecModel(BaseModel):
    """spec.SpecModel's settings (spec.py imports this module, so it cannot import spec.py back)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True, allow_inf_nan=False
    )


class TlsSpec(SpecModel):
    """TLS the Gateway's listener terminates (Envoy Gateway ClientTrafficPolicy tls.minVersion sets the floor)."""

    secret_name: str = Field(
        pattern=r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$",
        description="kubernetes.io/tls Secret in the serving namespace holding the certificate and key.",
    )
    min_version: Literal["1.3", "1.2"] = Field(
        "1.3", description="Lowest TLS version accepted: 1.3 (default, as the articles ask) or 1.2."
    )


class ExposureSpec(SpecModel):
    """Who may call the models, through the serving namespace's Gateway. Private: pods of the serving namespace
    only. Internal: an internal load balancer in front of the Gateway, reachable only from allowedCidrs, with TLS."""

    mode: Literal["private", "internal"] = Field(
        "private", description="private (in-cluster only) or internal (VPC-internal load balancer)."
    )
    allowed_cidrs: list[str] = Field(
        default_factory=list, description="internal: the networks that may call the endpoint (never 0.0.0.0/0)."
    )

    tls: Optional[TlsSpec] = Field(
        None, description="TLS on the Gateway's listener (443); required for internal. None: HTTP on 80, in-cluster."
    )

    @field_validator("allowed_cidrs")
    @classmethod
    def _cidrs(cls, v: list[str]) -> list[str]:
        for cidr in v:
            net = ipaddress.ip_network(cidr, strict=False)
            if net.prefixlen == 0:
                raise ValueError(
                    f"{cidr} admits every address; list the networks that call the model (for example 10.0.0.0/16)"
                )
        everything = covers_everything(v)
        if everything:
            raise ValueError(
                f"{', '.join(v)} together admit every address ({everything}); list the networks that call the model "
                "(for example 10.0.0.0/16)"
            )
        return v

    @model_validator(mode="after")
    def _needs_cidrs(self) -> ExposureSpec:
        if self.mode == "internal" and not self.allowed_cidrs:
            raise ValueError("exposure mode internal needs allowedCidrs (the networks allowed to call the model)")
        if self.mode == "internal" and self.tls is None:
            raise ValueError(
                "exposure mode internal needs tls.secretName (a kubernetes.io/tls Secret in the serving namespace): "
                "traffic from the VPC is served over TLS 1.3 (tls.minVersion 1.2 allowed)"
            )
        if self.mode == "private" and self.allowed_cidrs:
            raise ValueError("allowedCidrs are for exposure mode internal; private admits in-cluster callers only")
        return self


class ModelSpec(SpecModel):
    model: str = Field(description="Published architecture from catalog/model_shapes.yaml (sizes the replica).")
    weights_prefix: str = Field(
        description="Prefix of the stack's own bucket holding the weights in Hugging Face layout, such as "
        "models/mistral-7b/ (no s3:// or oss://: the stack's bucket only)."
    )
    node_group: str = Field(description="GPU node group the replicas run on.")
    tensor_parallel: int = Field(
        1, ge=1, le=16, description="GPUs per node of a replica (vLLM --tensor-parallel-size), within one node."
    )
    pipeline_parallel: int = Field(
        1,
        ge=1,
        le=64,
        description="Nodes per replica (vLLM --pipeline-parallel-size). 1: a replica on one node (a Deployment); "
        "above 1: a LeaderWorkerSet whose replica is this many pods on as many nodes, tensorParallel GPUs each, "
        "for a model larger than one node.",
    )
    precision: Precision = Field(
        "fp16",
        description="Weights precision: bf16/fp16 (vLLM --dtype), fp8 (quantized at load), int8/int4 (the "
        "weights must be a quantized AWQ/GPTQ checkpoint).",
    )
    max_context: int = Field(4096, ge=128, le=1_048_576, description="vLLM --max-model-len, tokens.")
    max_batch: int = Field(16, ge=1, le=MAX_BATCH, description="vLLM --max-num-seqs: sequences decoded together.")
    min_replicas: int = Field(0, ge=0, le=1000, description="Fewest replicas; 0 scales the model to zero.")
    max_replicas: int = Field(1, ge=1, le=1000, description="Most replicas the autoscaler may run.")
    signal: Signal = Field("requests-waiting", description="Load signal the replicas follow.")
    target: float = Field(
        5,
        description="Per-replica target of the signal: requests waiting, or a 0-1 fraction for "
        "kv-cache and gpu-utilization; KEDA's range, 0.001 to 9.2e15.",
    )

    @field_validator("target")
    @classmethod
    def _target(cls, v: float) -> float:
        if not TARGET_MIN <= v <= TARGET_MAX:  # NaN compares false too
            raise ValueError(
                f"{v:g} is outside what KEDA's Prometheus trigger accepts; allowed: {TARGET_MIN:g} to {TARGET_MAX:.3g} "
                "(below 0.001 KEDA writes a target of 0, above it the autoscaler's milli-units overflow)"
            )
        return v

    @field_validator("weights_prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        if not PREFIX.match(v):
            raise ValueError(
                f"{v!r} is not a prefix of the stack's bucket; write a relative key prefix ending "
                "in '/', such as models/mistral-7b/ (no s3://, oss://, leading '/' or '..')"
            )
        return v

    @field_validator("model")
    @classmethod
    def _model(cls, v: str) -> str:
        known = model_shapes()[1]
        if v not in known:
            raise ValueError(f"{v!r} is not in catalog/model_shapes.yaml; known: {', '.join(sorted(known))}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        if self.min_replicas > self.max_replicas:
            raise ValueError(
                f"minReplicas {self.min_replicas} is above maxReplicas {self.max_replicas}; "
                "allowed: 0 <= minReplicas <= maxReplicas"
            )
        heads, layers = model_shapes()[1][self.model].heads, model_shapes()[1][self.model].layers
        if self.pipeline_parallel > layers:
            raise ValueError(
                f"pipelineParallel {self.pipeline_parallel} exceeds {self.model}'s {layers} layers (a stage holds "
                f"at least one); allowed: 1 to {layers}"
            )
        if heads % self.tensor_parallel:
            degrees = [d for d in range(1, 17) if heads % d == 0]
            raise ValueError(
                f"tensorParallel {self.tensor_parallel} does not divide {self.model}'s {heads} "
                f"attention heads; allowed: {', '.join(map(str, degrees))}"
            )
        if self.signal != "requests-waiting" and self.target > 1:
            raise ValueError(f"target {self.target:g} for {self.signal} is a fraction from 0 to 1 (0.8 = 80%)")
        return self


class PodAutoscalingSpec(SpecModel):
    """KEDA on every cluster: the HorizontalPodAutoscaler on custom metrics for any workload, GPU pods included
    (CNCF AI Conformance MUST item pod_autoscaling), reading the Prometheus the monitoring stack ships."""

    enabled: bool = Field(
        True,
        description="Install KEDA (pinned, on the system nodes): pods scale on custom metrics read from Prometheus "
        "(GPU utilization, a model's queue depth). Served models need it.",
    )


class ServingSpec(SpecModel):
    namespace: str = Field("serving", pattern=r"^[a-z][a-z0-9-]{0,30}$", description="Namespace of the model servers.")
    models: dict[str, ModelSpec] = Field(default_factory=dict, description="Models served, by name.")
    exposure: ExposureSpec = Field(default_factory=ExposureSpec, description="Who may call the models.")

    @field_validator("models")
    @classmethod
    def _names(cls, v: dict[str, ModelSpec]) -> dict[str, ModelSpec]:
        for name in v:
            if not NAME.match(name):
                raise ValueError(f"model name {name!r} must be lowercase letters, digits and '-', at most 31")
        return v

    @model_validator(mode="after")
    def _distinct_objects(self) -> ServingSpec:
        """Two models (or a model and the Gateway) must not declare one object: `x` and `x-epp` would both declare
        the Deployment, Service, ServiceAccount and PodMonitor x-epp."""
        taken: dict[tuple[str, str], str] = {
            o: "the serving namespace (its Gateway, its policies)" for o in NAMESPACE_OBJECTS
        }
        for name in sorted(self.models):
            mine = model_objects(name, self.namespace)
            clash = sorted(o for o in mine if o in taken)
            if clash:
                objects = ", ".join(f"{kind} {object_name}" for kind, object_name in clash)
                raise ValueError(
                    f"models.{name}: its objects {objects} are already declared by {taken[clash[0]]}; allowed: a "
                    "model name whose objects (<name>, <name>-epp, <name>-callers, <name>-weights ...) no other "
                    "model or the Gateway declares"
                )
            taken.update({o: f"model {name}" for o in mine})
        return self


def spec_problems(spec) -> list[str]:
    """Serving settings that contradict the rest of the spec: "field: what is wrong; what is allowed" lines."""
    serving = spec.serving
    problems = []
    for name, m in serving.models.items():
        where = f"cluster.serving.models.{name}"
        if m.node_group not in spec.node_groups:
            problems.append(
                f"{where}.nodeGroup: {m.node_group!r} is not a node group; allowed: "
                f"{', '.join(sorted(spec.node_groups))}"
            )
        else:
            problems += _group_problems(where, m, spec.node_groups[m.node_group])
    taken = {*spec.kubernetes.teams, spec.kubernetes.trainer_namespace, *PLATFORM_NAMESPACES}
    if serving.models and serving.namespace in taken:
        problems.append(
            f"cluster.serving.namespace: {serving.namespace!r} is already used (a team, the trainer "
            "namespace or a platform namespace); allowed: a namespace of its own (default serving)"
        )
    if serving.models and not spec.kubernetes.pod_autoscaling.enabled:
        problems.append(
            "cluster.kubernetes.podAutoscaling.enabled: served models scale through KEDA; allowed: true while "
            "serving.models is set"
        )
    if serving.models and not spec.storage.object_storage.enabled:
        problems.append(
            "cluster.serving.models: weights load from the stack's bucket; set storage.objectStorage.enabled: true"
        )
    return problems


def _group_problems(where: str, m: ModelSpec, group) -> list[str]:
    """A replica's pods each take tensorParallel GPUs of one node, and its pipelineParallel nodes must all fit the
    group at once (LeaderWorkerSet starts a replica's pods together)."""
    problems = []
    if m.tensor_parallel > group.gpus_per_node:
        problems.append(
            f"{where}.tensorParallel: {m.tensor_parallel} GPUs per node but nodes of {m.node_group} have "
            f"{group.gpus_per_node}; allowed: up to {group.gpus_per_node} (a model larger than one node: "
            "pipelineParallel, the nodes per replica)"
        )
    if m.pipeline_parallel > group.max_nodes:
        problems.append(
            f"{where}.pipelineParallel: a replica spans {m.pipeline_parallel} nodes but nodeGroups.{m.node_group} "
            f"holds at most {group.max_nodes} (maxNodes); allowed: up to {group.max_nodes}, or raise maxNodes"
        )
    return problems


def model_workload(model: str, precision: str) -> Workload:
    """The catalog architecture ``model`` at ``precision`` as the sizing advisor's inference workload."""
    shape = model_shapes()[1][model]
    return Workload(
        params=shape.params,
        mode="inference",
        precision=precision,
        model=model,
        tokens=1,
        hidden_size=shape.hidden_size,
        layers=shape.layers,
        heads=shape.heads,
        kv_heads=shape.kv_heads,
    )


def replica_weights_bytes(m: ModelSpec) -> float:
    """The weights one replica of ``m`` loads, at its precision (sizing/fit.py)."""
    return weights_bytes(model_workload(m.model, m.precision))


def replica_fit_of(m: ModelSpec, memory_gib: float) -> ReplicaFit:
    """Whether one replica of ``m`` fits tensorParallel x pipelineParallel GPUs of ``memory_gib``, at its
    maxContext and maxBatch: sizing/fit.py, the function the advisor sizes with."""
    w = model_workload(m.model, m.precision)
    return replica_fit(w, memory_gib, m.tensor_parallel, m.max_context, m.max_batch, m.pipeline_parallel)


def check_fit(plan):
    """The resolved plan, or a BlueprintError listing every model that does not fit its group's chosen shape and
    every group whose always-on replicas exceed its GPUs at maxNodes."""
    groups = {g.name: g for g in plan.node_groups}
    problems = []
    for name, m in plan.spec.serving.models.items():
        group = groups[m.node_group]
        line = fit_problem(name, m, group.shape.gpu.model, group.shape.gpu.memory_gib, group.shape.instance_type)
        if line:
            problems.append(line)
    problems += always_on_problems(plan.spec.serving.models, groups)
    if problems:
        raise BlueprintError.many("", problems)
    return plan


def fit_problem(name: str, m: ModelSpec, gpu_model: str, memory_gib: float, instance_type: str) -> Optional[str]:
    """One line when a replica does not fit its GPUs (tensorParallel x pipelineParallel of them, with the 20%
    headroom the advisor keeps), else None."""
    fit = replica_fit_of(m, memory_gib)
    if fit.fits:
        return None
    weights, kv, usable = fit.weights_gib, fit.kv_gib, fit.usable_gib
    nodes = f" on each of {m.pipeline_parallel} nodes" if m.pipeline_parallel > 1 else ""
    return (
        f"cluster.serving.models.{name}: {m.model} at {m.precision} needs {weights:,.1f} GiB of weights + "
        f"{kv:,.1f} GiB of KV cache ({m.max_context} tokens x {m.max_batch} sequences) but "
        f"{m.tensor_parallel} x {gpu_model} on {instance_type}{nodes} leave {usable:,.1f} GiB usable (80% of "
        f"{memory_gib:g} GiB each); allowed: a smaller maxContext or maxBatch, a lower precision, more "
        f"tensorParallel or pipelineParallel (nodes per replica), or a group with larger GPUs"
    )


def always_on_problems(models: dict[str, ModelSpec], groups) -> list[str]:
    """minReplicas x GPUs per replica (tensorParallel x pipelineParallel), summed over the models of a group, must fit
    the group's GPUs at maxNodes (its chosen shape's GPUs per node): replicas beyond it stay pending forever."""
    problems = []
    for group_name, group in groups.items():
        on = {n: m for n, m in models.items() if m.node_group == group_name and m.min_replicas}
        need = sum(m.min_replicas * m.tensor_parallel * m.pipeline_parallel for m in on.values())
        holds = group.spec.max_nodes * group.shape.gpu.count
        if need > holds:
            first = sorted(on)[0]
            terms = " + ".join(
                f"{n} {m.min_replicas} x {m.tensor_parallel * m.pipeline_parallel}" for n, m in sorted(on.items())
            )
            problems.append(
                f"cluster.serving.models.{first}.minReplicas: always-on replicas on nodeGroups.{group_name} take "
                f"{need} GPUs ({terms}) but the group holds {holds} at maxNodes ({group.spec.max_nodes} x "
                f"{group.shape.gpu.count} {group.shape.gpu.model}); allowed: minReplicas summing to at most {holds} "
                "GPUs, or a larger maxNodes"
            )
    return problems
