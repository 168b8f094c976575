"""Distributed training on what the program sends to the engine: Kueue queues and gang admission, node gating,
multi-node fabric validation, GPU observability; custom objects validated against the CRDs' published schemas
(tests/data/crds, with their sources); alert rules checked and unit-tested by promtool."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import jsonschema
import pytest
import yaml

from blueprints.stackconfig import ROOT, load_stack_spec
from catalog.fabric import published_busbw_gbps
from components.kubernetes.charts import charts
from components.kubernetes.monitoring import DCGM_COUNTERS, alert_rules
from components.kubernetes.nodes import GATE_TAINT
from conftest import SHIPPED, gpu_groups, helm, resources, shipped_plan, validate_crd

sys.path.insert(0, str(ROOT / "acceptance"))
import gpu_check  # noqa: E402

CRDS = ROOT / "tests" / "data" / "crds"
PROMTOOL = ROOT / "tools" / "bin" / "promtool"
TEAM_STACKS = [s for s in SHIPPED if load_stack_spec(s).kubernetes.teams]
EFA_STACKS = ["research-a100", "enterprise-h100", "research-a100-eu"]
SCHEMAS = {
    "ClusterQueue": "kueue-0.19.2",
    "LocalQueue": "kueue-0.19.2",
    "ResourceFlavor": "kueue-0.19.2",
    "JobSet": "jobset-0.12.0",
    "PrometheusRule": "prometheus-operator-0.93.1",
}


def custom_objects(plan, kind):
    return [
        r
        for r in resources(
            plan,
            "kubernetes:"
            + {
                "ClusterQueue": "kueue.x-k8s.io/v1beta2",
                "LocalQueue": "kueue.x-k8s.io/v1beta2",
                "ResourceFlavor": "kueue.x-k8s.io/v1beta2",
                "JobSet": "jobset.x-k8s.io/v1alpha2",
                "PrometheusRule": "monitoring.coreos.com/v1",
            }[kind]
            + f":{kind}",
        )
    ]


@pytest.mark.parametrize("stack", SHIPPED)
def test_custom_objects_match_the_crd_schemas_of_the_pinned_charts(stack):
    plan = shipped_plan(stack)
    seen = 0
    for kind, folder in SCHEMAS.items():
        schema = json.loads((CRDS / folder / f"{kind}.json").read_text())
        for obj in custom_objects(plan, kind):
            validate_crd(obj, schema)
            seen += 1
    assert seen >= 4


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_the_crd_schemas_reject_a_misspelled_field_type(kind):
    schema = json.loads((CRDS / SCHEMAS[kind] / f"{kind}.json").read_text())
    with pytest.raises(jsonschema.ValidationError):
        validate_crd({"apiVersion": "x", "kind": kind, "metadata": {}, "spec": "not an object"}, schema)


# --------------------------------------------------------------------------- queueing
@pytest.mark.parametrize("stack", TEAM_STACKS)
def test_a_cluster_queue_per_team_in_one_cohort_with_its_gpu_quota(stack):
    plan = shipped_plan(stack)
    teams = plan.resolved.spec.kubernetes.teams
    queues = {q["metadata"]["name"]: q["spec"] for q in custom_objects(plan, "ClusterQueue")}
    assert set(queues) == set(teams)
    for team, spec in queues.items():
        assert spec["cohortName"] == "gpu"
        assert spec["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": team}}
        assert spec["preemption"]["reclaimWithinCohort"] == "Any"
        assert spec["preemption"]["borrowWithinCohort"] == {
            "policy": "LowerPriority",
            "maxPriorityThreshold": plan.resolved.spec.kubernetes.priorities.standard,
        }
        [group] = spec["resourceGroups"]
        assert group["coveredResources"][:3] == ["cpu", "memory", "nvidia.com/gpu"]
        system, *gpu_flavors = group["flavors"]
        assert system["name"] == "system-cpu"  # tried first, holds no GPU: CPU-only jobs stay off GPU nodes
        assert {r["name"]: r["nominalQuota"] for r in system["resources"]}["nvidia.com/gpu"] == 0
        for flavor in gpu_flavors:
            quota = {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
            assert quota["nvidia.com/gpu"] == teams[team].gpus
    locals_ = {
        (q["metadata"]["namespace"], q["metadata"]["name"]): q["spec"] for q in custom_objects(plan, "LocalQueue")
    }
    assert locals_ == {(team, "default"): {"clusterQueue": team} for team in teams}
    assert not resources(plan, "kubernetes:core/v1:ResourceQuota")  # Kueue admits every job in a team namespace


def test_flavors_place_pods_on_their_group_and_add_its_tolerations_but_not_the_gate():
    plan = shipped_plan("research-a100")
    [flavor] = [f for f in custom_objects(plan, "ResourceFlavor") if f["metadata"]["name"] == "gpu-gpu"]
    assert flavor["spec"]["nodeLabels"] == {"gpu-blueprints/node-group": "gpu"}
    assert flavor["spec"]["tolerations"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    quota = {
        r["name"]: r["nominalQuota"]
        for r in custom_objects(plan, "ClusterQueue")[0]["spec"]["resourceGroups"][0]["flavors"][1]["resources"]
    }
    # 16 GPUs of p4de.24xlarge = two nodes (a multi-node job): their 192 vCPUs, 2304 GiB and 8 EFA devices.
    assert quota == {"cpu": 192, "memory": "2304Gi", "nvidia.com/gpu": 16, "vpc.amazonaws.com/efa": 8}


def test_kueue_admits_all_or_nothing_and_manages_only_team_namespaces():
    values = helm(shipped_plan("research-a100"), "kueue")
    assert (
        values["chart"] == "oci://registry.k8s.io/kueue/charts/kueue" and values["version"] == charts()["kueue"].version
    )
    assert "repositoryOpts" not in values
    config = yaml.safe_load(values["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert config["waitForPodsReady"]["blockAdmission"] is True and config["waitForPodsReady"]["timeout"] == "10m"
    assert config["managedJobsNamespaceSelector"] == {
        "matchExpressions": [{"key": "gpu-blueprints/team", "operator": "Exists"}]
    }
    assert "jobset.x-k8s.io/jobset" in config["integrations"]["frameworks"]
    assert {"ray.io/rayjob", "ray.io/raycluster"} <= set(config["integrations"]["frameworks"])  # KubeRay's
    assert values["values"]["controllerManager"]["nodeSelector"] == {"gpu-blueprints/node-group": "system"}


def test_mig_slices_are_the_queue_quota(plan_variant):
    plan = plan_variant(
        "research-a100", lambda c: c.setdefault("nodeGroups", {}).setdefault("gpu", {}).update(migProfile="all-1g.10gb")
    )
    [queue] = custom_objects(plan, "ClusterQueue")
    quota = {r["name"]: r["nominalQuota"] for r in queue["spec"]["resourceGroups"][0]["flavors"][1]["resources"]}
    assert quota["nvidia.com/gpu"] == 16 * 7  # 16 A100s x 7 one-slice instances (MIG strategy single)


def test_without_queueing_teams_keep_a_resource_quota(plan_variant):
    plan = plan_variant("startup-t4", lambda c: c.setdefault("kubernetes", {}).update(queueing={"enabled": False}))
    assert not custom_objects(plan, "ClusterQueue")
    [quota] = resources(plan, "kubernetes:core/v1:ResourceQuota")
    assert quota["spec"]["hard"] == {"requests.nvidia.com/gpu": "2"}


# --------------------------------------------------------------------------- node gating
def test_gate_taint_is_the_one_the_check_lifts():
    assert GATE_TAINT["key"] == gpu_check.GATE_TAINT_KEY


@pytest.mark.parametrize("stack", SHIPPED)
def test_gpu_groups_join_behind_the_gate_that_their_agents_tolerate(stack):
    plan = shipped_plan(stack)
    aws = plan.resolved.spec.cloud == "aws"
    gate = {"key": GATE_TAINT["key"], "value": "pending", "effect": "NO_SCHEDULE" if aws else "NoSchedule"}
    for group in gpu_groups(plan):
        assert gate in group["taints"]
    [daemon_set] = resources(plan, "kubernetes:apps/v1:DaemonSet")
    tolerations = daemon_set["spec"]["template"]["spec"]["tolerations"]
    assert {"key": GATE_TAINT["key"], "operator": "Exists", "effect": "NoSchedule"} in tolerations
    if aws:  # a startup taint is not part of the autoscaler's template of an empty group
        assert not [t for t in resources(plan, "aws:autoscaling/tag:Tag") if GATE_TAINT["key"] in t["tag"]["key"]]


def test_gate_can_be_turned_off(plan_variant):
    plan = plan_variant("startup-t4", lambda c: c.setdefault("kubernetes", {}).update(acceptance={"gate": False}))
    assert all(t["key"] != GATE_TAINT["key"] for g in gpu_groups(plan) for t in g["taints"])


def test_a_passing_node_loses_the_gate_and_a_failing_one_is_tainted_no_execute():
    current = [
        {"key": GATE_TAINT["key"], "value": "pending", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
    ]
    assert gpu_check.gated_taints(current, True) == [current[1]]
    failed = gpu_check.gated_taints(current, False)
    assert failed == [current[1], {"key": "gpu-blueprints/acceptance", "value": "failed", "effect": "NoExecute"}]
    assert gpu_check.gated_taints(failed, False) == failed  # re-checks do not stack taints
    report = {
        "passed": False,
        "checks": [
            {"name": "bf16_matmul", "status": "fail", "detail": "41% of spec", "value": 405.0},
            {"name": "gpu_count", "status": "pass", "detail": ""},
        ],
    }
    patch = gpu_check.node_patch({"spec": {"taints": current}}, report)
    assert patch["metadata"]["labels"] == {"gpu-blueprints/acceptance": "failed"}
    assert patch["metadata"]["annotations"]["gpu-blueprints/acceptance-reason"] == "bf16_matmul: 41% of spec"
    assert patch["spec"]["taints"] == failed


# --------------------------------------------------------------------------- fabric validation
@pytest.mark.parametrize("stack", EFA_STACKS)
def test_each_efa_group_gets_a_suspended_two_node_nccl_validation(stack):
    plan = shipped_plan(stack)
    [resolved] = plan.resolved.node_groups
    [jobset] = custom_objects(plan, "JobSet")
    assert jobset["metadata"]["name"] == "fabric-gpu" and jobset["spec"]["suspend"] is True
    [replicated] = jobset["spec"]["replicatedJobs"]
    job = replicated["template"]["spec"]
    assert job["parallelism"] == job["completions"] == 2 and job["completionMode"] == "Indexed"
    pod = job["template"]["spec"]
    [container] = pod["containers"]
    limits = container["resources"]["limits"]
    assert limits["nvidia.com/gpu"] == str(resolved.shape.gpu.count)
    assert limits["vpc.amazonaws.com/efa"] == str(resolved.rdma_interfaces) and limits["hugepages-2Mi"] == "5120Mi"
    command = container["command"][-1]
    assert "--expect-transport efa" in command and "--nnodes=2" in command
    threshold = round(published_busbw_gbps(resolved.shape.instance_type) * 0.8, 1)
    assert f"--min-busbw-gbps {threshold:g}" in command
    assert {"name": "NCCL_DEBUG", "value": "INFO"} in container["env"]
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    [term] = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [{"key": "gpu-blueprints/acceptance", "operator": "In", "values": ["passed"]}]
    [script] = [c for c in resources(plan, "kubernetes:core/v1:ConfigMap") if c["metadata"]["name"] == "gpu-fabric"]
    assert script["data"]["fabric_check.py"] == (ROOT / "acceptance" / "fabric_check.py").read_text()


def test_erdma_validation_waits_for_an_image_with_the_erdma_driver(plan_variant):
    shipped = shipped_plan("enterprise-aliyun")
    assert not custom_objects(shipped, "JobSet")
    assert any("set kubernetes.fabricValidation.image" in n for n in shipped.resolved.notes)
    plan = plan_variant(
        "enterprise-aliyun",
        lambda c: c.setdefault("kubernetes", {}).update(
            fabricValidation={"image": "registry.example.com/ml/pytorch-erdma:2.8.0", "runOnCreate": True}
        ),
    )
    [jobset] = custom_objects(plan, "JobSet")
    container = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert jobset["spec"]["suspend"] is False
    devices = str(plan.resolved.node_groups[0].rdma_interfaces)  # every eRDMA device of the shape
    assert (
        container["resources"]["limits"]["aliyun/erdma"] == devices
        and "--expect-transport ib" in container["command"][-1]
    )
    assert {"name": "NCCL_IB_HCA", "value": "erdma"} in container["env"]
    assert "--min-busbw-gbps" not in container["command"][-1]  # no published figure: measured, not judged


# --------------------------------------------------------------------------- observability
@pytest.mark.parametrize("stack", ["research-a100", "startup-t4-aliyun"])
def test_prometheus_collects_dcgm_metrics_from_the_system_group(stack):
    plan = shipped_plan(stack)
    values = helm(plan, "kube-prometheus-stack")["values"]
    spec = values["prometheus"]["prometheusSpec"]
    assert spec["serviceMonitorSelectorNilUsesHelmValues"] is False and spec["ruleSelectorNilUsesHelmValues"] is False
    assert spec["nodeSelector"] == {"gpu-blueprints/node-group": "system"} and spec["retention"] == "15d"
    operator = helm(plan, "gpu-operator")["values"]["dcgmExporter"]
    assert operator["config"] == {"name": "gpu-metrics"}
    assert operator["serviceMonitor"] == {"enabled": True, "honorLabels": True}
    [counters] = [c for c in resources(plan, "kubernetes:core/v1:ConfigMap") if c["metadata"]["name"] == "gpu-metrics"]
    assert counters["data"]["dcgm-metrics.csv"] == DCGM_COUNTERS


def test_every_dcgm_metric_the_rules_and_dashboard_read_is_exported():
    exported = {line.split(",")[0] for line in DCGM_COUNTERS.splitlines() if line}
    text = json.dumps(alert_rules(60)) + (ROOT / "components/kubernetes/gpu_dashboard.json").read_text()
    import re

    used = set(re.findall(r"DCGM_FI_[A-Z_]+", text))
    assert used and used <= exported, used - exported
    plan = shipped_plan("research-a100")
    [dashboard] = [
        c for c in resources(plan, "kubernetes:core/v1:ConfigMap") if c["metadata"]["name"] == "gpu-dashboard"
    ]
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    titles = {p["title"] for p in json.loads(dashboard["data"]["gpu.json"])["panels"]}
    assert {
        "GPU utilization",
        "GPU memory used",
        "Power draw",
        "GPU temperature",
        "Last XID error",
        "ECC double-bit errors (10m)",
        "NVLink bandwidth",
    } <= titles


def test_alert_rules_cover_what_the_platform_must_page_for_and_follow_the_spec(plan_variant):
    plan = plan_variant(
        "startup-t4", lambda c: c.setdefault("kubernetes", {}).update(monitoring={"idleGpuMinutes": 45})
    )
    [rule] = custom_objects(plan, "PrometheusRule")
    alerts = {r["alert"]: r for g in rule["spec"]["groups"] for r in g["rules"]}
    assert {
        "GpuXidFatal",
        "GpuEccUncorrectable",
        "GpuHardwareThermalSlowdown",
        "GpuNodeFailedAcceptance",
        "GpuAllocatedButIdle",
    } <= set(alerts)
    assert alerts["GpuAllocatedButIdle"]["for"] == "45m"


@pytest.fixture(scope="module")
def rules_dir(tmp_path_factory):
    if not PROMTOOL.exists():
        pytest.fail(f"{PROMTOOL} is missing: `make install` fetches it")
    folder = tmp_path_factory.mktemp("promtool")
    (folder / "rules.yaml").write_text(yaml.safe_dump(alert_rules(60)))
    shutil.copy(ROOT / "tests/data/promtool/gpu_alerts_test.yaml", folder / "tests.yaml")
    return folder


def test_promtool_accepts_the_rules_and_rejects_a_broken_one(rules_dir):
    ok = subprocess.run([str(PROMTOOL), "check", "rules", "rules.yaml"], cwd=rules_dir, capture_output=True, text=True)
    assert ok.returncode == 0 and "SUCCESS: 8 rules found" in ok.stdout
    broken = alert_rules(60)
    broken["groups"][0]["rules"][0]["expr"] = "DCGM_FI_DEV_XID_ERRORS == == 48"
    (rules_dir / "broken.yaml").write_text(yaml.safe_dump(broken))
    bad = subprocess.run(
        [str(PROMTOOL), "check", "rules", "broken.yaml"], cwd=rules_dir, capture_output=True, text=True
    )
    assert bad.returncode != 0


def test_each_alert_fires_on_its_sample_series_and_only_there(rules_dir):
    run = subprocess.run([str(PROMTOOL), "test", "rules", "tests.yaml"], cwd=rules_dir, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    tested = {
        t["alertname"]
        for case in yaml.safe_load((rules_dir / "tests.yaml").read_text())["tests"]
        for t in case["alert_rule_test"]
    }
    assert tested == {r["alert"] for g in alert_rules(60)["groups"] for r in g["rules"]}


# --------------------------------------------------------------------------- node repair
@pytest.mark.parametrize("stack", ["research-a100", "startup-t4"])
def test_eks_repairs_unhealthy_gpu_nodes(stack):
    for group in gpu_groups(shipped_plan(stack)):
        assert group["nodeRepairConfig"] == {"enabled": True}


# --------------------------------------------------------------------------- periodic re-check of idle nodes
import recheck  # noqa: E402,I001  (acceptance/recheck.py, standalone)


def test_recheck_regates_only_accepted_nodes_without_gpu_pods():
    nodes = [
        {
            "metadata": {"name": n, "labels": {"gpu-blueprints/acceptance": v}},
            "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        }
        for n, v in (("busy", "passed"), ("idle", "passed"), ("done", "passed"), ("bad", "failed"))
    ]
    gpu_pod = {
        "spec": {"nodeName": "busy", "containers": [{"resources": {"limits": {"nvidia.com/gpu": "8"}}}]},
        "status": {"phase": "Running"},
    }
    finished = {
        "spec": {"nodeName": "done", "containers": [{"resources": {"limits": {"nvidia.com/gpu": "8"}}}]},
        "status": {"phase": "Succeeded"},
    }
    cpu_pod = {"spec": {"nodeName": "idle", "containers": [{"resources": {}}]}, "status": {"phase": "Running"}}
    assert recheck.idle_accepted_nodes(nodes, [gpu_pod, finished, cpu_pod]) == ["done", "idle"]
    patch = recheck.regate_patch(nodes[1])
    assert patch["metadata"]["labels"] == {"gpu-blueprints/acceptance": None}  # the DaemonSet runs again
    assert patch["spec"]["taints"][-1] == {**GATE_TAINT} and len(patch["spec"]["taints"]) == 2
    again = {"spec": {"taints": patch["spec"]["taints"]}}
    assert recheck.regate_patch(again)["spec"]["taints"] == patch["spec"]["taints"]  # the gate is not doubled


@pytest.mark.parametrize("hours, schedule", [(6, "0 */6 * * *"), (48, "0 0 */2 * *")])
def test_recheck_runs_on_the_system_nodes_on_schedule(plan_variant, hours, schedule):
    import kubernetes_validate

    plan = plan_variant(
        "startup-t4", lambda c: c.setdefault("kubernetes", {}).update(acceptance={"recheckIdleHours": hours})
    )
    [cron] = resources(plan, "kubernetes:batch/v1:CronJob")
    assert cron["spec"]["schedule"] == schedule
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"gpu-blueprints/node-group": "system"}
    kubernetes_validate.validate(cron, "1.35.0", strict=True)
    [config] = [c for c in resources(plan, "kubernetes:core/v1:ConfigMap") if c["metadata"]["name"] == "gpu-acceptance"]
    assert config["data"]["recheck.py"] == (ROOT / "acceptance" / "recheck.py").read_text()
    [role] = resources(plan, "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole")
    assert {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]} in role["rules"]
    assert not plan.readiness_blocking()
    assert not resources(shipped_plan("startup-t4"), "kubernetes:batch/v1:CronJob")  # off unless asked


# ------------------------------------------------------------------------- every remaining spec field changes the plan
def test_system_root_volume_and_an_explicit_trainer_namespace(plan_variant):
    def change(c):
        c["systemNodes"] = {"rootVolumeGib": 150}
        c.setdefault("kubernetes", {})["trainingNamespace"] = "jobs"

    plan = plan_variant("research-a100", change)
    [system_template] = [
        r.inputs
        for r in plan.registrations
        if r.type == "aws:ec2/launchTemplate:LaunchTemplate" and r.name.endswith("-system")
    ]
    assert system_template["blockDeviceMappings"][0]["ebs"]["volumeSize"] == 150
    accounts = {
        a["metadata"]["namespace"]
        for a in resources(plan, "kubernetes:core/v1:ServiceAccount")
        if a["metadata"]["name"] == "trainer"
    }
    claims = {c["metadata"]["namespace"] for c in resources(plan, "kubernetes:core/v1:PersistentVolumeClaim")}
    assert accounts == claims == {"jobs", "research"}  # the named namespace, and the team's own
    [role] = [
        r for r in resources(plan, "aws:iam/role:Role") if "system:serviceaccount:jobs:trainer" in r["assumeRolePolicy"]
    ]
    assert role


def test_queueing_timeout_and_fabric_threshold_follow_the_spec(plan_variant):
    plan = plan_variant(
        "research-a100",
        lambda c: c.setdefault("kubernetes", {}).update(
            queueing={"podsReadyTimeoutMinutes": 25}, fabricValidation={"threshold": 0.5}
        ),
    )
    config = yaml.safe_load(helm(plan, "kueue")["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert config["waitForPodsReady"]["timeout"] == "25m"
    [jobset] = custom_objects(plan, "JobSet")
    command = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["command"][
        -1
    ]
    assert f"--min-busbw-gbps {round(78.3 * 0.5, 1):g}" in command


def test_fabric_validation_and_monitoring_can_be_left_out_and_retention_set(plan_variant):
    off = plan_variant(
        "research-a100",
        lambda c: c.setdefault("kubernetes", {}).update(
            fabricValidation={"enabled": False}, monitoring={"enabled": False}
        ),
    )
    assert not custom_objects(off, "JobSet") and not custom_objects(off, "PrometheusRule")
    assert {r["name"] for r in resources(off, "kubernetes:helm.sh/v3:Release")} == {
        "gpu-operator",
        "aws-efa-k8s-device-plugin",
        "cluster-autoscaler",
        "kueue",
        "kuberay-operator",  # the AI operator beside Kueue (platform._ai_operator)
        "keda",  # kubernetes.podAutoscaling is its own switch
        "gateway-helm",  # inference routing on every cluster (components/kubernetes/inference_gateway.py)
        "ai-gateway-crds-helm",
        "ai-gateway-helm",
    }
    assert helm(off, "gpu-operator")["values"]["dcgmExporter"] == {"enabled": True}
    assert not off.readiness_blocking()
    kept = plan_variant("startup-t4", lambda c: c.setdefault("kubernetes", {}).update(monitoring={"retentionDays": 30}))
    assert helm(kept, "kube-prometheus-stack")["values"]["prometheus"]["prometheusSpec"]["retention"] == "30d"
