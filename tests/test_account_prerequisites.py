"""Issue #23 item 7: a new account (no Auto Scaling service-linked role) and an account that already has a GuardDuty
detector both work without a manual step: the role is created where missing, the detector adopted where present."""

from __future__ import annotations

import pytest

from blueprints.offline import mocks
from blueprints.offline.plan import make_plan
from blueprints.offline.readiness_key_grants import check as key_check
from conftest import resources, shipped_plan

SLR, DETECTOR = "aws:iam/serviceLinkedRole:ServiceLinkedRole", "aws:guardduty/detector:Detector"


def test_a_new_account_gets_the_auto_scaling_role_before_the_key_names_it():
    plan = shipped_plan("research-a100")
    (role,) = [r for r in plan.registrations if r.type == SLR]
    assert role.inputs["awsServiceName"] == "autoscaling.amazonaws.com"
    (key,) = [r for r in plan.registrations if r.type == "aws:kms/key:Key"]
    assert role.urn in key.dependencies and "AWSServiceRoleForAutoScaling" in key.inputs["policy"]
    assert not [f for f in plan.readiness if f.check == "key-policy-role-missing"]
    # The plan as it was (no role declared) is reported.
    (found,) = key_check([r for r in plan.registrations if r.type != SLR and r.parent != role.urn])
    assert found.check == "key-policy-role-missing"


def test_an_account_with_the_role_creates_none(monkeypatch):
    monkeypatch.setitem(
        mocks._INVOKES,
        "aws:iam/getRoles:getRoles",
        lambda m, a: {"id": "x", "names": ["AWSServiceRoleForAutoScaling"], "arns": []},
    )
    monkeypatch.setitem(
        mocks._INVOKES,
        "aws:iam/getRole:getRole",
        lambda m, a: {"id": a["name"], "name": a["name"], "tags": {}, "arn": "arn:aws:iam::123456789012:role/x"},
    )
    plan = make_plan("startup-t4")
    assert not [r for r in plan.registrations if r.type == SLR]


@pytest.mark.parametrize(
    "tags, adopted",
    [
        ({}, True),  # organisation-managed
        ({"gpu-cluster": "research-a100"}, True),  # another shipped stack's
        ({"gpu-blueprints/detector-owner": "startup-t4-guardduty"}, False),  # the one this stack created
    ],
)
def test_an_existing_detector_is_adopted_unless_it_is_ours(monkeypatch, tags, adopted):
    monkeypatch.setitem(
        mocks._INVOKES,
        "aws:guardduty/getDetector:getDetector",
        lambda m, a: {"id": "12abc34d567e8fa901bc2d34e56789f0", "tags": tags, "status": "ENABLED"},
    )
    plan = make_plan("startup-t4")
    detectors = resources(plan, DETECTOR)
    features = resources(plan, "aws:guardduty/detectorFeature:DetectorFeature")
    assert (not detectors and not features) if adopted else (len(detectors) == 1 and len(features) == 1)


def test_a_new_account_gets_a_detector():
    (detector,) = resources(shipped_plan("startup-t4"), DETECTOR)
    assert detector["tags"]["gpu-blueprints/detector-owner"] == "startup-t4-guardduty"
