"""What the stack tells the kit about its cluster: the minor, where GPU pods land, the team queue, the serving
Gateway and Prometheus. Every name comes from the module that declares it on the cluster (defined once there)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from catalog.image_digests import pinned
from components.kubernetes.acceptance import IMAGE
from components.kubernetes.inference_gateway import GATEWAY_NAME
from components.kubernetes.mirror import mirrored
from components.kubernetes.monitoring import NAMESPACE as MONITORING_NAMESPACE
from components.kubernetes.nodes import GPU_TAINT_KEY, NODE_GROUP_LABEL
from components.kubernetes.queueing import DEFAULT_QUEUE

from ..errors import BlueprintError
from ..stackconfig import STACKS_DIR, available_stacks, load_stack_spec

# prometheus-operator creates this governing Service for every Prometheus it runs (pkg/prometheus/server
# statefulset.go makeStatefulSetService: governingServiceName "prometheus-operated", port 9090 named
# spec.portName, default "web"): the kit queries Prometheus through the API server's service proxy, which takes the
# port's name (https://kubernetes.io/docs/tasks/access-application-cluster/access-cluster-services/).
PROMETHEUS_SERVICE = "prometheus-operated"
PROMETHEUS_PORT = "web"


@dataclass(frozen=True)
class Target:
    stack: str
    cloud: str
    minor: str
    gpu_group: str | None
    """The GPU node group the demonstration pods select (its NODE_GROUP_LABEL value); None: the stack has none."""
    gpu_tolerations: tuple[Mapping[str, str], ...]
    queue_namespace: str | None
    """A team namespace: Kueue gives its jobs the LocalQueue `queue` (None: no team, no queue)."""
    queue: str
    serving_namespace: str | None
    """The namespace of the serving Gateway (None: the stack serves no model, so it declares no Gateway)."""
    gateway: str
    monitoring_namespace: str | None
    image: str
    """What every demonstration pod runs: the acceptance check's CUDA image (components/kubernetes/acceptance.py),
    pinned by digest where catalog/image_digests.yaml records it and pulled through the stack's registry mirror, as
    compose deploys it. It has python3 for the small HTTP servers, and NVIDIA's container toolkit mounts nvidia-smi
    into a container only when it is given GPUs."""
    prometheus_service: str = PROMETHEUS_SERVICE
    prometheus_port: str = PROMETHEUS_PORT

    @property
    def node_selector(self) -> dict[str, str]:
        return {NODE_GROUP_LABEL: self.gpu_group} if self.gpu_group else {}


def load_target(stack: str, stacks_dir=STACKS_DIR) -> Target:
    if stack not in available_stacks(stacks_dir):
        known = ", ".join(available_stacks(stacks_dir))
        raise BlueprintError("--stack", f"no stack {stack!r} in {stacks_dir.name}/; one of: {known}")
    spec = load_stack_spec(stack, stacks_dir)
    gpu = next(iter(sorted(spec.node_groups)), None)
    tolerations: tuple[Mapping[str, str], ...] = ()
    if gpu is not None:
        taints = spec.node_groups[gpu].taints or []
        tolerations = tuple(
            {"key": t.key, "operator": "Equal", "value": t.value, "effect": t.effect}
            if t.value
            else {"key": t.key, "operator": "Exists", "effect": t.effect}
            for t in taints
        ) or ({"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"},)
    teams = sorted(spec.kubernetes.teams)
    queueing = spec.kubernetes.queueing.enabled
    image = pinned(IMAGE)
    if spec.kubernetes.registry.mirror:
        image = mirrored(image, spec.kubernetes.registry.mirror)
    return Target(
        stack=stack,
        cloud=str(spec.cloud.value if hasattr(spec.cloud, "value") else spec.cloud),
        minor=spec.kubernetes_version,
        gpu_group=gpu,
        gpu_tolerations=tolerations,
        queue_namespace=teams[0] if teams and queueing else None,
        queue=DEFAULT_QUEUE,
        serving_namespace=spec.serving.namespace if spec.serving.models else None,
        gateway=GATEWAY_NAME,
        monitoring_namespace=MONITORING_NAMESPACE if spec.kubernetes.monitoring.enabled else None,
        image=image,
    )
