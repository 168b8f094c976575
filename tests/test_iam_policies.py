"""Every IAM and RAM policy the stacks produce, judged by parliament and cloudsplaining."""

import json

import parliament
import pytest
from cloudsplaining.scan.policy_document import PolicyDocument

from conftest import SHIPPED, resources, shipped_plan

AWS_STACKS = [s for s in SHIPPED if shipped_plan(s).resolved.spec.cloud == "aws"]
ALI_STACKS = [s for s in SHIPPED if s not in AWS_STACKS]
SEVERE = {"MEDIUM", "HIGH", "CRITICAL"}


def severe_findings(document: str) -> list[tuple[str, str]]:
    """Parliament findings of MEDIUM or worse; severity is only set once a finding is enhanced."""
    findings = [parliament.enhance_finding(f) for f in parliament.analyze_policy_string(document).findings]
    return [(f.issue, f.severity) for f in findings if str(f.severity).upper() in SEVERE]


def test_the_parliament_check_can_fail():
    bad = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": ["arn:aws:s3:::bucket-not-objects"]}
            ],
        }
    )
    assert severe_findings(bad)


def identity_policies(stack):
    plan = shipped_plan(stack)
    return [(r["policy"]) for r in resources(plan, "aws:iam/rolePolicy:RolePolicy")]


@pytest.mark.parametrize("stack", AWS_STACKS)
def test_trust_policies_name_one_service_or_federated_principal(stack):
    # parliament reads identity policies; a trust policy has no Resource by design, so it is checked here.
    for role in resources(shipped_plan(stack), "aws:iam/role:Role"):
        for statement in json.loads(role["assumeRolePolicy"])["Statement"]:
            assert set(statement["Action"]) <= {"sts:AssumeRole", "sts:TagSession", "sts:AssumeRoleWithWebIdentity"}
            ((kind, principal),) = statement["Principal"].items()
            assert kind in ("Service", "Federated") and principal != "*"
            if kind == "Federated":
                assert statement["Condition"]["StringEquals"]


@pytest.mark.parametrize("stack", AWS_STACKS)
def test_service_trust_names_the_source_account_unless_the_service_sends_none(stack):
    # Confused deputy: https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html; the exempt services
    # and the pages that say why are in the rule (policies/library/aws/iam/role/service_trust_conditioned.py).
    from policies.library.aws.iam.role.service_trust_conditioned import EXEMPT_SERVICES

    for role in resources(shipped_plan(stack), "aws:iam/role:Role"):
        for statement in json.loads(role["assumeRolePolicy"])["Statement"]:
            service = statement["Principal"].get("Service")
            if service is None or service in EXEMPT_SERVICES:
                continue
            condition = statement["Condition"]
            account = condition["StringEquals"]["aws:SourceAccount"]
            assert f":{account}:" in condition["ArnLike"]["aws:SourceArn"], condition


def all_aws_documents(stack):
    plan = shipped_plan(stack)
    docs = identity_policies(stack)
    docs += [r["policy"] for r in resources(plan, "aws:s3/bucketPolicy:BucketPolicy")]
    docs += [r["policy"] for r in resources(plan, "aws:kms/key:Key")]
    return docs


@pytest.mark.parametrize("stack", AWS_STACKS)
def test_parliament_finds_nothing_medium_or_worse(stack):
    documents = all_aws_documents(stack)
    assert len(documents) >= 6  # role policies, one policy per bucket, the key policy
    for document in documents:
        assert severe_findings(document) == [], document


@pytest.mark.parametrize("stack", AWS_STACKS)
def test_cloudsplaining_sees_no_escalation_and_no_service_wildcard(stack):
    for document in identity_policies(stack):
        policy = PolicyDocument(json.loads(document))
        assert policy.allows_privilege_escalation == []
        assert policy.service_wildcard == []
        assert policy.permissions_management_without_constraints == []


def resource_star_findings(document: str) -> list[str]:
    """Parliament's RESOURCE_STAR: Resource "*" on an action that could be scoped to resources."""
    return [f.issue for f in parliament.analyze_policy_string(document).findings if f.issue == "RESOURCE_STAR"]


def test_the_resource_star_check_can_fail():
    scoped = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": ["autoscaling:SetDesiredCapacity"], "Resource": "*"}],
        }
    )
    describe = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": ["autoscaling:DescribeAutoScalingGroups"], "Resource": "*"}],
        }
    )
    assert resource_star_findings(scoped) and not resource_star_findings(describe)


@pytest.mark.parametrize("stack", AWS_STACKS)
def test_identity_policies_have_no_star_action_and_star_resource_only_where_nothing_narrower_exists(stack):
    for document in identity_policies(stack):
        for statement in json.loads(document)["Statement"]:
            assert statement["Effect"] == "Allow"
            assert not any(a == "*" or a.endswith(":*") for a in statement["Action"])
        assert resource_star_findings(document) == [], document


@pytest.mark.parametrize("stack", AWS_STACKS)
def test_each_bucket_has_exactly_one_policy(stack):
    plan = shipped_plan(stack)
    policies = [r["bucket"] for r in resources(plan, "aws:s3/bucketPolicy:BucketPolicy")]
    assert len(policies) == len(set(policies)) == len(resources(plan, "aws:s3/bucket:Bucket"))


def test_each_role_gets_only_its_managed_policies():
    """Nodes join and pull images; the CNI's and the EBS driver's policies sit on their add-on roles (IRSA)."""
    plan = shipped_plan("research-a100")
    by_role: dict[str, list[str]] = {}
    for r in plan.registrations:
        if r.type == "aws:iam/rolePolicyAttachment:RolePolicyAttachment":
            by_role.setdefault(r.parent.rsplit("::", 1)[1], []).append(r.inputs["policyArn"].split(":policy/", 1)[1])
    assert {role: sorted(p) for role, p in by_role.items()} == {
        "research-a100": ["AmazonEKSClusterPolicy"],
        "research-a100-nodes": ["AmazonEC2ContainerRegistryPullOnly", "AmazonEKSWorkerNodePolicy"],
        "research-a100-network-vpc-cni": ["AmazonEKS_CNI_Policy"],
        "research-a100-services-aws-ebs-csi-driver": ["service-role/AmazonEBSCSIDriverPolicy"],
    }


def test_workload_role_is_scoped_to_bucket_prefixes_and_the_key():
    plan = shipped_plan("research-a100")
    trainer = next(r for r in plan.registrations if r.type == "aws:iam/rolePolicy:RolePolicy" and "trainer" in r.name)
    resources_ = [res for s in json.loads(trainer.inputs["policy"])["Statement"] for res in s["Resource"]]
    assert any(res.endswith("/checkpoints/*") for res in resources_)
    assert any(res.endswith("/datasets/*") for res in resources_)
    assert any(":kms:" in res for res in resources_)


@pytest.mark.parametrize("stack", ALI_STACKS)
def test_no_ram_policy_allows_a_star_action(stack):
    documents = [json.loads(r["policyDocument"]) for r in resources(shipped_plan(stack), "alicloud:ram/policy:Policy")]
    assert documents
    for document in documents:
        for statement in document["Statement"]:
            assert not any(a == "*" or a.endswith(":*") for a in statement["Action"])
            assert "*" not in statement.get("Resource", [])
