"""Every IAM and RAM policy the stacks produce, judged by parliament and cloudsplaining."""

import json

import parliament
import pytest
from cloudsplaining.scan.policy_document import PolicyDocument

from blueprints.stackconfig import load_stack_spec
from conftest import SHIPPED, data_plan, resources, shipped_plan

ALI_STACKS = [s for s in SHIPPED if load_stack_spec(s).cloud != "aws"]
# The Karpenter variant of research-a100 (issue #40): its controller role's five policies are judged like the rest.
TEST_AWS_STACKS = ["karpenter"]
AWS_STACKS = [s for s in SHIPPED if s not in ALI_STACKS] + TEST_AWS_STACKS


def plan_of(stack):
    return data_plan(stack) if stack in TEST_AWS_STACKS else shipped_plan(stack)


SEVERE = {"MEDIUM", "HIGH", "CRITICAL"}


def _granted_elsewhere(document: str, missing: list[dict[str, str]]) -> bool:
    """Every action/resource pair parliament misses in one statement is allowed by another of the same document.

    Parliament's RESOURCE_MISMATCH judges a statement alone: each action must name every resource type it requires.
    AWS's own Karpenter controller policy (karpenter-provider-aws v1.14.1 getting-started cloudformation.yaml,
    KarpenterControllerNodeLifecyclePolicy) grants ec2:RunInstances on images, subnets and security groups in one
    statement and on instances, volumes and interfaces in another, under tag conditions; merging them would drop the
    conditions. The same rule, parliament's own matcher, is applied to the document's Allow statements together."""
    statements = json.loads(document)["Statement"]
    for item in missing:
        action, arn_format = item["action"].lower(), item["required_format"]
        kind = arn_format.split(":", 5)[-1].split("/")[0]
        if not any(
            s["Effect"] == "Allow"
            and action in [a.lower() for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])]
            and any(
                parliament.is_arn_strictly_valid(kind, arn_format, r)
                for r in ([s["Resource"]] if isinstance(s["Resource"], str) else s["Resource"])
            )
            for s in statements
        ):
            return False
    return True


def severe_findings(document: str) -> list[tuple[str, str]]:
    """Parliament findings of MEDIUM or worse; severity is only set once a finding is enhanced. A RESOURCE_MISMATCH
    that another statement of the document covers is not one (_granted_elsewhere)."""
    findings = [parliament.enhance_finding(f) for f in parliament.analyze_policy_string(document).findings]
    return [
        (f.issue, f.severity)
        for f in findings
        if str(f.severity).upper() in SEVERE
        and not (f.issue == "RESOURCE_MISMATCH" and _granted_elsewhere(document, f.detail))
    ]


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


def test_a_resource_mismatch_counts_unless_another_statement_grants_the_missing_resources():
    def doc(*statements):
        return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})

    subnets = {"Effect": "Allow", "Action": ["ec2:RunInstances"], "Resource": ["arn:aws:ec2:us-east-1:*:subnet/*"]}
    assert ("RESOURCE_MISMATCH", "MEDIUM") in severe_findings(doc(subnets))
    rest = {
        "Effect": "Allow",
        "Action": ["ec2:RunInstances"],
        "Resource": [
            "arn:aws:ec2:us-east-1::image/*",
            "arn:aws:ec2:us-east-1:*:instance/*",
            "arn:aws:ec2:us-east-1:*:network-interface/*",
            "arn:aws:ec2:us-east-1:*:security-group/*",
            "arn:aws:ec2:us-east-1:*:volume/*",
        ],
        "Condition": {"StringEquals": {"aws:RequestTag/owner": "me"}},
    }
    assert severe_findings(doc(subnets, rest)) == []


def identity_policies(stack):
    plan = plan_of(stack)
    return [(r["policy"]) for r in resources(plan, "aws:iam/rolePolicy:RolePolicy")]


@pytest.mark.parametrize("stack", AWS_STACKS)
def test_trust_policies_name_one_service_or_federated_principal(stack):
    # parliament reads identity policies; a trust policy has no Resource by design, so it is checked here.
    for role in resources(plan_of(stack), "aws:iam/role:Role"):
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

    for role in resources(plan_of(stack), "aws:iam/role:Role"):
        for statement in json.loads(role["assumeRolePolicy"])["Statement"]:
            service = statement["Principal"].get("Service")
            if service is None or service in EXEMPT_SERVICES:
                continue
            condition = statement["Condition"]
            account = condition["StringEquals"]["aws:SourceAccount"]
            assert f":{account}:" in condition["ArnLike"]["aws:SourceArn"], condition


def all_aws_documents(stack):
    plan = plan_of(stack)
    docs = identity_policies(stack)
    docs += [r["policy"] for r in resources(plan, "aws:s3/bucketPolicy:BucketPolicy")]
    docs += [r["policy"] for r in resources(plan, "aws:kms/key:Key")]
    docs += [r["policy"] for r in resources(plan, "aws:sqs/queuePolicy:QueuePolicy")]
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
    plan = plan_of(stack)
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
