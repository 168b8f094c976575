"""Issue 23 item 15: the stack key rotates every 90 days by default on both clouds, the period is a spec field
within what each provider allows, and the baseline rule judges the period, not only that rotation is on."""

from __future__ import annotations

import pytest

from conftest import shipped_plan
from test_bad_input import assert_one_line, run_cli, variant

KEYS = {"aws": "aws:kms/key:Key", "alicloud": "alicloud:kms/key:Key"}
RULES = {"aws": "aws-kms-key-rotation-enabled", "alicloud": "alicloud-kms-key-rotation-enabled"}


def _key(plan, cloud):
    [key] = [r.inputs for r in plan.registrations if r.type == KEYS[cloud]]
    return key


@pytest.mark.parametrize("stack,cloud", [("research-a100", "aws"), ("enterprise-aliyun", "alicloud")])
def test_shipped_keys_rotate_every_90_days_and_pass_the_rule(stack, cloud):
    plan = shipped_plan(stack)
    key = _key(plan, cloud)
    if cloud == "aws":
        assert key["enableKeyRotation"] is True and key["rotationPeriodInDays"] == 90
    else:
        assert key["automaticRotation"] == "Enabled" and key["rotationInterval"] == "7776000s"
    assert not [f for f in plan.findings if f["policy"] == RULES[cloud]]


@pytest.mark.parametrize(
    "stack,cloud,days,message",
    [
        ("research-a100", "aws", 180, "rotationPeriodInDays is 180, more than 90"),
        ("enterprise-aliyun", "alicloud", 365, "rotationInterval is 365 days, more than 90"),
    ],
)
def test_a_longer_period_is_a_baseline_finding(plan_variant, stack, cloud, days, message):
    plan = plan_variant(stack, lambda c: c.update(encryption={"keyRotationDays": days}))
    key = _key(plan, cloud)
    assert key.get("rotationPeriodInDays", key.get("rotationInterval")) in (days, f"{days * 86400}s")
    [finding] = [f for f in plan.findings if f["policy"] == RULES[cloud]]
    assert message in finding["message"]
    assert plan.exit_code == 1


@pytest.mark.parametrize(
    "base,days,allowed",
    [
        ("research-a100", 30, "aws KMS rotates every 90 to 2560 days"),
        ("startup-t4-aliyun", 400, "alicloud KMS rotates every 7 to 365 days"),
    ],
)
def test_a_period_the_provider_refuses_is_one_line(capsys, tmp_path, base, days, allowed):
    code, _, err = run_cli(capsys, *variant(tmp_path, lambda c: c.update(encryption={"keyRotationDays": days}), base))
    assert_one_line(code, err, "encryption.keyRotationDays", allowed)


def test_an_alibaba_default_key_is_said_to_rotate_yearly_until_it_is_in_a_kms_instance(plan_variant):
    [gap] = [f for f in shipped_plan("enterprise-aliyun").readiness if f.check == "key-rotation"]
    assert gap.level == "warning" and "365 days only" in gap.message and "encryption.kmsInstanceId" in gap.fix
    plan = plan_variant("enterprise-aliyun", lambda c: c.update(encryption={"kmsInstanceId": "kst-hzz62ee6b0ab"}))
    assert _key(plan, "alicloud")["dkmsInstanceId"] == "kst-hzz62ee6b0ab"
    assert not [f for f in plan.readiness if f.check == "key-rotation"]


def test_a_kms_instance_on_aws_is_one_line(capsys, tmp_path):
    code, _, err = run_cli(capsys, *variant(tmp_path, lambda c: c.update(encryption={"kmsInstanceId": "kst-abc123"})))
    assert_one_line(code, err, "encryption.kmsInstanceId is an Alibaba Cloud KMS instance")
