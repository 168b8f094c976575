"""Issue #30 item 2: on AWS, Alertmanager routes alerts to Amazon SNS. The stack gets one KMS-encrypted, TLS-only
topic (output alert_topic_arn), Alertmanager's ServiceAccount an IRSA role allowed only to publish there and to use
the stack key for that topic's messages, as SNS asks of a publisher; Alibaba Cloud stacks refuse `sns` in one line."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from cloudsplaining.scan.policy_document import PolicyDocument

from components.kubernetes.monitoring import AlertReceiver, SnsTarget, alertmanager_config
from conftest import helm, shipped_plan
from test_alert_routing import AMTOOL, alert_findings, alerts_spec, plan_with, xid_labels
from test_bad_input import assert_one_line, run_cli, variant
from test_iam_policies import severe_findings

ROOT = Path(__file__).resolve().parents[1]
CHART = "kube-prometheus-stack"
BASE = "startup-t4"
TOPIC = "aws:sns/topic:Topic"
TOPIC_POLICY = "aws:sns/topicPolicy:TopicPolicy"
KEY = "aws:kms/key:Key"
SUBSCRIPTION = "aws:sns/topicSubscription:TopicSubscription"


@pytest.fixture(scope="module")
def sns_plan(tmp_path_factory):
    """startup-t4 with one receiver publishing to SNS and subscribing the budget contacts, and nothing else."""
    return plan_with(
        tmp_path_factory.mktemp("sns"),
        BASE,
        alerts_spec(receivers={"aws-oncall": {"sns": {"subscribeBudgetContacts": True}}}),
    )


def one(plan, type_, name=None):
    [found] = [r for r in plan.registrations if r.type == type_ and (name is None or r.name == name)]
    return found


def alertmanager_role(plan):
    role = one(plan, "aws:iam/role:Role", f"{BASE}-alerts-alertmanager")
    policy = one(plan, "aws:iam/rolePolicy:RolePolicy", f"{BASE}-alerts-alertmanager")
    return role, policy


def topic_arn(plan) -> str:
    return one(plan, TOPIC_POLICY).inputs["arn"]


def role_arn(plan) -> str:
    return helm(plan, CHART)["values"]["alertmanager"]["serviceAccount"]["annotations"]["eks.amazonaws.com/role-arn"]


def amtool(*args: str) -> subprocess.CompletedProcess:
    if not AMTOOL.exists():
        pytest.fail(f"{AMTOOL} is missing: `make install` fetches it")
    return subprocess.run([str(AMTOOL), *args], capture_output=True, text=True)


# --------------------------------------------------------------------------- Alertmanager's configuration
def test_the_planned_sns_config_passes_amtool_and_routes_an_xid_alert_to_the_topic(sns_plan, tmp_path):
    config = helm(sns_plan, CHART)["values"]["alertmanager"]["config"]
    [receiver] = [r for r in config["receivers"] if r["name"] == "aws-oncall"]
    [sns] = receiver["sns_configs"]
    assert sns["topic_arn"] == sns_plan.outputs["alert_topic_arn"] == topic_arn(sns_plan)
    assert one(sns_plan, TOPIC).urn in one(sns_plan, TOPIC_POLICY).property_dependencies["arn"]
    assert sns["sigv4"] == {"region": "us-east-1"}
    assert len(sns["subject"]) < 100  # SNS refuses longer subjects; the default lists every label
    path = tmp_path / "alertmanager.yaml"
    path.write_text(yaml.safe_dump(config))
    check = amtool("check-config", str(path))
    assert check.returncode == 0, check.stdout + check.stderr
    routed = amtool("config", "routes", "test", f"--config.file={path}", "--verify.receivers=aws-oncall", *xid_labels())
    assert routed.returncode == 0 and routed.stdout.strip() == "aws-oncall", routed.stdout + routed.stderr


def test_amtool_rejects_an_sns_config_without_a_topic(tmp_path):
    """The amtool check above can fail: an sns_config naming no destination is refused."""
    target = SnsTarget("arn:aws:sns:us-east-1:123456789012:gpu-alerts", "us-east-1")
    config = alertmanager_config([AlertReceiver("aws-oncall", sns=True)], None, sns=target)
    del config["receivers"][1]["sns_configs"][0]["topic_arn"]
    path = tmp_path / "alertmanager.yaml"
    path.write_text(yaml.safe_dump(config))
    assert amtool("check-config", str(path)).returncode != 0


def test_an_sns_receiver_without_a_topic_is_refused_by_the_component():
    with pytest.raises(ValueError, match="'aws-oncall' publishes to SNS, but MonitoringArgs.sns names no topic"):
        alertmanager_config([AlertReceiver("aws-oncall", sns=True)], None)


def test_alertmanager_service_account_carries_the_role_its_trust_names(sns_plan):
    values = helm(sns_plan, CHART)["values"]["alertmanager"]
    role, policy = alertmanager_role(sns_plan)
    assert values["serviceAccount"]["name"] == "alertmanager"
    assert role_arn(sns_plan).startswith(f"arn:aws:iam::123456789012:role/{BASE}-alerts-alertmanager-")
    assert role.urn in policy.property_dependencies["role"]
    [trust] = json.loads(role.inputs["assumeRolePolicy"])["Statement"]
    subjects = [v for k, v in trust["Condition"]["StringEquals"].items() if k.endswith(":sub")]
    assert subjects == ["system:serviceaccount:monitoring:alertmanager"]


# --------------------------------------------------------------------------- readiness
def test_an_sns_receiver_counts_as_a_receiver_and_needs_no_smtp(tmp_path):
    def change(cluster):
        cluster["budget"]["contacts"] = []
        alerts_spec(receivers={"aws-oncall": {"sns": True}})(cluster)

    plan = plan_with(tmp_path, BASE, change)
    assert alert_findings(plan) == set()
    assert not [r for r in plan.registrations if r.type == SUBSCRIPTION]
    # the same stack without the receiver or contacts blocks (tests/test_alert_routing.py)


def test_budget_contacts_are_subscribed_by_e_mail_only_when_asked(sns_plan):
    subscriptions = [
        r.inputs for r in sns_plan.registrations if r.type == "aws:sns/topicSubscription:TopicSubscription"
    ]
    assert [(s["protocol"], s["endpoint"]) for s in subscriptions] == [("email", "platform-team@example.com")]
    assert alert_findings(sns_plan) == {"alert-subscriptions"}  # each address must confirm: the plan says so


# --------------------------------------------------------------------------- the topic
def test_the_topic_is_encrypted_with_the_stack_key_and_denies_publishing_without_tls(sns_plan):
    topic, key = one(sns_plan, TOPIC), one(sns_plan, KEY)
    assert topic.inputs["kmsMasterKeyId"].startswith("arn:aws:kms:us-east-1:123456789012:key/")
    assert key.urn in topic.property_dependencies["kmsMasterKeyId"]
    statements = json.loads(one(sns_plan, TOPIC_POLICY).inputs["policy"])["Statement"]
    [deny] = [s for s in statements if s["Effect"] == "Deny"]
    assert deny["Principal"] == {"AWS": "*"} and deny["Action"] == ["sns:Publish"]
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert deny["Resource"] == [topic_arn(sns_plan)]


def test_only_the_alertmanager_role_is_allowed_to_publish(sns_plan):
    statements = json.loads(one(sns_plan, TOPIC_POLICY).inputs["policy"])["Statement"]
    allows = [s for s in statements if s["Effect"] == "Allow"]
    assert [(s["Principal"], s["Action"]) for s in allows] == [({"AWS": role_arn(sns_plan)}, ["sns:Publish"])]
    assert severe_findings(one(sns_plan, TOPIC_POLICY).inputs["policy"]) == []


# --------------------------------------------------------------------------- the role and the key
def test_the_role_may_only_publish_to_the_topic_and_use_the_key_for_its_messages(sns_plan):
    _, policy = alertmanager_role(sns_plan)
    document = policy.inputs["policy"]
    statements = json.loads(document)["Statement"]
    grants = {(a, r) for s in statements for a in s["Action"] for r in s["Resource"]}
    topic, key = topic_arn(sns_plan), one(sns_plan, TOPIC).inputs["kmsMasterKeyId"]
    assert grants == {("sns:Publish", topic), ("kms:GenerateDataKey", key), ("kms:Decrypt", key)}
    # The key only for this topic's messages: SNS's encryption context names the topic.
    [use_key] = [s for s in statements if s["Resource"] == [key]]
    assert use_key["Condition"] == {"StringEquals": {"kms:EncryptionContext:aws:sns:topicArn": topic}}
    assert severe_findings(document) == []
    scanned = PolicyDocument(json.loads(document))
    assert scanned.allows_privilege_escalation == []
    assert scanned.service_wildcard == []
    assert scanned.permissions_management_without_constraints == []


def test_the_key_policy_lets_iam_policies_grant_the_publisher_and_names_no_one_else(sns_plan):
    """The role's own policy is enough (the SNS guide's IAM-policy option) because the key policy lets the account
    grant its use through IAM; the key policy gains no statement for SNS."""
    key_policy = json.loads(one(sns_plan, KEY).inputs["policy"])
    [account] = [s for s in key_policy["Statement"] if s.get("Sid") == "AccountAdministersKey"]
    assert account["Principal"] == {"AWS": "arn:aws:iam::123456789012:root"}
    assert {"kms:GenerateDataKey*", "kms:Decrypt"} <= set(account["Action"])
    assert key_policy == json.loads(one(shipped_plan(BASE), KEY).inputs["policy"])


def test_the_topic_arn_has_sns_s_form(sns_plan):
    """arn:aws:sns:<region>:<account>:<name>, what Alertmanager's sns_configs and the topic policy name."""
    assert re.fullmatch(r"arn:aws:sns:us-east-1:123456789012:[A-Za-z0-9_-]{1,256}", topic_arn(sns_plan))


def test_without_an_sns_receiver_there_is_no_topic_or_role(tmp_path):
    """Receivers of the spec replace the default (which publishes to the topic): none publishing, no topic."""
    plan = plan_with(
        tmp_path,
        BASE,
        alerts_spec(
            receivers={"mail": {"email": ["oncall@example.com"]}},
            smtp={"smarthost": "smtp.example.com:587", "sender": "alerts@example.com"},
        ),
    )
    assert not [r for r in plan.registrations if r.type in (TOPIC, TOPIC_POLICY)]
    assert "alert_topic_arn" not in plan.outputs
    assert "serviceAccount" not in helm(plan, CHART)["values"]["alertmanager"]


# --------------------------------------------------------------------------- bad input
def test_sns_on_alibaba_cloud_is_one_line(capsys, tmp_path):
    argv = variant(tmp_path, alerts_spec(receivers={"ops": {"sns": True}}), base="enterprise-aliyun")
    code, _, err = run_cli(capsys, *argv)
    assert_one_line(code, err, "kubernetes.monitoring.alerts.receivers.ops.sns", "Amazon SNS is an AWS service")


def test_two_receivers_publishing_to_the_one_topic_is_one_line(capsys, tmp_path):
    receivers = {"a": {"sns": True}, "b": {"sns": {"subscribeBudgetContacts": True}}}
    code, _, err = run_cli(capsys, *variant(tmp_path, alerts_spec(receivers=receivers), base=BASE))
    assert_one_line(code, err, "kubernetes.monitoring.alerts.receivers", "receivers a, b all set sns")


def test_subscribing_budget_contacts_when_there_are_none_is_one_line(capsys, tmp_path):
    """subscribeBudgetContacts with an empty budget.contacts would subscribe nobody: refused, not ignored."""

    def change(cluster):
        cluster["budget"]["contacts"] = []
        alerts_spec(receivers={"aws-oncall": {"sns": {"subscribeBudgetContacts": True}}})(cluster)

    code, _, err = run_cli(capsys, *variant(tmp_path, change, base=BASE))
    assert_one_line(code, err, "receivers.aws-oncall.sns.subscribeBudgetContacts", "budget.contacts is empty")
