"""AWS facts asserted on what the program sends to the engine."""

import pytest

from conftest import gpu_groups, gpu_templates, resources, shipped_plan

LT = "aws:ec2/launchTemplate:LaunchTemplate"


def efa_layout(plan):
    (template,) = gpu_templates(plan)
    return [
        (i["networkCardIndex"], i["deviceIndex"], i["interfaceType"]) for i in template.get("networkInterfaces", [])
    ]


def pin(instance_type, gpu_model, gpus, region="us-east-1"):
    def change(c):
        c["region"] = region
        c["nodeGroups"] = {
            "gpu": {"gpuModel": gpu_model, "gpusPerNode": gpus, "instanceType": instance_type, "minNetworkGbps": None}
        }
        c.setdefault("networking", {})["rdma"] = True

    return change


@pytest.mark.parametrize(
    "instance_type, model, gpus, count",
    [("p5.48xlarge", "H100", 8, 32), ("p4de.24xlarge", "A100-80GB", 8, 4), ("g5.8xlarge", "A10G", 1, 1)],
)
def test_efa_one_per_network_card_card0_efa_rest_efa_only(plan_variant, instance_type, model, gpus, count):
    plan = plan_variant("research-a100", pin(instance_type, model, gpus))
    layout = efa_layout(plan)
    assert layout[0] == (0, 0, "efa")
    assert layout[1:] == [(card, 1, "efa-only") for card in range(1, count)]


def test_g4dn_xlarge_gets_no_efa(plan_variant):
    def change(c):
        pin("g4dn.xlarge", "T4", 1)(c)
        c["networking"]["rdma"] = False

    plan = plan_variant("startup-t4", change)
    assert efa_layout(plan) == []
    assert not resources(plan, "aws:ec2/placementGroup:PlacementGroup")


def test_rdma_group_sits_in_a_cluster_placement_group_and_one_subnet():
    plan = shipped_plan("enterprise-h100")
    (pg,) = resources(plan, "aws:ec2/placementGroup:PlacementGroup")
    assert pg["strategy"] == "cluster"
    (template,) = gpu_templates(plan)
    assert template["placement"]["groupName"] == "enterprise-h100-efa"  # the placement group's name output
    (group,) = gpu_groups(plan)
    assert len(group["subnetIds"]) == 1
    assert len(efa_layout(plan)) == 32


def test_efa_security_group_allows_all_traffic_to_itself_only():
    plan = shipped_plan("research-a100")
    groups = [g for g in resources(plan, "aws:ec2/securityGroup:SecurityGroup") if "EFA" in g.get("description", "")]
    (efa,) = groups
    for rule in efa["ingress"] + efa["egress"]:
        assert rule["protocol"] == "-1" and rule["self"] is True and not rule.get("cidrBlocks")


@pytest.mark.parametrize("stack", ["startup-t4", "research-a100", "enterprise-h100"])
def test_nothing_accepts_traffic_from_the_internet(stack):
    for group in resources(shipped_plan(stack), "aws:ec2/securityGroup:SecurityGroup"):
        for rule in group.get("ingress", []):
            assert "0.0.0.0/0" not in rule.get("cidrBlocks", [])


@pytest.mark.parametrize("stack", ["startup-t4", "research-a100", "enterprise-h100"])
def test_encryption_wherever_data_rests(stack):
    plan = shipped_plan(stack)
    (key,) = resources(plan, "aws:kms/key:Key")
    assert key["enableKeyRotation"] is True and key["deletionWindowInDays"] == 30
    for template in resources(plan, LT):
        for device in template["blockDeviceMappings"]:
            assert device["ebs"]["encrypted"] == "true" and device["ebs"]["kmsKeyId"].startswith("arn:aws:kms:")
    for sse in resources(
        plan, "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
    ):
        rule = sse["rules"][0]["applyServerSideEncryptionByDefault"]
        assert rule["sseAlgorithm"] == "aws:kms" and rule["kmsMasterKeyId"].startswith("arn:aws:kms:")
    for group in resources(plan, "aws:cloudwatch/logGroup:LogGroup"):
        assert group["kmsKeyId"].startswith("arn:aws:kms:")
    for fs in resources(plan, "aws:fsx/lustreFileSystem:LustreFileSystem"):
        assert fs["deploymentType"] == "PERSISTENT_2" and fs["kmsKeyId"].startswith("arn:aws:kms:")
    (cluster,) = resources(plan, "aws:eks/cluster:Cluster")
    assert cluster["encryptionConfig"]["resources"] == ["secrets"]
    assert len(resources(plan, "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock")) == len(
        resources(plan, "aws:s3/bucket:Bucket")
    )


def test_eks_is_private_with_audit_logs_and_imdsv2_nodes():
    plan = shipped_plan("research-a100")
    (cluster,) = resources(plan, "aws:eks/cluster:Cluster")
    assert {"api", "audit", "authenticator"} <= set(cluster["enabledClusterLogTypes"])
    assert cluster["vpcConfig"]["endpointPublicAccess"] is False
    assert cluster["accessConfig"]["authenticationMode"] == "API"
    templates = resources(plan, LT)
    assert len(templates) == 2  # the GPU group's and the system group's
    for template in templates:
        assert template["metadataOptions"]["httpTokens"] == "required"
        assert template["metadataOptions"]["httpPutResponseHopLimit"] == 1


def test_lustre_ports_and_s3_cache_association():
    plan = shipped_plan("enterprise-h100")
    lustre_sg = next(g for g in resources(plan, "aws:ec2/securityGroup:SecurityGroup") if "Lustre" in g["description"])
    ports = {(r["fromPort"], r["toPort"]) for r in lustre_sg["ingress"]}
    assert ports == {(988, 988), (1018, 1023)}
    (dra,) = resources(plan, "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation")
    assert dra["dataRepositoryPath"].startswith("s3://")


def test_production_data_stores_are_protected():
    plan = shipped_plan("research-a100")
    protected = {r.type for r in plan.registrations if r.protect}
    assert {"aws:s3/bucket:Bucket", "aws:fsx/lustreFileSystem:LustreFileSystem"} <= protected
    assert not any(r.protect for r in shipped_plan("startup-t4").registrations)  # a development stack


def test_audit_trail_and_budget():
    plan = shipped_plan("enterprise-h100")
    (trail,) = resources(plan, "aws:cloudtrail/trail:Trail")
    assert trail["isMultiRegionTrail"] and trail["enableLogFileValidation"] and trail["kmsKeyId"]
    # management events, and S3 object access in every bucket but the trail's own (recursive delivery)
    management, objects = trail["advancedEventSelectors"]
    assert management["fieldSelectors"] == [{"field": "eventCategory", "equals": ["Management"]}]
    fields = {f["field"]: f for f in objects["fieldSelectors"]}
    assert fields["eventCategory"]["equals"] == ["Data"] and fields["resources.type"]["equals"] == ["AWS::S3::Object"]
    assert len(fields["resources.ARN"]["notStartsWiths"]) == 1 and fields["resources.ARN"]["notStartsWiths"][
        0
    ].endswith("/")
    assert resources(plan, "aws:guardduty/detector:Detector")[0]["enable"] is True
    assert all(g["retentionInDays"] == 365 for g in resources(plan, "aws:cloudwatch/logGroup:LogGroup"))
    (budget,) = resources(plan, "aws:budgets/budget:Budget")
    assert {n["threshold"] for n in budget["notifications"]} == {80, 100}
