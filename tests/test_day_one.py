"""A cluster that works on day one, asserted per cloud on what the program sends to the engine:
system capacity, managed add-ons and their roles, storage pods can mount, autoscaling from zero,
workload identity, access."""

from __future__ import annotations

import base64
import json

import kubernetes_validate
import pytest
import yaml

from blueprints.offline.mocks import ACCOUNT_ID
from blueprints.stackconfig import load_stack_spec
from catalog import load_catalog
from catalog.addons import addon_versions
from conftest import (
    SHIPPED,
    fails_besides_cpfs,
    gpu_groups,
    gpu_templates,
    helm,
    resources,
    run_cli,
    shipped_cluster,
    shipped_plan,
    system_groups,
    with_system_price,
    write_stack,
)

AWS = [s for s in SHIPPED if load_stack_spec(s).cloud == "aws"]
ALI = [s for s in SHIPPED if s not in AWS]
NODE_TEMPLATE = "k8s.io/cluster-autoscaler/node-template/"


def registrations(plan, type_):
    return [r for r in plan.registrations if r.type == type_]


# --------------------------------------------------------------------------- system capacity
@pytest.mark.parametrize("stack", AWS)
def test_eks_system_group_is_untainted_on_demand_cpu_across_all_zones(stack):
    plan = shipped_plan(stack)
    [system] = system_groups(plan)
    assert system["taints"] == [] and system["capacityType"] == "ON_DEMAND"
    assert system["amiType"] == "AL2023_x86_64_STANDARD" and system["scalingConfig"]["minSize"] >= 2
    [cluster] = resources(plan, "aws:eks/cluster:Cluster")
    assert system["subnetIds"] == cluster["vpcConfig"]["subnetIds"] and len(system["subnetIds"]) == 3
    assert load_catalog().get(system["instanceTypes"][0]) is None  # a CPU shape, not a GPU one
    for group in gpu_groups(plan):
        assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in group["taints"]


@pytest.mark.parametrize("stack", ALI)
def test_ack_system_pool_is_untainted_pay_as_you_go_across_all_vswitches(stack):
    plan = shipped_plan(stack)
    [system] = system_groups(plan)
    assert system["taints"] == [] and system["instanceChargeType"] == "PostPaid" and "spotStrategy" not in system
    assert system["scalingConfig"]["minSize"] >= 2 and system["desiredSize"] >= 2
    [cluster] = resources(plan, "alicloud:cs/managedKubernetes:ManagedKubernetes")
    assert system["vswitchIds"] == cluster["vswitchIds"] and len(system["vswitchIds"]) >= 2
    for pool in gpu_groups(plan):
        assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"} in pool["taints"]


def test_system_shape_and_count_come_from_the_spec(plan_variant):
    plan = plan_variant(
        "research-a100",
        lambda c: c.update(systemNodes={"instanceType": "m6i.2xlarge", "minNodes": 3, "desiredNodes": 3}),
    )
    [system] = system_groups(plan)
    assert system["instanceTypes"] == ["m6i.2xlarge"]
    assert system["scalingConfig"] == {"minSize": 3, "desiredSize": 3, "maxSize": 4}
    [item] = [i for i in plan.cost.items if i.component == "system-nodes"]
    assert item.usd_per_hour == pytest.approx(3 * 0.384)


def test_system_nodes_are_priced_only_from_their_own_region():
    us = shipped_plan("research-a100")
    [item] = [i for i in us.cost.items if i.component == "system-nodes"]
    assert item.usd_per_hour == pytest.approx(2 * 0.192) and "us-east-1" in us.resolved.system.price_source
    eu = shipped_plan("research-a100-eu").resolved.system  # eu-central-1's own price, not us-east-1's
    assert eu.usd_per_hour == pytest.approx(0.23) and "(eu-central-1)" in eu.price_source
    for stack, region in (("startup-t4-aliyun", "cn-hangzhou"),):
        plan = shipped_plan(stack)
        assert plan.resolved.system.usd_per_hour is None  # never another region's price
        assert any(
            n.startswith(f"system: {plan.resolved.system.instance_type} has no list price for {region}")
            for n in plan.resolved.notes
        )
        assert any(
            u.endswith(f"has no list price; set prices.{plan.resolved.system.instance_type}")
            for u in plan.cost.unpriced
        )


# --------------------------------------------------------------------------- add-ons
@pytest.mark.parametrize("stack", AWS)
def test_eks_managed_addons_are_pinned_per_kubernetes_version(stack):
    plan = shipped_plan(stack)
    expected = addon_versions("aws", plan.resolved.spec.kubernetes_version).managed
    found = {a["addonName"]: a["addonVersion"] for a in resources(plan, "aws:eks/addon:Addon")}
    lustre = plan.resolved.spec.storage.parallel_fs.type == "lustre"
    assert found == {k: v for k, v in expected.items() if lustre or k != "aws-fsx-csi-driver"}
    assert {"vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent", "aws-ebs-csi-driver"} <= set(found)


def test_addons_with_aws_permissions_get_their_own_irsa_role():
    plan = shipped_plan("research-a100")
    roles = {r.urn: r for r in registrations(plan, "aws:iam/role:Role")}
    trusted = {}
    for addon in registrations(plan, "aws:eks/addon:Addon"):
        [role_urn] = [d for d in addon.property_dependencies.get("serviceAccountRoleArn", []) if d in roles] or [None]
        if role_urn:
            statement = json.loads(roles[role_urn].inputs["assumeRolePolicy"])["Statement"][0]
            trusted[addon.inputs["addonName"]] = [
                v for k, v in statement["Condition"]["StringEquals"].items() if k.endswith(":sub")
            ][0]
    assert trusted == {
        "vpc-cni": "system:serviceaccount:kube-system:aws-node",
        "aws-ebs-csi-driver": "system:serviceaccount:kube-system:ebs-csi-controller-sa",
    }
    [ebs] = [r.inputs for r in registrations(plan, "aws:iam/rolePolicy:RolePolicy") if "aws-ebs-csi-driver" in r.name]
    statements = json.loads(ebs["policy"])["Statement"]
    [grants] = [s for s in statements if "kms:CreateGrant" in s["Action"]]
    assert grants["Condition"] == {"Bool": {"kms:GrantIsForAWSResource": "true"}}
    assert all(r == plan.outputs["kms_key_arn"] for s in statements for r in s["Resource"])


def test_network_addons_come_before_nodes_and_the_rest_after_the_system_group():
    plan = shipped_plan("research-a100")
    addons = {r.inputs["addonName"]: r for r in registrations(plan, "aws:eks/addon:Addon")}
    for group in registrations(plan, "aws:eks/nodeGroup:NodeGroup"):
        parent = next(r for r in plan.registrations if r.urn == group.parent)  # depends_on a component: its children
        for addon in ("vpc-cni", "kube-proxy", "eks-pod-identity-agent"):
            assert addons[addon].urn in parent.dependencies
    [system_group] = [r for r in registrations(plan, "aws:eks/nodeGroup:NodeGroup") if r.name == "research-a100-system"]
    services = next(r for r in plan.registrations if r.name == "research-a100-services")
    assert system_group.urn in services.dependencies


def test_autoscaling_role_may_use_the_key_for_node_volumes():
    [key] = resources(shipped_plan("startup-t4"), "aws:kms/key:Key")
    statements = {s.get("Sid"): s for s in json.loads(key["policy"])["Statement"]}
    role = f"arn:aws:iam::{ACCOUNT_ID}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
    assert statements["AutoScalingEncryptsNodeVolumes"]["Principal"] == {"AWS": role}
    assert statements["AutoScalingGrantsForNodeVolumes"]["Condition"] == {"Bool": {"kms:GrantIsForAWSResource": "true"}}


@pytest.mark.parametrize("stack", ALI)
def test_ack_installs_csi_and_pod_identity_addons(stack):
    plan = shipped_plan(stack)
    [cluster] = resources(plan, "alicloud:cs/managedKubernetes:ManagedKubernetes")
    names = [a["name"] for a in cluster["addons"]]
    cpfs = plan.resolved.spec.storage.parallel_fs.type == "cpfs"
    expected = ["terway-eniip", "csi-plugin", "managed-csiprovisioner"] + (["cnfs-nas-daemon"] if cpfs else [])
    assert names == sorted(expected)
    assert "ack-pod-identity-webhook" in [
        a["name"] for a in resources(plan, "alicloud:cs/kubernetesAddon:KubernetesAddon")
    ]


@pytest.mark.parametrize("stack", SHIPPED)
def test_default_storage_class_is_encrypted_with_the_stack_key(stack):
    plan = shipped_plan(stack)
    [registration] = registrations(plan, "kubernetes:storage.k8s.io/v1:StorageClass")
    storage_class = registration.inputs
    assert storage_class["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
    params = storage_class["parameters"]
    assert params["encrypted"] == "true"
    [key] = [r for r in plan.registrations if r.type in ("aws:kms/key:Key", "alicloud:kms/key:Key")]
    assert key.urn in registration.dependencies
    if plan.resolved.spec.cloud == "aws":
        assert storage_class["provisioner"] == "ebs.csi.aws.com" and params["type"] == "gp3"
        assert params["kmsKeyId"] == plan.outputs["kms_key_arn"]
    else:
        assert storage_class["provisioner"] == "diskplugin.csi.alibabacloud.com" and params["kmsKeyId"] == key.id


# --------------------------------------------------------------------------- storage pods can mount
@pytest.mark.parametrize("stack", ["research-a100", "enterprise-h100", "research-a100-eu"])
def test_lustre_is_bound_to_a_read_write_many_claim_in_the_training_namespace(stack):
    plan = shipped_plan(stack)
    [fs] = registrations(plan, "aws:fsx/lustreFileSystem:LustreFileSystem")
    volumes = {pv["metadata"]["name"]: pv for pv in resources(plan, "kubernetes:core/v1:PersistentVolume")}
    claims = resources(plan, "kubernetes:core/v1:PersistentVolumeClaim")
    # the trainer namespace and every team (their jobs are queued) each have the claim
    k8s = plan.resolved.spec.kubernetes
    assert sorted(c["metadata"]["namespace"] for c in claims) == sorted({k8s.trainer_namespace, *k8s.teams})
    assert len(volumes) == len(claims)
    for pvc in claims:
        pv = volumes[pvc["spec"]["volumeName"]]
        assert pv["spec"]["csi"]["driver"] == "fsx.csi.aws.com" and pv["spec"]["csi"]["volumeHandle"] == fs.id
        assert pv["spec"]["csi"]["volumeAttributes"]["dnsname"].endswith(".amazonaws.com")
        assert pv["spec"]["capacity"]["storage"] == f"{fs.inputs['storageCapacity']}Gi"
        assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
        assert pv["spec"]["accessModes"] == ["ReadWriteMany"]
        assert pvc["metadata"]["name"] == "shared-data" and pvc["spec"]["storageClassName"] == ""
        assert pv["spec"]["claimRef"] == {"namespace": pvc["metadata"]["namespace"], "name": "shared-data"}


def test_nas_is_bound_through_its_mount_target(plan_variant):
    plan = plan_variant(
        "startup-t4-aliyun", lambda c: c.setdefault("storage", {}).update(parallelFs={"type": "nas", "sizeGib": 1000})
    )
    [fs] = registrations(plan, "alicloud:nas/fileSystem:FileSystem")
    [target] = registrations(plan, "alicloud:nas/mountTarget:MountTarget")
    volumes = registrations(plan, "kubernetes:core/v1:PersistentVolume")
    assert len(volumes) == 2  # `training` and the team's namespace
    for pv in volumes:
        assert target.inputs["fileSystemId"] == fs.id and target.urn in pv.dependencies
        csi = pv.inputs["spec"]["csi"]
        assert csi["driver"] == "nasplugin.csi.alibabacloud.com" and csi["volumeAttributes"]["path"] == "/share"
        assert "vers=3" in pv.inputs["spec"]["mountOptions"]
    assert not plan.readiness_blocking()
    for r in registrations(plan, "kubernetes:core/v1:PersistentVolume") + registrations(
        plan, "kubernetes:core/v1:PersistentVolumeClaim"
    ):
        kubernetes_validate.validate(r.inputs, "1.35.0", strict=True)


def test_cpfs_gets_an_nfs_export_and_its_claim_once_the_domain_is_known(plan_variant):
    shipped = shipped_plan("research-a100-aliyun")
    assert registrations(shipped, "alicloud:nas/protocolMountTarget:ProtocolMountTarget")
    assert not resources(shipped, "kubernetes:core/v1:PersistentVolume")
    [pending] = [f for f in shipped.readiness if f.check == "file-system-claim"]
    assert pending.level == "warning" and "exportDomain" in pending.fix
    domain = "cpfs-0123456789abcdef-x1y2z3.cn-hangzhou.cpfs.aliyuncs.com"
    plan = plan_variant(
        "research-a100-aliyun",
        lambda c: c.setdefault("storage", {}).setdefault("parallelFs", {}).update(exportDomain=domain),
    )
    volumes = resources(plan, "kubernetes:core/v1:PersistentVolume")
    assert len(volumes) == 2  # `training` and the team's namespace
    for pv in volumes:
        assert pv["spec"]["csi"]["volumeAttributes"] == {
            "server": domain,
            "path": "/share",
            "mountProtocol": "cpfs-nfs",
        }
        kubernetes_validate.validate(pv, "1.35.0", strict=True)
    assert not [f for f in plan.readiness if f.check == "file-system-claim"]


def test_local_nvme_is_striped_for_pods_on_shapes_that_have_it(plan_variant):
    [template] = gpu_templates(shipped_plan("startup-t4"))  # g4dn.2xlarge: 225 GB NVMe
    config = base64.b64decode(template["userData"]).decode()
    node_config = yaml.safe_load(config.split("Content-Type: application/node.eks.aws", 1)[1].split("--//--")[0])
    assert node_config["kind"] == "NodeConfig" and node_config["spec"]["instance"]["localStorage"] == {
        "strategy": "RAID0"
    }
    off = plan_variant("startup-t4", lambda c: c.setdefault("storage", {}).update(localNvmeScratch=False))
    assert "userData" not in gpu_templates(off)[0]
    [system_template] = [
        r.inputs
        for r in shipped_plan("startup-t4").registrations
        if r.type == "aws:ec2/launchTemplate:LaunchTemplate" and r.name.endswith("-system")
    ]
    assert "userData" not in system_template  # m6i has no instance store


# --------------------------------------------------------------------------- autoscaling from zero
@pytest.mark.parametrize("stack", AWS)
def test_gpu_groups_carry_node_templates_for_scale_from_zero(stack):
    plan = shipped_plan(stack)
    groups = {r.urn: r for r in registrations(plan, "aws:eks/nodeGroup:NodeGroup")}
    tags: dict[str, dict[str, str]] = {}
    for tag in registrations(plan, "aws:autoscaling/tag:Tag"):
        [group] = [d for d in tag.dependencies if d in groups]
        assert tag.inputs["tag"]["propagateAtLaunch"] is False
        assert tag.inputs["autoscalingGroupName"].startswith(f"eks-{groups[group].inputs['nodeGroupName']}-")
        tags.setdefault(group, {})[tag.inputs["tag"]["key"]] = tag.inputs["tag"]["value"]
    for resolved in plan.resolved.node_groups:
        [urn] = [u for u, g in groups.items() if g.inputs["nodeGroupName"] == f"{stack}-{resolved.name}"]
        template = tags[urn]
        assert template[NODE_TEMPLATE + "resources/nvidia.com/gpu"] == str(resolved.shape.gpu.count)
        if resolved.rdma_interfaces:
            assert template[NODE_TEMPLATE + "resources/vpc.amazonaws.com/efa"] == str(resolved.rdma_interfaces)
        else:
            assert NODE_TEMPLATE + "resources/vpc.amazonaws.com/efa" not in template
        assert template[NODE_TEMPLATE + "taint/nvidia.com/gpu"] == "present:NoSchedule"
        for key, value in groups[urn].inputs["labels"].items():
            assert template[NODE_TEMPLATE + f"label/{key}"] == value
    assert len(tags) == len(plan.resolved.node_groups)  # the system group needs none: it never scales from zero


@pytest.mark.parametrize("stack", AWS)
def test_cluster_autoscaler_discovers_this_cluster_and_gives_idle_gpus_back(stack):
    plan = shipped_plan(stack)
    spec = plan.resolved.spec
    values = helm(plan, "cluster-autoscaler")["values"]
    assert values["autoDiscovery"] == {"clusterName": stack} and values["awsRegion"] == spec.region
    assert values["image"]["tag"] == addon_versions("aws", spec.kubernetes_version).autoscaler_image_tag
    assert values["image"]["tag"].startswith(f"v{spec.kubernetes_version}.")
    assert values["nodeSelector"] == {"gpu-blueprints/node-group": "system"}
    assert values["extraArgs"]["scale-down-unneeded-time"] == f"{spec.autoscaling.scale_down_unneeded_minutes}m"
    assert values["extraArgs"]["scale-down-gpu-utilization-threshold"] == "0.3"
    [role] = [r for r in registrations(plan, "aws:iam/role:Role") if "cluster-autoscaler" in r.name]
    assert values["rbac"]["serviceAccount"]["annotations"]["eks.amazonaws.com/role-arn"].startswith(
        f"arn:aws:iam::{ACCOUNT_ID}:role/{role.name}-"
    )
    assert "system:serviceaccount:kube-system:cluster-autoscaler" in role.inputs["assumeRolePolicy"]
    [policy] = [r for r in resources(plan, "aws:iam/rolePolicy:RolePolicy") if "ScaleOwnNodeGroups" in r["policy"]]
    statements = {s["Sid"]: s for s in json.loads(policy["policy"])["Statement"]}
    scale = statements["ScaleOwnNodeGroups"]
    assert scale["Resource"] == [
        f"arn:aws:autoscaling:{spec.region}:{ACCOUNT_ID}:autoScalingGroup:*:autoScalingGroupName/eks-{stack}-*"
    ]
    assert scale["Condition"] == {"StringEquals": {f"aws:ResourceTag/k8s.io/cluster-autoscaler/{stack}": "owned"}}


@pytest.mark.parametrize("stack", ALI)
def test_ack_scales_gpu_pools_from_zero_and_gives_idle_nodes_back(stack):
    plan = shipped_plan(stack)
    [config] = resources(plan, "alicloud:cs/autoscalingConfig:AutoscalingConfig")
    assert config["scaleUpFromZero"] is True and config["scaleDownEnabled"] is True
    assert config["unneededDuration"] == "10m" and config["gpuUtilizationThreshold"] == "0.3"
    for pool in gpu_groups(plan):
        assert pool["scalingConfig"]["enable"] is True and pool["scalingConfig"]["type"] == "gpu"
        assert pool["scalingConfig"]["minSize"] == 0


def test_autoscaler_settings_come_from_the_spec(plan_variant):
    plan = plan_variant(
        "startup-t4",
        lambda c: c.update(
            autoscaling={
                "scaleDownUnneededMinutes": 30,
                "scaleDownUtilizationThreshold": 0.2,
                "gpuScaleDownUtilizationThreshold": 0.1,
            }
        ),
    )
    args = helm(plan, "cluster-autoscaler")["values"]["extraArgs"]
    assert (
        args["scale-down-unneeded-time"],
        args["scale-down-utilization-threshold"],
        args["scale-down-gpu-utilization-threshold"],
    ) == ("30m", "0.2", "0.1")


# --------------------------------------------------------------------------- workload identity
@pytest.mark.parametrize("stack", AWS)
def test_trainer_service_account_carries_the_irsa_role_arn(stack):
    plan = shipped_plan(stack)
    k8s = plan.resolved.spec.kubernetes
    accounts = {
        r.inputs["metadata"]["namespace"]: r
        for r in registrations(plan, "kubernetes:core/v1:ServiceAccount")
        if r.inputs["metadata"]["name"] == "trainer"
    }
    assert sorted(accounts) == sorted({k8s.trainer_namespace, *k8s.teams})  # one identity per team
    for namespace, account in accounts.items():
        role_name = f"{stack}-trainer" if namespace == k8s.trainer_namespace else f"{stack}-trainer-{namespace}"
        [role] = [r for r in registrations(plan, "aws:iam/role:Role") if r.name == role_name]
        assert role.urn in account.dependencies
        assert f"system:serviceaccount:{namespace}:trainer" in role.inputs["assumeRolePolicy"]
        arn = account.inputs["metadata"]["annotations"]["eks.amazonaws.com/role-arn"]
        assert arn == plan.outputs["trainer_role_arns"][namespace]
        assert arn.startswith(f"arn:aws:iam::{ACCOUNT_ID}:role/{role_name}-")
    assert plan.outputs["trainer_role_arn"] == plan.outputs["trainer_role_arns"][k8s.trainer_namespace]


@pytest.mark.parametrize("stack", ALI)
def test_trainer_service_account_names_the_rrsa_role_and_its_namespace_injects(stack):
    plan = shipped_plan(stack)
    k8s = plan.resolved.spec.kubernetes
    accounts = {
        r.inputs["metadata"]["namespace"]: r.inputs
        for r in registrations(plan, "kubernetes:core/v1:ServiceAccount")
        if r.inputs["metadata"]["name"] == "trainer"
    }
    assert sorted(accounts) == sorted({k8s.trainer_namespace, *k8s.teams})  # one identity per team
    for ns, account in accounts.items():
        role_name = f"{stack}-trainer" if ns == k8s.trainer_namespace else f"{stack}-trainer-{ns}"
        [role] = [r for r in registrations(plan, "alicloud:ram/role:Role") if r.name == role_name]
        assert account["metadata"]["annotations"] == {
            "pod-identity.alibabacloud.com/role-name": role.inputs["roleName"]
        }
        [namespace] = [n for n in resources(plan, "kubernetes:core/v1:Namespace") if n["metadata"]["name"] == ns]
        assert namespace["metadata"]["labels"]["pod-identity.alibabacloud.com/injection"] == "on"


# --------------------------------------------------------------------------- access
def test_eks_admins_get_access_entries_and_the_kubeconfig_is_a_secret_output(plan_variant):
    admin = "arn:aws:iam::123456789012:role/platform-admins"
    plan = plan_variant("startup-t4", lambda c: c.update(access={"clusterAdmins": [admin]}))
    [entry] = resources(plan, "aws:eks/accessEntry:AccessEntry")
    [association] = resources(plan, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation")
    assert entry["principalArn"] == association["principalArn"] == admin
    assert association["policyArn"].endswith("AmazonEKSClusterAdminPolicy")
    assert plan.outputs["kubeconfig"] == {"secret": True}


def test_ack_admins_get_cluster_admin_permissions(plan_variant):
    plan = plan_variant(
        "startup-t4-aliyun",
        lambda c: c.update(access={"clusterAdmins": ["2035123456789012", "role:301234567890123456"]}),
    )
    permissions = sorted(
        resources(plan, "alicloud:cs/kubernetesPermission:KubernetesPermission"), key=lambda p: p["uid"]
    )
    assert [(p["uid"], p["permissions"][0]["isRamRole"], p["permissions"][0]["roleName"]) for p in permissions] == [
        ("2035123456789012", False, "admin"),
        ("301234567890123456", True, "admin"),
    ]
    assert plan.outputs["kubeconfig"] == {"secret": True}


@pytest.mark.parametrize(
    "field, value, expected",
    [
        ("access", {"clusterAdmins": ["alice"]}, "access.clusterAdmins: 'alice' is not an IAM role or user ARN"),
        ("systemNodes", {"minNodes": 1, "desiredNodes": 2}, "cluster.systemNodes.minNodes"),
        ("nodeGroups", {"system": {"gpuModel": "T4", "gpusPerNode": 1}}, "'system' is the system node group's"),
        ("kubernetes", {"acceptance": {"recheckIdleHours": 30}}, "recheckIdleHours is 1 to 24, or a multiple of 24"),
    ],
)
def test_bad_day_one_fields_are_one_line_and_exit_2(tmp_path, field, value, expected):
    cluster = shipped_cluster("startup-t4")
    cluster[field] = value
    write_stack(tmp_path, "bad", cluster)
    run = run_cli("plan", "--stack", "bad", "--stacks-dir", str(tmp_path))  # the CLI's main, in this process
    assert run.returncode == 2 and expected in run.stderr and run.stderr.count("\n") == 1, run.stderr


DETECTORS = {"aws": "aws:guardduty/detector:Detector", "alicloud": "alicloud:threatdetection/instance:Instance"}


@pytest.mark.parametrize("stack,cloud", [("enterprise-h100", "aws"), ("enterprise-aliyun", "alicloud")])
def test_a_second_stack_in_the_account_uses_the_existing_threat_detection(plan_variant, stack, cloud):
    """GuardDuty allows one detector per account and region (Security Center is one per account): with
    accountServices.threatDetection: existing a stack declares none, and the pack is told so, so two stacks in one
    account and region both plan with exit 0. Without that config the same resources draw the finding."""
    from blueprints.offline.policy import evaluate

    first = shipped_plan(stack)
    assert len(registrations(first, DETECTORS[cloud])) == 1
    existing = {"threatDetection": "existing"}
    second = plan_variant(stack, lambda c: with_system_price(c).update(accountServices=existing))
    assert registrations(second, DETECTORS[cloud]) == [] and not fails_besides_cpfs(second)
    assert not [f for f in second.findings if f["policy"] == "stack-threat-detection"]
    untold = evaluate(second.stack, second.registrations, ["baseline"], {})
    assert [f["policy"] for f in untold if f["policy"] == "stack-threat-detection"] == ["stack-threat-detection"]


def test_guardduty_runtime_monitoring_is_the_feature_the_api_documents_today():
    """Runtime Monitoring (RUNTIME_MONITORING with EKS_ADDON_MANAGEMENT), not the EKS Runtime Monitoring feature AWS
    folded into it; both names checked against botocore's GuardDuty model."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("guardduty")
    [feature] = resources(shipped_plan("enterprise-h100"), "aws:guardduty/detectorFeature:DetectorFeature")
    assert feature["name"] == "RUNTIME_MONITORING" and feature["name"] in model.shape_for("DetectorFeature").enum
    extra = [c["name"] for c in feature["additionalConfigurations"]]
    assert extra == ["EKS_ADDON_MANAGEMENT"] and set(extra) <= set(
        model.shape_for("FeatureAdditionalConfiguration").enum
    )


def test_the_budget_tag_is_activated_on_request_and_the_plan_warns_until_it_is(plan_variant):
    """AWS Budgets' tag filter counts nothing until the tag is an active cost allocation tag, and AWS lists a new key
    only after resources carry it: the plan warns by default and activates it when the spec asks."""
    default = shipped_plan("startup-t4")
    assert [f.check for f in default.readiness if f.check == "budget-tag"] == ["budget-tag"]
    assert registrations(default, "aws:costexplorer/costAllocationTag:CostAllocationTag") == []
    asked = plan_variant("startup-t4", lambda c: c["budget"].update(activateCostAllocationTag=True))
    [tag] = [r.inputs for r in registrations(asked, "aws:costexplorer/costAllocationTag:CostAllocationTag")]
    assert tag == {"tagKey": "gpu-cluster", "status": "Active"}
    assert not [f for f in asked.readiness if f.check == "budget-tag"]


def test_node_images_are_held_from_creation_or_pinned(plan_variant):
    """A new EKS AMI release (and GPU driver) must not roll GPU nodes under a running job: unpinned, the node groups
    ignore later releases; pinned, the release is the stack's and changes only when the stack does."""
    groups = [r for r in shipped_plan("research-a100").registrations if r.type == "aws:eks/nodeGroup:NodeGroup"]
    assert groups and all("releaseVersion" in r.ignore_changes for r in groups)
    pinned = plan_variant(
        "research-a100", lambda c: c.update(kubernetesVersion="1.33", nodeImage={"releaseVersion": "1.33.5-20251120"})
    )
    groups = [r for r in pinned.registrations if r.type == "aws:eks/nodeGroup:NodeGroup"]
    assert groups and all(
        r.inputs["releaseVersion"] == "1.33.5-20251120" and "releaseVersion" not in r.ignore_changes for r in groups
    )


def test_a_pinned_release_for_another_kubernetes_minor_is_refused(tmp_path):
    from blueprints.errors import BlueprintError
    from blueprints.stackconfig import parse_cluster

    with pytest.raises(BlueprintError, match="nodeImage.releaseVersion 1.32.9-20251120 is for Kubernetes 1.32"):
        parse_cluster(
            {
                "preset": "research",
                "cloud": "aws",
                "region": "us-east-1",
                "kubernetesVersion": "1.33",
                "nodeImage": {"releaseVersion": "1.32.9-20251120"},
            },
            "stacks/Pulumi.x.yaml",
        )


@pytest.mark.parametrize("stack", ["enterprise-h100", "enterprise-aliyun"])
def test_an_organisation_trail_replaces_the_stacks_own_audit_trail(plan_variant, stack):
    """accountServices.auditTrail: existing. AWS: the stack's trail records only S3 object events (the data-access
    audit of its buckets that HIPAA/GDPR ask for), not management events; Alibaba: no ActionTrail. The audit-trail
    rule is told so, and the stack still plans with exit 0 under its packs."""
    plan = plan_variant(stack, lambda c: with_system_price(c).update(accountServices={"auditTrail": "existing"}))
    assert not fails_besides_cpfs(plan)
    if stack == "enterprise-h100":
        [trail] = resources(plan, "aws:cloudtrail/trail:Trail")
        names = [s["name"] for s in trail["advancedEventSelectors"]]
        assert names == ["S3 object access"] and trail["includeGlobalServiceEvents"] is False
        [own] = resources(shipped_plan(stack), "aws:cloudtrail/trail:Trail")
        assert [s["name"] for s in own["advancedEventSelectors"]] == ["Management events", "S3 object access"]
    else:
        assert registrations(plan, "alicloud:actiontrail/trail:Trail") == []
        assert len(registrations(shipped_plan(stack), "alicloud:actiontrail/trail:Trail")) == 1
