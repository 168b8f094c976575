"""Security Center on Alibaba Cloud (#35 item 8): the instance asks only what the provider accepts, and an account
that already has one adopts it, as an AWS account's GuardDuty detector is adopted (tests/test_account_prerequisites.py).

Provider facts are kept, with their commit, in tests/data/alicloud/threat-detection-instance.yaml."""

from __future__ import annotations

import re
from pathlib import Path

import pulumi_alicloud
import pytest
import yaml

from blueprints.offline import mocks
from blueprints.offline.plan import make_plan
from blueprints.stackconfig import load_stack_spec
from conftest import SHIPPED, resources, shipped_plan

FACTS = yaml.safe_load((Path(__file__).parent / "data" / "alicloud" / "threat-detection-instance.yaml").read_text())
INSTANCE, LOOKUP = "alicloud:threatdetection/instance:Instance", "alicloud:threatdetection/getInstances:getInstances"
ALI = [s for s in SHIPPED if load_stack_spec(s).cloud == "alicloud"]


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def test_the_flow_requirement_is_in_the_installed_sdk() -> None:
    sdk = Path(pulumi_alicloud.__file__).parent / "threatdetection" / "instance.py"
    assert FACTS["flow_requirement"] in sdk.read_text()


@pytest.mark.parametrize("stack", ALI)
def test_the_instance_asks_only_what_the_provider_accepts_and_keeps_threat_analysis_on(stack: str) -> None:
    [instance] = resources(shipped_plan(stack), INSTANCE)
    if instance.get("threatAnalysisSwitch1") == "1":
        assert instance.get("threatAnalysisFlow"), f"{stack}: {FACTS['flow_requirement']}"
    modules = {_snake(k): v for k, v in (instance.get("postPayModuleSwitchObj") or {}).items()}
    assert set(modules) <= set(FACTS["post_pay_modules"])
    assert instance["paymentType"] == "PayAsYouGo" and instance["postPaidFlag"] == 1
    # Threat analysis and response stays on, through the pay-as-you-go module the provider documents.
    assert modules.get(FACTS["threat_analysis_module"]) == 1 and modules.get("post_host") == 1


def test_a_new_account_gets_an_instance() -> None:
    assert len(resources(shipped_plan("enterprise-aliyun"), INSTANCE)) == 1


def test_an_account_with_an_instance_adopts_it(monkeypatch) -> None:
    found = {"id": "x", "ids": ["sas-0123456789"], "instances": [{"id": "sas-0123456789", "status": "Normal"}]}
    monkeypatch.setitem(mocks._INVOKES, LOOKUP, lambda m, a: found)
    plan = make_plan("enterprise-aliyun")
    assert resources(plan, INSTANCE) == []
    [component] = [r for r in plan.registrations if r.type.endswith(":ThreatDetection")]
    assert component.name == "enterprise-aliyun-security-center"
