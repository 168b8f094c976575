"""Alibaba Cloud facts asserted on what the program sends to the engine."""

import json

import pytest

from blueprints.errors import BlueprintError
from catalog import load_catalog
from conftest import gpu_groups, resources, shipped_plan, system_groups

ALI_STACKS = ["startup-t4-aliyun", "research-a100-aliyun", "enterprise-aliyun"]


@pytest.mark.parametrize("stack", ALI_STACKS)
def test_node_pool_instance_types_come_from_the_catalog(stack):
    plan = shipped_plan(stack)
    for pool in gpu_groups(plan):
        (instance_type,) = pool["instanceTypes"]
        shape = load_catalog().get(instance_type)
        assert shape is not None and shape.cloud == "alicloud"
        # Sold there pay-as-you-go, or on request with the plan saying so (issue 29: research's gn7e and
        # enterprise's gn8v-8x have no pay-as-you-go offer in their mainland regions).
        region = plan.resolved.spec.region
        assert shape.offered_in(region)
        assert region in shape.regions or any(f"sold in {region} on request only" in n for n in plan.resolved.notes)
    [system] = system_groups(plan)
    assert system["instanceTypes"] == [plan.resolved.system.instance_type] == ["ecs.g7.xlarge"]


def test_erdma_only_where_the_shape_supports_it():
    enterprise = shipped_plan("enterprise-aliyun")
    assert enterprise.resolved.node_groups[0].shape.rdma.kind == "erdma"
    [addon] = [
        a
        for a in resources(enterprise, "alicloud:cs/kubernetesAddon:KubernetesAddon")
        if a["name"] == "ack-erdma-controller"
    ]
    assert json.loads(addon["config"]) == {"agent": {"preferDriver": "ofed"}}
    # ACK installs and authorizes its add-on: the stack adds no RAM role with ENI permissions for it.
    assert not [r for r in resources(enterprise, "alicloud:ram/policy:Policy") if "ecs:" in r["policyDocument"]]
    research = shipped_plan("research-a100-aliyun")
    assert research.resolved.node_groups[0].rdma_interfaces == 0
    assert not any("erdma" in r.name for r in research.registrations)


@pytest.mark.parametrize("stack", ALI_STACKS)
def test_disks_buckets_and_file_systems_use_the_stack_key(stack):
    plan = shipped_plan(stack)
    (key,) = [r for r in plan.registrations if r.type == "alicloud:kms/key:Key"]
    assert key.inputs["automaticRotation"] == "Enabled"
    key_id = key.id
    for pool in resources(plan, "alicloud:cs/nodePool:NodePool"):
        assert pool["systemDiskEncrypted"] is True and pool["systemDiskKmsKey"] == key_id
        assert all(d["encrypted"] == "true" and d["kmsKeyId"] == key_id for d in pool["dataDisks"])
    for bucket in resources(plan, "alicloud:oss/bucket:Bucket"):
        assert bucket["serverSideEncryptionRule"] == {"sseAlgorithm": "KMS", "kmsMasterKeyId": key_id}
        assert bucket["versioning"]["status"] == "Enabled" and bucket["acl"] == "private"
    for fs in resources(plan, "alicloud:nas/fileSystem:FileSystem"):
        # CreateFileSystem takes a customer key only for NAS extreme (tests/test_nas_encryption.py): CPFS gets none.
        if fs["fileSystemType"] == "cpfs":
            assert "encryptType" not in fs and "kmsKeyId" not in fs
        else:
            assert fs["encryptType"] == 2 and fs["kmsKeyId"] == key_id
    (cluster,) = resources(plan, "alicloud:cs/managedKubernetes:ManagedKubernetes")
    assert cluster["encryptionProviderKey"] == key_id and cluster["slbInternetEnabled"] is False
    assert cluster["enableRrsa"] is True


@pytest.mark.parametrize("stack", ALI_STACKS)
def test_actiontrail_covers_all_regions_and_events_kept_at_least_180_days(stack):
    plan = shipped_plan(stack)
    (trail,) = resources(plan, "alicloud:actiontrail/trail:Trail")
    assert trail["trailRegion"] == "All" and trail["eventRw"] == "All"
    stores = {s["logstoreName"]: s["retentionPeriod"] for s in resources(plan, "alicloud:log/store:Store")}
    assert stores[f"actiontrail_{stack}-audit"] >= 180
    assert resources(plan, "alicloud:threatdetection/instance:Instance")


@pytest.mark.parametrize("stack", ALI_STACKS)
def test_no_security_group_rule_opens_to_the_internet(stack):
    # Inbound: nothing from the internet. Outbound to the internet: HTTPS (public registries through NAT) and the
    # alert mail relay's port, only when the stack names a relay.
    plan = shipped_plan(stack)
    smtp = plan.resolved.spec.kubernetes.monitoring.alerts.smtp
    allowed = {"443/443"} | ({"{0}/{0}".format(smtp.smarthost.rsplit(":", 1)[1])} if smtp else set())
    for rule in resources(plan, "alicloud:ecs/securityGroupRule:SecurityGroupRule"):
        if rule.get("cidrIp") == "0.0.0.0/0":
            assert (rule["type"], rule["ipProtocol"]) == ("egress", "tcp") and rule["portRange"] in allowed


@pytest.mark.parametrize("stack", ALI_STACKS)
def test_every_oss_bucket_refuses_plain_http(stack):
    plan = shipped_plan(stack)
    buckets = {b["bucket"] for b in resources(plan, "alicloud:oss/bucket:Bucket")}
    policies = {p["bucket"]: json.loads(p["policy"]) for p in resources(plan, "alicloud:oss/bucketPolicy:BucketPolicy")}
    assert buckets and set(policies) == buckets
    for bucket, policy in policies.items():
        [deny] = policy["Statement"]
        assert deny["Effect"] == "Deny" and deny["Action"] == ["oss:*"] and deny["Principal"] == ["*"]
        assert deny["Condition"] == {"Bool": {"acs:SecureTransport": ["false"]}}
        assert deny["Resource"] == [f"acs:oss:*:*:{bucket}", f"acs:oss:*:*:{bucket}/*"]


def test_enterprise_cache_is_a_cpfs_data_flow_from_the_bucket_over_tls():
    plan = shipped_plan("enterprise-aliyun")
    [bucket] = [b for b in resources(plan, "alicloud:oss/bucket:Bucket") if not b["bucket"].endswith("-access-logs")]
    [fs] = [r for r in plan.registrations if r.type == "alicloud:nas/fileSystem:FileSystem"]
    [flow] = resources(plan, "alicloud:nas/dataFlow:DataFlow")
    [fileset] = resources(plan, "alicloud:nas/fileset:Fileset")
    assert flow["sourceStorage"] == f"oss://{bucket['bucket']}" and flow["sourceSecurityType"] == "SSL"
    assert flow["fileSystemId"] == fileset["fileSystemId"] == fs.id
    assert not resources(shipped_plan("research-a100-aliyun"), "alicloud:nas/dataFlow:DataFlow")


def test_cache_on_nas_is_refused_with_one_line(plan_variant):
    with pytest.raises(BlueprintError, match="objectStorage.cache needs parallelFs type cpfs"):
        plan_variant(
            "research-a100-aliyun",
            lambda c: c.setdefault("storage", {}).update(
                parallelFs={"type": "nas", "sizeGib": 10000}, objectStorage={"cache": True}
            ),
        )


@pytest.mark.parametrize("stack", ALI_STACKS)
def test_ack_version_is_pinned_to_the_specs_minor(stack):
    plan = shipped_plan(stack)
    [cluster] = resources(plan, "alicloud:cs/managedKubernetes:ManagedKubernetes")
    assert cluster["version"].startswith(plan.resolved.spec.kubernetes_version + ".")
    assert "-aliyun." in cluster["version"]


def test_newest_patch_of_the_minor():
    from components.alicloud.ack import newest_patch

    offered = ["1.34.9-aliyun.1", "1.35.1-aliyun.1", "1.35.10-aliyun.1", "1.35.10-aliyun.2", "1.3.5-aliyun.9"]
    assert newest_patch("1.35", offered) == "1.35.10-aliyun.2"
    with pytest.raises(ValueError, match="ACK offers no Kubernetes 1.36 here"):
        newest_patch("1.36", offered)


@pytest.mark.parametrize("stack", ["enterprise-aliyun", "startup-t4-aliyun"])
def test_data_bucket_access_is_logged_to_its_own_log_bucket(stack):
    """MLPS/HIPAA/GDPR data-access audit: every object access to the data bucket lands in a separate bucket."""
    plan = shipped_plan(stack)
    names = {b["bucket"] for b in resources(plan, "alicloud:oss/bucket:Bucket")}
    [logging] = resources(plan, "alicloud:oss/bucketLogging:BucketLogging")
    assert logging["bucket"].startswith(f"{stack}-data-")  # then the per-deployment suffix
    assert logging["targetBucket"] == f"{logging['bucket']}-access-logs"
    assert names == {logging["bucket"], logging["targetBucket"]}


@pytest.mark.parametrize("stack", ALI_STACKS)
def test_security_center_switches_are_the_providers_ints(stack):
    # pulumi-alicloud 4.0.0 types the pay-as-you-go module switches (InstancePostPayModuleSwitchObjArgs) as ints 0/1;
    # a boolean or a string is not a valid value. Which modules: tests/test_threat_detection_alicloud.py.
    for instance in resources(shipped_plan(stack), "alicloud:threatdetection/instance:Instance"):
        switches = instance["postPayModuleSwitchObj"]
        assert switches and all(type(v) is int and v == 1 for v in switches.values())


@pytest.mark.parametrize("stack", ALI_STACKS)
def test_the_system_pool_is_never_elastic_so_coredns_has_nodes(stack):
    # Nodes of an auto-scaling pool are labelled k8s.aliyun.com=true, which CoreDNS and metrics-server avoid.
    plan = shipped_plan(stack)
    system = [
        r.inputs for r in plan.registrations if r.type == "alicloud:cs/nodePool:NodePool" and r.name.endswith("-system")
    ]
    assert system and all(p["scalingConfig"]["enable"] is False and p["desiredSize"] >= 1 for p in system)
