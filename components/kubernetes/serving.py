"""ModelServing: one model behind vLLM's OpenAI-compatible server, scaled on its own load by KEDA.

Replicas of ``gpus`` GPUs each on one node group: a Deployment when a replica fits one node, a LeaderWorkerSet when it
spans ``nodes`` nodes (only its leader serves and carries the model's labels); a ClusterIP Service, a PodMonitor so
the kube-prometheus-stack scrapes vLLM's /metrics, a KEDA ScaledObject whose Prometheus trigger reads the model's load
(queue depth, KV-cache use or GPU utilization), with a second trigger on the model's endpoint picker that wakes it
from zero replicas (_autoscaling), and a NetworkPolicy admitting only its own namespace (the Gateway's
proxies and endpoint picker, inference_gateway.py) and the scrape: callers come through the Gateway.

Sources (read 2026-11-24):
- vLLM server flags and /health, /metrics: https://docs.vllm.ai/en/stable/serving/openai_compatible_server.html,
  https://docs.vllm.ai/en/stable/usage/metrics/ (vllm:num_requests_waiting, vllm:kv_cache_usage_perc).
- Weights streamed from object storage: https://docs.vllm.ai/en/stable/models/extensions/runai_model_streamer/
  (`vllm serve s3://bucket/prefix --load-format runai_streamer`, credentials from the AWS SDK chain, so IRSA).
- KEDA ScaledObject, Prometheus scaler: https://keda.sh/docs/2.20/reference/scaledobject-spec/,
  https://keda.sh/docs/2.20/scalers/prometheus/ (minReplicaCount 0 scales to zero).
- Multi-node replicas: vLLM's LWS deployment (https://docs.vllm.ai/en/latest/deployment/frameworks/lws.html, as of
  vllm-project/vllm@051f9b87 docs/deployment/frameworks/lws.md) and kubernetes-sigs/lws@v0.10.0
  docs/examples/vllm/GPU/lws.yaml: the leader starts a Ray head with examples/online_serving/multi-node-serving.sh and
  waits for LWS_GROUP_SIZE nodes, then serves with --tensor-parallel-size = GPUs per node and
  --pipeline-parallel-size = nodes (docs/serving/parallelism_scaling.md), workers join the leader's Ray
  (LWS_LEADER_ADDRESS); restartPolicy RecreateGroupOnPodRestart restarts the whole replica when one pod fails.
- KEDA scales a custom resource through its /scale subresource (https://keda.sh/docs/2.20/concepts/scaling-deployments/
  "Scaling of Custom Resources"); the LeaderWorkerSet CRD has one (specReplicasPath .spec.replicas, labelSelectorPath
  .status.hpaPodSelector: kubernetes-sigs/lws@v0.10.0 charts/lws/crds, site/content/en/docs/examples/hpa.md), so a
  replica is a whole group of pods.
- PodMonitor: prometheus-operator API monitoring.coreos.com/v1; `prometheus-operated` is the Service the operator
  creates for every Prometheus in its namespace.
- What the image relies on, checked against vllm-project/vllm tag v0.12.0, commit
  4fd9d6a85c00ac0186aa9abbeff73fc2ac6c721e (read 2026-11-27 from the 0.12.0 source distribution, vllm-0.12.0.tar.gz,
  whose vllm/_version.py names commit g4fd9d6a85): docker/Dockerfile stage vllm-base sets WORKDIR /vllm-workspace and
  copies examples/ there, and the vllm-openai target builds on it (via vllm-openai-base) with ENTRYPOINT ["vllm",
  "serve"], so a Deployment passes args only. examples/online_serving/multi-node-serving.sh: `leader
  --ray_cluster_size=N` runs `ray start --head --port=6379` and polls until N nodes are alive, exiting 1 after
  --ray_init_timeout (default 300 s), which restarts the leader and so the whole group; `worker --ray_address=A` retries
  `ray start --address=A:6379 --block` for up to 300 s and blocks once joined. vllm/engine/arg_utils.py defines every
  flag engine_args passes (--load-format runai_streamer, --distributed-executor-backend ray);
  vllm/entrypoints/openai/cli_args.py: port 8000; vllm/entrypoints/openai/api_server.py: GET /health and /metrics.
  vllm/v1/metrics/loggers.py: the gauges vllm:num_requests_waiting and vllm:kv_cache_usage_perc (1 = 100%) carry labels
  model_name and engine, model_name being the first --served-model-name (vllm/config/model.py get_served_model_name),
  which engine_args sets to the name the queries read.
"""

import json
from dataclasses import dataclass, field, replace
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from ..base import KUBERNETES, Args, Component, as_args
from .inference_gateway import EPP_IMAGE, VLLM_KV_CACHE_GAUGE, GatewayExposure, wake_query
from .nodes import GPU_RESOURCE

PORT = 8000
LWS_API = "leaderworkerset.x-k8s.io/v1"
# Ray's helper as the vLLM image ships it (vLLM's LWS deployment page); it moves with the image (examples/).
RAY_SCRIPT = "/vllm-workspace/examples/online_serving/multi-node-serving.sh"
PROMETHEUS = "http://prometheus-operated.monitoring.svc:9090"
MONITORING_NAMESPACE = "monitoring"
WAKE_TRIGGER = "wake"  # the trigger that wakes a model at zero replicas (_autoscaling)
# vLLM's gauges per replica, and DCGM's GPU utilization (0-100) for the pods of the model.
QUERIES = {
    "requests-waiting": 'sum(vllm:num_requests_waiting{{namespace="{ns}",model_name="{model}"}})',
    "kv-cache": f'avg({VLLM_KV_CACHE_GAUGE}{{{{namespace="{{ns}}",model_name="{{model}}"}}}})',
    # The GPU Operator's exporter is scraped with honorLabels (platform.operator_values), so `namespace` and `pod`
    # are those of the pod holding the GPU, as the idle-GPU alert reads them.
    "gpu-utilization": 'avg(DCGM_FI_DEV_GPU_UTIL{{namespace="{ns}",pod=~"{model}-.*"}}) / 100',
}


def load_query(signal: str, namespace: str, model: str) -> str:
    """The PromQL KEDA evaluates; with the Prometheus scaler's AverageValue metric type, KEDA divides the total by
    the replica count, so the sum of waiting requests means 'waiting per replica' and averages stay averages."""
    return QUERIES[signal].format(ns=namespace, model=model)


@dataclass(frozen=True)
class WeightsVolume(Args):
    """The weights' prefix as a read-only CSI volume (ACK: the OSS CSI driver with RRSA), mounted at /models."""

    driver: str
    """The CSI driver, ossplugin.csi.alibabacloud.com on ACK."""
    attributes: Mapping[str, pulumi.Input[str]]
    """The driver's volumeAttributes (bucket, path, url, authType, roleName...)."""


@dataclass(frozen=True)
class ModelServingArgs(Args):
    """One model served by vLLM. Fields without a default are required."""

    model: str
    """Name the model is served under (the OpenAI API's `model`) and the objects' name."""
    namespace: str
    """Namespace of the model server (it must exist)."""
    image: str
    """The vLLM OpenAI server image, pinned."""
    weights_prefix: str
    """Prefix of the weights in the stack's bucket, models/<name>/."""
    gpus: int
    """GPUs per pod, all of one node (vLLM --tensor-parallel-size)."""
    dtype: str
    """vLLM --dtype (float16, bfloat16) or, for fp8/int8/int4, the quantization (--quantization)."""
    max_context: int
    """vLLM --max-model-len."""
    max_batch: int
    """vLLM --max-num-seqs."""
    node_selector: Mapping[str, str]
    """Labels of the node group the replicas run on."""
    tolerations: Sequence[Mapping[str, str]]
    """The group's workload taints, tolerated."""
    min_replicas: int
    """Fewest replicas; 0 lets the model scale to zero."""
    max_replicas: int
    """Most replicas."""
    cpu: str
    """CPU each replica requests (and is limited to)."""
    memory: str
    """Host memory each replica requests and is limited to (the weights pass through it while streaming)."""
    signal: str
    """requests-waiting, kv-cache or gpu-utilization (QUERIES)."""
    target: float
    """Per-replica target of the signal."""
    nodes: Optional[int] = 1
    """Nodes per replica (vLLM --pipeline-parallel-size); above 1 a replica is a LeaderWorkerSet group of this many
    pods, one leader serving the API and workers joining its Ray cluster. 1 by default: a Deployment."""
    bucket: Optional[pulumi.Input[str]] = None
    """The stack's bucket the weights are streamed from (s3://<bucket>/<prefix>, Run:ai Model Streamer); the
    cluster component sets it, since it creates the bucket."""
    streamer_buffer_bytes: Optional[int] = None
    """Bytes of host memory the Run:ai Model Streamer buffers weights in while streaming them (vLLM
    --model-loader-extra-config memory_limit; 0: the largest tensor only). None leaves the streamer's default, 40 GB
    (runai-model-streamer 0.15 RUNAI_STREAMER_MEMORY_LIMIT), which a container limited to less is OOM-killed by while
    loading; the cluster sets what the memory limit leaves beside the engine."""
    volume: Optional[WeightsVolume] = None
    """The weights as a read-only CSI volume instead of streaming them (ACK's OSS driver); set by the cluster."""
    service_account_annotations: Optional[Mapping[str, pulumi.Input[str]]] = field(default_factory=dict)
    """The model server's identity (IRSA role that reads only the model's prefix); none by default."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Labels on every object; none by default."""
    annotations: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Annotations on the Deployment (the model's architecture and precision, read by the plan's readiness check);
    none by default."""

    @property
    def engine_args(self) -> list[str]:
        quantized = self.dtype in ("fp8", "int8", "int4")
        loader = [] if self.volume is not None else ["--load-format", "runai_streamer"]
        if loader and self.streamer_buffer_bytes is not None:
            # vLLM 0.12 runai_streamer_loader.py: an int memory_limit becomes RUNAI_STREAMER_MEMORY_LIMIT.
            loader += ["--model-loader-extra-config", json.dumps({"memory_limit": self.streamer_buffer_bytes})]
        return [
            "--model",
            "$(WEIGHTS_URI)",
            "--served-model-name",
            self.model,
            *loader,
            "--port",
            str(PORT),
            "--tensor-parallel-size",
            str(self.gpus),
            *(
                ["--pipeline-parallel-size", str(self.nodes), "--distributed-executor-backend", "ray"]
                if self.nodes > 1
                else []
            ),
            "--max-model-len",
            str(self.max_context),
            "--max-num-seqs",
            str(self.max_batch),
            *(["--quantization", "fp8"] if self.dtype == "fp8" else []),
            *(["--dtype", self.dtype] if not quantized else []),
        ]


class ModelServing(Component):
    """vLLM replicas of one model, its Service, scrape, autoscaling and ingress policy."""

    PACKAGE = KUBERNETES

    def __init__(self, name: str, args: ModelServingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(ModelServingArgs, args)
        if args.bucket is None and args.volume is None:
            raise ValueError(f"model {args.model}: no bucket or volume to load its weights from (ServingArgs)")
        app = {"app.kubernetes.io/name": "vllm", "app.kubernetes.io/instance": args.model}
        self.pod_labels = app
        """Labels of the model's pods (its InferencePool selects them)."""
        meta = {"name": args.model, "namespace": args.namespace, "labels": {**args.labels, **app}}
        sa = k8s.core.v1.ServiceAccount(
            f"{name}-sa",
            metadata={**meta, "annotations": dict(args.service_account_annotations)},
            opts=pulumi.ResourceOptions(parent=self),
        )
        mounts, volumes, claim = self._weights_volume(name, args, meta)
        container, after = self._container(args, mounts), [sa, *claim]
        self.workload = (
            self._leader_worker_set(name, args, meta, app, container, volumes, after)
            if args.nodes > 1
            else self._deployment(name, args, meta, app, container, volumes, after)
        )
        self._service_and_scrape(name, args, meta, app)
        self._autoscaling(name, args, meta)
        self._ingress_policy(name, args, meta, app)
        self.register_outputs({})

    def _weights_volume(self, name: str, args: ModelServingArgs, meta: dict) -> tuple[list, list, list]:
        """On ACK, the weights' prefix as a read-only CSI volume (mounts, pod volumes, the claim to wait for); on EKS
        vLLM streams them from the bucket and there is nothing to mount."""
        if args.volume is None:
            return [], [], []
        weights = f"{args.namespace}-{args.model}-weights"  # cluster-scoped: the namespace keeps it unique
        pv = k8s.core.v1.PersistentVolume(
            f"{name}-weights",
            metadata={"name": weights, "labels": meta["labels"]},
            spec={
                "capacity": {"storage": "1Gi"},  # only matches the claim; the bucket has no size
                "accessModes": ["ReadOnlyMany"],
                "persistentVolumeReclaimPolicy": "Retain",
                "storageClassName": "",
                "csi": {
                    "driver": args.volume.driver,
                    "volumeHandle": weights,
                    "readOnly": True,
                    "volumeAttributes": dict(args.volume.attributes),
                },
            },
            opts=pulumi.ResourceOptions(parent=self),
        )
        claim = k8s.core.v1.PersistentVolumeClaim(
            f"{name}-weights-claim",
            metadata={**meta, "name": f"{args.model}-weights"},
            spec={
                "accessModes": ["ReadOnlyMany"],
                "storageClassName": "",
                "volumeName": weights,
                "resources": {"requests": {"storage": "1Gi"}},
            },
            opts=pulumi.ResourceOptions(parent=self, depends_on=[pv]),
        )
        mounts = [{"name": "weights", "mountPath": "/models", "readOnly": True}]
        volumes = [
            {"name": "weights", "persistentVolumeClaim": {"claimName": f"{args.model}-weights", "readOnly": True}}
        ]
        return mounts, volumes, [claim]

    @staticmethod
    def _container(args: ModelServingArgs, mounts: list) -> dict:
        """The vLLM container: its GPUs, non-root on a read-only root, probes on /health."""
        source = (
            "/models"
            if args.volume is not None
            else pulumi.Output.concat("s3://", args.bucket, "/", args.weights_prefix)
        )
        probe = {"httpGet": {"path": "/health", "port": PORT}, "periodSeconds": 10}
        return {
            "name": "vllm",
            "image": args.image,
            "args": args.engine_args,
            "env": [
                {"name": "WEIGHTS_URI", "value": source},
                # Not root, read-only root file system: caches (Hugging Face, torch.compile, Triton) go to
                # $HOME/.cache, an emptyDir.
                {"name": "HOME", "value": "/cache"},
            ],
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 1000,
                "runAsGroup": 1000,
                "readOnlyRootFilesystem": True,
                "allowPrivilegeEscalation": False,
                "capabilities": {"drop": ["ALL"]},
                "seccompProfile": {"type": "RuntimeDefault"},  # Pod Security Standards, restricted
            },
            "ports": [{"name": "http", "containerPort": PORT}],
            "resources": {
                "limits": {GPU_RESOURCE: str(args.gpus), "cpu": args.cpu, "memory": args.memory},
                "requests": {GPU_RESOURCE: str(args.gpus), "cpu": args.cpu, "memory": args.memory},
            },
            # Loading and compiling a model takes minutes: the startup probe holds the others off meanwhile.
            "startupProbe": {**probe, "failureThreshold": 90},
            "readinessProbe": {**probe, "failureThreshold": 3},
            "livenessProbe": {**probe, "failureThreshold": 6},
            "volumeMounts": [
                {"name": "shm", "mountPath": "/dev/shm"},
                {"name": "cache", "mountPath": "/cache"},
                {"name": "tmp", "mountPath": "/tmp"},
                *mounts,
            ],
        }

    @staticmethod
    def _pod_spec(args: ModelServingArgs, container: dict, volumes: list) -> dict:
        """A replica's pod on the model's group, with its caches and weights."""
        return {
            "serviceAccountName": args.model,
            "nodeSelector": dict(args.node_selector),
            "tolerations": [dict(t) for t in args.tolerations],
            "containers": [container],
            # PyTorch shares tensors between tensor-parallel workers through /dev/shm (vLLM docker docs).
            "volumes": [
                {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}},
                {"name": "cache", "emptyDir": {"sizeLimit": "20Gi"}},
                {"name": "tmp", "emptyDir": {"sizeLimit": "4Gi"}},
                *volumes,
            ],
        }

    def _deployment(
        self, name: str, args: ModelServingArgs, meta: dict, app: dict, container: dict, volumes: list, after: list
    ) -> k8s.apps.v1.Deployment:
        """The replicas on the model's group; `pulumi up` does not wait for them: they need a node from the
        autoscaler and the weights in the bucket, which are uploaded after the first `pulumi up`
        (pulumi-kubernetes: pulumi.com/skipAwait)."""
        return k8s.apps.v1.Deployment(
            f"{name}-deployment",
            metadata={**meta, "annotations": {**args.annotations, "pulumi.com/skipAwait": "true"}},
            spec={
                "replicas": args.min_replicas,
                "selector": {"matchLabels": app},
                "template": {
                    "metadata": {"labels": {**args.labels, **app}},
                    "spec": self._pod_spec(args, container, volumes),
                },
            },
            # KEDA owns the replica count once it runs; a later `pulumi up` must not reset it.
            opts=pulumi.ResourceOptions(parent=self, depends_on=after, ignore_changes=["spec.replicas"]),
        )

    def _leader_worker_set(
        self, name: str, args: ModelServingArgs, meta: dict, app: dict, container: dict, volumes: list, after: list
    ) -> k8s.apiextensions.CustomResource:
        """A replica larger than one node: a LeaderWorkerSet group of ``nodes`` pods. The leader (which alone carries
        the model's labels, so the Service, PodMonitor and ingress policy select it) starts Ray, waits for the group
        and serves the API; each worker joins the leader's Ray and holds its pipeline stage. Pods of the namespace
        reach each other (isolate_namespace), which Ray needs; KEDA scales whole groups (spec.replicas)."""
        serve = 'exec python3 -m vllm.entrypoints.openai.api_server "$@"'
        leader = {
            **container,
            "command": [
                "sh",
                "-c",
                f"bash {RAY_SCRIPT} leader --ray_cluster_size=$(LWS_GROUP_SIZE) && {serve}",
                "vllm",
            ],
        }
        worker = {
            key: value
            for key, value in container.items()
            if key not in ("args", "ports", "startupProbe", "readinessProbe", "livenessProbe")
        }
        worker["command"] = ["sh", "-c", f"exec bash {RAY_SCRIPT} worker --ray_address=$(LWS_LEADER_ADDRESS)"]
        workers = {**app, "app.kubernetes.io/component": "pipeline-worker", "app.kubernetes.io/name": "vllm-worker"}
        return k8s.apiextensions.CustomResource(
            f"{name}-leaderworkerset",
            api_version=LWS_API,
            kind="LeaderWorkerSet",
            metadata={**meta, "annotations": {**args.annotations, "pulumi.com/skipAwait": "true"}},
            spec={
                "replicas": args.min_replicas,
                "leaderWorkerTemplate": {
                    "size": args.nodes,
                    "restartPolicy": "RecreateGroupOnPodRestart",
                    "leaderTemplate": {
                        "metadata": {"labels": {**args.labels, **app}},
                        "spec": self._pod_spec(args, leader, volumes),
                    },
                    "workerTemplate": {
                        "metadata": {"labels": {**args.labels, **workers}},
                        "spec": self._pod_spec(args, worker, volumes),
                    },
                },
            },
            opts=pulumi.ResourceOptions(parent=self, depends_on=after, ignore_changes=["spec.replicas"]),
        )

    def _service_and_scrape(self, name: str, args: ModelServingArgs, meta: dict, app: dict) -> None:
        """A ClusterIP Service (in-namespace callers; others come through the Gateway), and the PodMonitor the
        kube-prometheus-stack scrapes vLLM's /metrics through."""
        k8s.core.v1.Service(
            f"{name}-service",
            metadata=meta,
            spec={
                "selector": app,
                "ports": [{"name": "http", "port": PORT, "targetPort": "http"}],
                "type": "ClusterIP",
            },
            opts=pulumi.ResourceOptions(parent=self),
        )
        k8s.apiextensions.CustomResource(
            f"{name}-podmonitor",
            api_version="monitoring.coreos.com/v1",
            kind="PodMonitor",
            metadata=meta,
            spec={
                "selector": {"matchLabels": app},
                "podMetricsEndpoints": [{"port": "http", "path": "/metrics", "interval": "15s"}],
            },
            opts=pulumi.ResourceOptions(parent=self),
        )

    def _autoscaling(self, name: str, args: ModelServingArgs, meta: dict) -> None:
        """KEDA scales the Deployment (or the LeaderWorkerSet, a whole group a replica) on the model's load signal,
        read from Prometheus; a model that may scale to zero gets a second trigger that wakes it.

        At zero replicas the load signal has no series (KEDA reads the empty result as 0), so nothing would wake the
        model: the wake trigger reads its endpoint picker instead (inference_gateway.wake_query), which is 1 while
        requests are refused for want of a ready replica or are in flight, and 0 otherwise. KEDA activates the
        target (0 -> 1) when any trigger is above its activationThreshold (here 0) and scales it to zero only after
        every trigger has been inactive for cooldownPeriod; above zero the HPA takes the largest replica count its
        triggers ask for, and the wake trigger (AverageValue, threshold 1) never asks for more than one. The first
        requests are answered 503 by the endpoint picker until a replica is ready (a node to add, the weights to
        load: minutes); clients retry. Sources: https://keda.sh/docs/2.20/concepts/scaling-deployments/
        ("Activating and Scaling thresholds"), https://keda.sh/docs/2.20/reference/faq/ ("Using multiple triggers for
        the same scale target"; kedacore/keda-docs@a55c5d34 data/faq2_19.toml, which the 2.20 FAQ page renders),
        https://keda.sh/docs/2.20/scalers/prometheus/ (read 2026-11-27)."""
        triggers = [
            {
                "type": "prometheus",
                "metricType": "AverageValue",
                "metadata": {
                    "serverAddress": PROMETHEUS,
                    "query": load_query(args.signal, args.namespace, args.model),
                    "threshold": f"{args.target:g}",
                    "activationThreshold": "0",
                },
            }
        ]
        if args.min_replicas == 0:
            triggers.append(
                {
                    "type": "prometheus",
                    "name": WAKE_TRIGGER,
                    "metricType": "AverageValue",
                    "metadata": {
                        "serverAddress": PROMETHEUS,
                        "query": wake_query(args.namespace, args.model),
                        "threshold": "1",
                        "activationThreshold": "0",
                    },
                }
            )
        k8s.apiextensions.CustomResource(
            f"{name}-scaledobject",
            api_version="keda.sh/v1alpha1",
            kind="ScaledObject",
            metadata=meta,
            spec={
                "scaleTargetRef": (
                    {"apiVersion": LWS_API, "kind": "LeaderWorkerSet", "name": args.model}
                    if args.nodes > 1
                    else {"name": args.model}
                ),
                "minReplicaCount": args.min_replicas,
                "maxReplicaCount": args.max_replicas,
                "pollingInterval": 15,
                "cooldownPeriod": 300,
                "triggers": triggers,
            },
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.workload]),
        )

    def _ingress_policy(self, name: str, args: ModelServingArgs, meta: dict, app: dict) -> None:
        """Callers: the serving namespace's own pods (the Gateway's proxies, the endpoint picker) and the monitoring
        scrape; nothing else (networks outside the cluster reach the Gateway, inference_gateway.py)."""
        callers: list[dict] = [
            {"podSelector": {}},  # the serving namespace's own pods
            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": MONITORING_NAMESPACE}}},
        ]  # the scrape
        k8s.networking.v1.NetworkPolicy(
            f"{name}-ingress",
            metadata={**meta, "name": f"{args.model}-callers"},
            spec={
                "podSelector": {"matchLabels": app},
                "policyTypes": ["Ingress"],
                "ingress": [{"from": callers, "ports": [{"port": PORT, "protocol": "TCP"}]}],
            },
            opts=pulumi.ResourceOptions(parent=self),
        )


@dataclass(frozen=True)
class ServingAccess(Args):
    """How the model servers reach their weights: what only the cluster knows, since it creates the bucket and the
    roles (PlatformArgs.serving_access); a model's own value, where it gives one, is kept."""

    nodes: Optional[int] = 1
    """Nodes per replica (vLLM --pipeline-parallel-size); above 1 a replica is a LeaderWorkerSet group of this many
    pods, one leader serving the API and workers joining its Ray cluster. 1 by default: a Deployment."""
    bucket: Optional[pulumi.Input[str]] = None
    """The stack's bucket the weights are streamed from."""
    service_account_annotations: Optional[Mapping[str, Mapping[str, pulumi.Input[str]]]] = field(default_factory=dict)
    """Model -> annotations binding its ServiceAccount to a role reading only its prefix."""
    volumes: Optional[Mapping[str, WeightsVolume]] = field(default_factory=dict)
    """Model -> its weights as a read-only CSI volume (ACK). Models without one stream from the bucket."""


@dataclass(frozen=True)
class ServingArgs(Args):
    """The models a cluster serves, in one namespace, scaled by KEDA, called through one Gateway."""

    namespace: str
    """Namespace of the model servers."""
    models: Sequence[ModelServingArgs]
    """The models; where their weights are and who may read them come from the cluster (ServingAccess)."""
    exposure: Optional[GatewayExposure] = field(default_factory=GatewayExposure)
    """Who may call the models through the Gateway, and its TLS; in-cluster over HTTP by default."""
    endpoint_picker_image: Optional[str] = EPP_IMAGE
    """Each model's endpoint picker image: EPP_IMAGE (by tag) by default; a stack passes it pinned by digest."""

    def resolved(self, access: Optional[ServingAccess]) -> list[ModelServingArgs]:
        """Each model with the cluster's bucket, its own identity and its volume, where the model gives none."""
        access = access or ServingAccess()
        return [
            replace(
                m,
                bucket=m.bucket if m.bucket is not None else access.bucket,
                volume=m.volume if m.volume is not None else access.volumes.get(m.model),
                service_account_annotations=dict(
                    m.service_account_annotations or access.service_account_annotations.get(m.model, {})
                ),
            )
            for m in self.models
        ]
