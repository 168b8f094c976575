"""The GPU platform layer per cloud and shape, and every raw Kubernetes object against the cluster's schema."""

from __future__ import annotations

import json

import kubernetes_validate
import pytest

from components.kubernetes.charts import charts
from conftest import SHIPPED, gpu_groups, run_cli, shipped_cluster, shipped_plan, write_stack

EFA_STACKS = {"research-a100", "enterprise-h100", "research-a100-eu"}


def k8s(plan, type_: str) -> list[dict]:
    return [r.inputs for r in plan.registrations if r.type == type_]


def releases(plan) -> dict[str, dict]:
    return {r["name"]: r for r in k8s(plan, "kubernetes:helm.sh/v3:Release")}


def unmirrored(section):
    """A chart values section without the image repositories a registry mirror sets (issue 30)."""
    if not isinstance(section, dict):
        return section
    return {
        k: v for k, v in section.items() if k != "repository" and not (isinstance(v, dict) and set(v) == {"repository"})
    }


@pytest.mark.parametrize("stack", SHIPPED)
def test_releases_are_the_pinned_upstream_charts(stack):
    pinned = charts()
    plan = shipped_plan(stack)
    mirror = plan.resolved.spec.kubernetes.registry.mirror  # the mainland stacks pull through one (issue 30)
    for name, release in releases(plan).items():
        chart = pinned[name]
        assert release["version"] == chart.version
        if mirror:
            assert release["chart"] == f"oci://{mirror}/{chart.chart}" and "repositoryOpts" not in release
        elif chart.repo.startswith("oci://"):  # an OCI chart is named by its reference, with no repository options
            assert release["chart"] == f"{chart.repo}/{chart.chart}" and "repositoryOpts" not in release
        else:
            assert release["chart"] == chart.chart and release["repositoryOpts"]["repo"] == chart.repo


@pytest.mark.parametrize("stack", SHIPPED)
def test_efa_device_plugin_only_where_node_groups_have_efa(stack):
    plan = shipped_plan(stack)
    efa_groups = [g for g in plan.resolved.node_groups if g.rdma_interfaces and g.shape.rdma.kind == "efa"]
    assert bool(efa_groups) == (stack in EFA_STACKS)
    found = releases(plan).get("aws-efa-k8s-device-plugin")
    assert bool(found) == bool(efa_groups)
    if found:
        assert found["namespace"] == "kube-system"
        assert found["values"]["nodeSelector"] == {"vpc.amazonaws.com/efa.present": "true"}
        labels = gpu_groups(plan)[0]["labels"]
        assert labels["vpc.amazonaws.com/efa.present"] == "true"  # the selector matches the EFA group's label


@pytest.mark.parametrize("stack", SHIPPED)
def test_gpu_operator_keeps_off_what_the_node_image_ships(stack):
    plan = shipped_plan(stack)
    values = {k: unmirrored(v) for k, v in releases(plan)["gpu-operator"]["values"].items()}
    assert values["driver"] == {"enabled": False}
    # The operator's toolkit runs on both clouds, whatever the image ships, so its runtime settings are ours; the
    # operator's device plugin too (EKS's AL2023 NVIDIA AMI has none; ACK's own is off by pool label).
    assert values["toolkit"] == {
        "enabled": True,
        "env": [
            {"name": "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED", "value": "false"},
            {"name": "ACCEPT_NVIDIA_VISIBLE_DEVICES_AS_VOLUME_MOUNTS", "value": "true"},
        ],
    }
    assert values["devicePlugin"] == {
        "enabled": True,
        "env": [{"name": "DEVICE_LIST_STRATEGY", "value": "volume-mounts"}],
    }
    assert values["cdi"] == {"enabled": False}
    assert values["dcgmExporter"] == {
        "enabled": True,
        "config": {"name": "gpu-metrics"},
        "serviceMonitor": {"enabled": True, "honorLabels": True},
    }
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in values["daemonsets"][
        "tolerations"
    ]


def test_erdma_controller_only_on_erdma_stacks():
    for stack in ("enterprise-aliyun", "research-a100-aliyun", "startup-t4-aliyun"):
        plan = shipped_plan(stack)
        addons = sorted(a["name"] for a in k8s(plan, "alicloud:cs/kubernetesAddon:KubernetesAddon"))
        assert addons == (["ack-erdma-controller"] if plan.resolved.rdma else []) + ["ack-pod-identity-webhook"]
    assert shipped_plan("enterprise-aliyun").resolved.rdma


@pytest.mark.parametrize("stack", SHIPPED)
def test_priority_classes_and_team_quotas_come_from_the_spec(stack):
    plan = shipped_plan(stack)
    spec = plan.resolved.spec.kubernetes
    classes = {p["metadata"]["name"]: p for p in k8s(plan, "kubernetes:scheduling.k8s.io/v1:PriorityClass")}
    assert classes["gpu-critical"]["value"] == spec.priorities.critical == 1_000_000
    assert all(p["globalDefault"] is False for p in classes.values())
    assert classes["gpu-preemptible"]["preemptionPolicy"] == "Never"
    # Kueue admits every job in a team namespace against the team's queue: no ResourceQuota caps borrowing.
    assert spec.teams and not k8s(plan, "kubernetes:core/v1:ResourceQuota")
    for limit_range in k8s(plan, "kubernetes:core/v1:LimitRange"):
        if limit_range["metadata"]["namespace"] == spec.trainer_namespace not in spec.teams:
            continue  # the kept trainer namespace: no GPUs beside the queues (tests/test_diff_verdicts.py)
        team = spec.teams[limit_range["metadata"]["namespace"]]
        [limits] = limit_range["spec"]["limits"]
        assert limits["default"] == {"cpu": team.default_cpu, "memory": team.default_memory}
        assert limits.get("max", {}).get("nvidia.com/gpu") == (
            str(team.max_gpus_per_pod) if team.max_gpus_per_pod else None
        )


def test_device_plugin_path_installs_plugin_and_dcgm_exporter(plan_variant):
    plan = plan_variant("startup-t4", lambda c: c.setdefault("kubernetes", {}).update(gpuStack="device-plugin"))
    found = releases(plan)
    assert set(found) == {
        "nvidia-device-plugin",
        "dcgm-exporter",
        "cluster-autoscaler",
        "kueue",
        "kuberay-operator",  # the AI operator beside Kueue (platform._ai_operator)
        "kube-prometheus-stack",
        "keda",
        "prometheus-adapter",  # the custom metrics API (custom_metrics.py)
        "gateway-helm",  # inference routing on every cluster (inference_gateway.py)
        "ai-gateway-crds-helm",
        "ai-gateway-helm",
    }
    # The exporter's ServiceMonitor needs kube-prometheus-stack's CRD (installed first); it runs only on GPU nodes.
    assert found["dcgm-exporter"]["values"]["serviceMonitor"] == {"enabled": True}
    assert found["dcgm-exporter"]["values"]["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert not plan.readiness_blocking()
    # Node agents tolerate the GPU taint and the acceptance gate (they must run before the node passes).
    assert found["nvidia-device-plugin"]["values"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {
            "key": "startup-taint.cluster-autoscaler.kubernetes.io/gpu-acceptance",
            "operator": "Exists",
            "effect": "NoSchedule",
        },
    ]


def test_mig_profile_labels_the_group_and_turns_on_the_mig_manager(plan_variant):
    plan = plan_variant(
        "research-a100", lambda c: c.setdefault("nodeGroups", {}).setdefault("gpu", {}).update(migProfile="all-1g.10gb")
    )
    [group] = gpu_groups(plan)
    assert group["labels"]["nvidia.com/mig.config"] == "all-1g.10gb"
    values = releases(plan)["gpu-operator"]["values"]
    assert values["migManager"] == {"enabled": True} and values["mig"] == {"strategy": "single"}
    assert releases(shipped_plan("research-a100"))["gpu-operator"]["values"]["migManager"] == {"enabled": False}


@pytest.mark.parametrize(
    "profile, expected",
    [
        ("all-1g.10gb", "g4dn.2xlarge has T4 GPUs, which have no MIG"),
        ("half-and-half", "is not a GPU Operator profile name"),
    ],
)
def test_mig_requests_that_cannot_work_are_one_line_exit_2(tmp_path, profile, expected):
    cluster = shipped_cluster("startup-t4")
    cluster.setdefault("nodeGroups", {}).setdefault("gpu", {})["migProfile"] = profile
    write_stack(tmp_path, "mig", cluster)
    run = run_cli("plan", "--stack", "mig", "--stacks-dir", str(tmp_path))  # the CLI's main, in this process
    assert run.returncode == 2 and expected in run.stderr and run.stderr.count("\n") == 1


def test_layer_can_be_left_out(plan_variant):
    plan = plan_variant("startup-t4", lambda c: c.setdefault("kubernetes", {}).update(enabled=False))
    assert not [r for r in plan.registrations if r.type.startswith(("kubernetes:", "pulumi:providers:kubernetes"))]


def test_eks_provider_authenticates_with_aws_eks_get_token():
    plan = shipped_plan("research-a100")
    [provider] = [r.inputs for r in plan.registrations if r.type == "pulumi:providers:kubernetes"]
    kubeconfig = json.loads(provider["kubeconfig"])
    [user] = kubeconfig["users"]
    assert user["user"]["exec"]["command"] == "aws"
    assert user["user"]["exec"]["args"] == [
        "eks",
        "get-token",
        "--cluster-name",
        "research-a100",
        "--region",
        "us-east-1",
    ]
    assert kubeconfig["clusters"][0]["cluster"]["server"].startswith("https://")


def test_ack_provider_kubeconfig_is_a_secret():
    plan = shipped_plan("enterprise-aliyun")
    [provider] = [r.inputs for r in plan.registrations if r.type == "pulumi:providers:kubernetes"]
    assert provider["kubeconfig"] == {"secret": True}


@pytest.mark.parametrize("stack", SHIPPED)
def test_every_raw_object_is_valid_for_the_clusters_kubernetes_version(stack):
    plan = shipped_plan(stack)
    version = f"{plan.resolved.spec.kubernetes_version}.0"
    # Built-in kinds; custom objects (Kueue, JobSet, PrometheusRule) meet their CRDs' published schemas in
    # test_distributed_training.py.
    builtin = (
        "kubernetes:core/",
        "kubernetes:apps/",
        "kubernetes:rbac.authorization.k8s.io/",
        "kubernetes:scheduling.k8s.io/",
        "kubernetes:storage.k8s.io/",
        "kubernetes:batch/",
    )
    raw = [r for r in plan.registrations if r.type.startswith(builtin)]
    assert len(raw) >= 6
    for r in raw:
        manifest = r.inputs
        assert (
            r.type == f"kubernetes:{manifest['apiVersion'] if '/' in manifest['apiVersion'] else 'core/v1'}:"
            f"{manifest['kind']}"
        )
        kubernetes_validate.validate(manifest, version, strict=True)


def test_the_validator_rejects_what_the_schema_forbids():
    bad = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hrad": {}}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, "1.33.0", strict=True)
