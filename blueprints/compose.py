"""compose(plan) -> component args: the one place a resolved plan becomes what the components take.

Components know nothing of specs, presets or the catalog; the resolver knows nothing of Pulumi. This module
sits between them: it copies each decided fact (shape, price-free sizes, add-on versions, the acceptance
expectation) into the typed args of `components.cluster_args`, and picks the cloud's cluster component.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional

import pulumi

from catalog.image_digests import pinned
from catalog.serving_engine import serving_engine
from components.cluster_args import (
    AlertTopicArgs,
    AlicloudClusterArgs,
    AutoscalingArgs,
    AwsClusterArgs,
    BudgetArgs,
    ClusterArgs,
    FileSystemArgs,
    GpuGroupArgs,
    ObjectStorageArgs,
    PlatformSettings,
    SystemGroupArgs,
)
from components.kubernetes.acceptance import IMAGE as ACCEPTANCE_IMAGE
from components.kubernetes.inference_gateway import EPP_IMAGE, GatewayExposure
from components.kubernetes.monitoring import AlertReceiver, MonitoringArgs, SmtpSettings
from components.kubernetes.nodes import GATE_TAINT, GPU_RESOURCE, NODE_GROUP_LABEL, SYSTEM_GROUP
from components.kubernetes.platform import FabricSettings, PriorityValues, Team
from components.kubernetes.serving import ModelServingArgs, ServingArgs

from . import clock, mig
from .errors import BlueprintError
from .resolver import ResolvedNodeGroup, ResolvedPlan, resolve
from .serving_spec import ENGINE_DTYPE, INTERNAL_LB, VLLM_IMAGE
from .serving_spec import check_fit as check_serving_fit
from .spec import AcceptanceSpec, ClusterSpec
from .stackconfig import parse_cluster

_RESOLVED: dict[str, ResolvedPlan] = {}


def resolve_config(raw: Mapping[str, Any], source: str) -> ResolvedPlan:
    """Parse and resolve a stack's cluster object once per process: the offline plan resolves it to price and
    judge it, then runs `__main__.py`, which asks again for the same object and gets the same plan."""
    key = json.dumps([raw, clock.today().isoformat()], sort_keys=True, default=str)  # dated checks: see clock
    if key not in _RESOLVED:
        if len(_RESOLVED) >= 16:  # --all-stacks: keep memory bounded
            _RESOLVED.clear()
        _RESOLVED[key] = check_serving_fit(resolve(parse_cluster(raw, source)))
    return _RESOLVED[key]


def group_taints(group: ResolvedNodeGroup, acceptance: AcceptanceSpec) -> list[dict[str, str]]:
    """A GPU group's taints: the spec's, plus the acceptance gate while the check gates new nodes."""
    taints = [t.model_dump() for t in group.spec.taints]
    if acceptance.enabled and acceptance.gate and group.acceptance is not None:  # none on a DRA group (resolver)
        taints.append(dict(GATE_TAINT))
    return taints


def mig_strategy(plan: ResolvedPlan) -> str:
    """The cluster's MIG strategy (blueprints/mig.py)."""
    return mig.strategy((g.spec, g.shape) for g in plan.node_groups)


def group_resources(plan: ResolvedPlan, group: ResolvedNodeGroup) -> dict[str, int]:
    """GPU resources one node of the group advertises, named as the cluster's MIG strategy names them."""
    return mig.advertised(group.spec, group.shape, mig_strategy(plan))


def gpu_group_args(plan: ResolvedPlan, group: ResolvedNodeGroup) -> GpuGroupArgs:
    g = group.spec
    resources = group_resources(plan, group)
    return GpuGroupArgs(
        name=group.name,
        instance_type=group.shape.instance_type,
        gpu_model=group.shape.gpu.model,
        gpus=group.shape.gpu.count,
        min_nodes=g.min_nodes,
        desired_nodes=g.desired_nodes,
        max_nodes=g.max_nodes,
        root_volume_gib=g.root_volume_gib,
        capacity=g.capacity,
        capacity_reservation_id=g.capacity_reservation_id,
        spot_max_price_usd=g.spot_max_price_usd,
        labels=dict(g.labels),
        taints=group_taints(group, plan.spec.kubernetes.acceptance),
        mig_profile=g.mig_profile,
        gpu_resources=resources.get(GPU_RESOURCE, 0),
        mig_slices=mig.single_slices(g, group.shape, mig_strategy(plan)),
        mig_resources=mig.mig_resources(resources),
        sharing=g.sharing.strategy if g.sharing else None,
        sharing_replicas=g.sharing.replicas if g.sharing else 1,
        devices=g.devices,
        rdma_dra=group.rdma_dra,
        rdma_interfaces=group.rdma_interfaces,
        placement_group=group.placement_group,
        zone=group.zone,
        capacity_block_starts_at=g.capacity_block_starts_at,
        local_nvme_raid0=plan.spec.storage.local_nvme_scratch and group.shape.local_nvme_gb > 0,
        rdma=group.shape.rdma.kind,
        vcpus=group.shape.vcpus,
        memory_gib=group.shape.memory_gib,
        acceptance=group.acceptance,
        fabric_min_busbw_gbps=group.fabric_min_busbw_gbps,
        topology_name=group.topology.name if group.topology else None,
        topology_levels=group.topology.kueue_levels if group.topology else (),
        provisioned=group.provisioned,
    )


def alert_routing(spec: ClusterSpec) -> tuple[list[AlertReceiver], Optional[SmtpSettings]]:
    """The stack's alert receivers (the spec's, or its default: ClusterSpec.alert_receivers); URLs and the SMTP
    password come from secret stack config (`pulumi config set --secret`), so they stay Pulumi secrets end to end,
    or the password from a Kubernetes Secret Alertmanager mounts."""
    alerts = spec.kubernetes.monitoring.alerts

    def secret(key: Optional[str], field: str) -> Optional[pulumi.Output[str]]:
        if not key:
            return None
        if pulumi.Config().get(key) is None:
            raise BlueprintError(
                f"stack {pulumi.get_stack()}",
                f"{field} names the config value {key!r}, which "
                f"is not set: run `pulumi config set --secret {key} VALUE`",
            )
        return pulumi.Config().require_secret(key)

    where = "kubernetes.monitoring.alerts"

    receivers = [
        AlertReceiver(
            name,
            emails=tuple(r.email),
            slack_url=secret(r.slack_url_config, f"{where}.receivers.{name}.slackUrlConfig"),
            slack_channel=r.slack_channel,
            webhook_url=secret(r.webhook_url_config, f"{where}.receivers.{name}.webhookUrlConfig"),
            sns=r.sns_topic is not None,
        )
        for name, r in spec.alert_receivers.items()
    ]
    smtp = alerts.smtp
    return receivers, SmtpSettings(
        smtp.smarthost,
        smtp.sender,
        smtp.username,
        secret(smtp.password_config, f"{where}.smtp.passwordConfig"),
        smtp.require_tls,
        password_secret=smtp.password_secret,
    ) if smtp else None


def alert_topic(spec: ClusterSpec) -> Optional[AlertTopicArgs]:
    """AWS: the SNS topic a receiver with `sns` publishes to (the default receiver's included), where Alertmanager
    is installed to publish."""
    kubernetes = spec.kubernetes
    if not (kubernetes.enabled and kubernetes.monitoring.enabled):
        return None
    topics = [r.sns_topic for r in spec.alert_receivers.values() if r.sns_topic]
    if not topics:
        return None
    subscribe = any(t.subscribe_budget_contacts for t in topics)
    return AlertTopicArgs(subscribe_emails=tuple(spec.budget.contacts) if subscribe else ())


def _share(total: int, gpus: int, node_gpus: int, least: int, unit: str) -> str:
    """Half of a replica's GPU share of a node's CPUs or memory (the other half for the node's agents)."""
    return f"{max(least, total * gpus // node_gpus // 2)}{unit}"


def _streamer_buffer(memory: str) -> int:
    """Bytes of the Run:ai streamer's host buffer: what a replica's memory limit (``<n>Gi``) leaves beside the engine
    process (catalog/serving_engine.yaml), never above the streamer's own default; 0 (the largest tensor only) when
    the limit leaves nothing."""
    engine = serving_engine()
    spare = (int(memory.removesuffix("Gi")) - engine.engine_process.gib) * 2**30
    return int(min(engine.streamer.default_buffer_bytes, max(0, spare)))


def serving_args(plan: ResolvedPlan) -> Optional[ServingArgs]:
    """The models to serve (issue #25); the cluster adds its bucket and each model's identity. A replica asks for its
    GPUs' share of the node's CPU and memory, halved to leave room for the node's agents."""
    spec, serving = plan.spec, plan.spec.serving
    shapes = {g.name: g.shape for g in plan.node_groups}
    if not serving.models:
        return None
    cidrs, tls = tuple(serving.exposure.allowed_cidrs), serving.exposure.tls
    memory = {
        name: _share(int(shapes[m.node_group].memory_gib), m.tensor_parallel, shapes[m.node_group].gpu.count, 4, "Gi")
        for name, m in serving.models.items()
    }
    return ServingArgs(
        namespace=serving.namespace,
        exposure=GatewayExposure(
            allowed_cidrs=cidrs,
            internal_lb_annotations=INTERNAL_LB[spec.cloud] if cidrs else {},
            tls_secret=tls.secret_name if tls else None,
            tls_min_version=tls.min_version if tls else "1.3",
        ),
        endpoint_picker_image=pinned(EPP_IMAGE),
        models=[
            ModelServingArgs(
                model=name,
                namespace=serving.namespace,
                image=pinned(VLLM_IMAGE),
                weights_prefix=m.weights_prefix,
                gpus=m.tensor_parallel,
                nodes=m.pipeline_parallel,
                dtype=ENGINE_DTYPE[m.precision],
                max_context=m.max_context,
                max_batch=m.max_batch,
                node_selector={NODE_GROUP_LABEL: m.node_group},
                tolerations=[
                    {"key": t.key, "operator": "Exists", "effect": t.effect}
                    for t in spec.node_groups[m.node_group].taints
                ],
                cpu=_share(shapes[m.node_group].vcpus, m.tensor_parallel, shapes[m.node_group].gpu.count, 1, ""),
                memory=memory[name],
                streamer_buffer_bytes=_streamer_buffer(memory[name]),
                min_replicas=m.min_replicas,
                max_replicas=m.max_replicas,
                signal=m.signal,
                target=m.target,
                annotations={"gpu-blueprints/model": m.model, "gpu-blueprints/precision": m.precision},
            )
            for name, m in serving.models.items()
        ],
    )


def platform_settings(plan: ResolvedPlan) -> Optional[PlatformSettings]:
    """What the stack decides about the Kubernetes layer (the cluster adds what only it knows), or None when the
    stack turns the layer off."""
    spec = plan.spec.kubernetes
    if not spec.enabled:
        return None
    check = spec.acceptance
    fabric = (
        FabricSettings(pinned(plan.fabric_image), spec.fabric_validation.run_on_create)
        if spec.fabric_validation.enabled and plan.fabric_image
        else None
    )
    system = {NODE_GROUP_LABEL: SYSTEM_GROUP}
    receivers, smtp = alert_routing(plan.spec) if spec.monitoring.enabled else ([], None)
    return PlatformSettings(
        gpu_stack=spec.gpu_stack,
        teams={
            name: Team(t.gpus, t.max_gpus_per_pod, t.default_cpu, t.default_memory) for name, t in spec.teams.items()
        },
        priorities=PriorityValues(spec.priorities.critical, spec.priorities.standard, spec.priorities.preemptible),
        queueing=spec.queueing.pods_ready_timeout_minutes if spec.queueing.enabled else None,
        recheck_idle_hours=check.recheck_idle_hours if check.enabled else None,
        acceptance_image=pinned(ACCEPTANCE_IMAGE),
        fabric=fabric,
        monitoring=MonitoringArgs(
            system_node_selector=system,
            idle_gpu_minutes=spec.monitoring.idle_gpu_minutes,
            retention_days=spec.monitoring.retention_days,
            receivers=receivers,
            smtp=smtp,
            repeat_interval_hours=spec.monitoring.alerts.repeat_interval_hours,
        )
        if spec.monitoring.enabled
        else None,
        pod_autoscaling=spec.pod_autoscaling.enabled,
        serving=serving_args(plan),
        image_mirror=spec.registry.mirror,
    )


def cluster_args(plan: ResolvedPlan) -> ClusterArgs:
    """The cloud's cluster args: the common part and what only that cloud reads."""
    spec = plan.spec
    if spec.cloud == "aws":
        return AwsClusterArgs(
            **common_cluster_args(plan),
            budget=BudgetArgs(
                monthly_limit_usd=spec.budget.monthly_limit_usd,
                thresholds_pct=tuple(spec.budget.alert_thresholds_pct),
                contacts=tuple(spec.budget.contacts),
                activate_cost_tag=spec.budget.activate_cost_allocation_tag,
            ),
            public_api_cidrs=tuple(spec.networking.public_api_cidrs),
            node_release_version=spec.node_image.release_version,
            alert_topic=alert_topic(spec),
        )
    return AlicloudClusterArgs(
        **common_cluster_args(plan),
        kms_instance_id=spec.encryption.kms_instance_id,
        mlps_hardening="mlps" in spec.compliance.frameworks,
    )


def common_cluster_args(plan: ResolvedPlan) -> dict:
    """The ClusterArgs fields both clouds read."""
    spec = plan.spec
    storage = spec.storage
    fs = storage.parallel_fs
    scaling = spec.autoscaling
    system = plan.system
    return dict(
        region=spec.region,
        kubernetes_version=spec.kubernetes_version,
        vpc_cidr=spec.networking.vpc_cidr,
        system=SystemGroupArgs(
            instance_type=system.instance_type,
            min_nodes=system.spec.min_nodes,
            desired_nodes=system.spec.desired_nodes,
            max_nodes=system.spec.max_nodes,
            root_volume_gib=system.spec.root_volume_gib,
        ),
        gpu_groups=[gpu_group_args(plan, g) for g in plan.node_groups],
        tags=dict(spec.project_tags),
        log_retention_days=spec.logging.retention_days,
        key_rotation_days=spec.encryption.key_rotation_days,
        protect_data=spec.environment == "production",
        public_api=spec.networking.public_api,
        cluster_admins=tuple(spec.access.cluster_admins),
        addon_versions=dict(plan.addons.managed) if plan.addons else {},
        object_storage=ObjectStorageArgs(
            noncurrent_version_days=storage.object_storage.noncurrent_version_days,
            infrequent_access_after_days=storage.object_storage.infrequent_access_after_days,
            cache=storage.object_storage.cache,
        )
        if storage.object_storage.enabled
        else None,
        file_system=FileSystemArgs(
            kind=fs.type,
            size_gib=fs.size_gib or 0,
            deployment=fs.deployment,
            throughput_mbps_per_tib=fs.throughput_mbps_per_tib,
            export_domain=fs.export_domain,
        )
        if fs.type != "none"
        else None,
        trainer_namespace=spec.kubernetes.trainer_namespace,
        team_namespaces=tuple(sorted(spec.kubernetes.teams)) if spec.kubernetes.enabled else (),
        autoscaling=AutoscalingArgs(
            unneeded_minutes=scaling.scale_down_unneeded_minutes,
            utilization_threshold=scaling.scale_down_utilization_threshold,
            gpu_utilization_threshold=scaling.gpu_scale_down_utilization_threshold,
            image_tag=plan.addons.autoscaler_image_tag if plan.addons else None,
            engine=scaling.engine,
        )
        if scaling.enabled
        else None,
        threat_detection=spec.account_services.threat_detection == "create",
        audit_trail=spec.account_services.audit_trail == "create",
        zone=plan.zone,
        platform=platform_settings(plan),
    )


def build_cluster(
    plan: ResolvedPlan, name: str | None = None, opts: pulumi.ResourceOptions | None = None
) -> pulumi.ComponentResource:
    """The cloud's GpuCluster for a resolved plan, named after the stack unless told otherwise."""
    name = name or pulumi.get_stack()
    args = cluster_args(plan)
    if plan.spec.cloud == "aws":
        from components.aws.cluster import GpuCluster
    else:
        from components.alicloud.cluster import GpuCluster
    return GpuCluster(name, args, opts)
