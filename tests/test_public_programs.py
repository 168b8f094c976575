"""The packs judge programs that are not ours: two small public-style programs, findings on their resources."""

from __future__ import annotations

from pathlib import Path

import pytest

from blueprints.offline.engine import run_program
from blueprints.offline.policy import evaluate

PROGRAMS = Path(__file__).resolve().parent / "data" / "programs"


def judge(program: str, packs=("baseline",)):
    registrations, _ = run_program(
        program, {"aws:region": "us-east-1"}, "us-east-1", program=PROGRAMS / program / "__main__.py"
    )
    by_name = {r.name: r for r in registrations}
    findings = evaluate(program, registrations, packs)
    return by_name, findings


def on(findings, resource, policy):
    return [f for f in findings if f["urn"] == resource.urn and f["policy"] == policy]


@pytest.fixture(scope="module")
def web_server():
    return judge("ec2_web_server")


@pytest.fixture(scope="module")
def website():
    return judge("website_bucket")


def test_ec2_web_server_imdsv1_public_ip_and_unencrypted_root_are_found_on_the_instance(web_server):
    resources, findings = web_server
    instance = resources["web-server"]
    [imds] = on(findings, instance, "aws-ec2-instance-imdsv2-required")
    assert "httpTokens is not 'required'" in imds["message"] and imds["enforcementLevel"] == "mandatory"
    assert on(findings, instance, "aws-ec2-instance-no-public-ip")
    assert on(findings, instance, "aws-ec2-instance-volumes-encrypted")


def test_ec2_web_server_world_open_ports_are_found_on_the_security_group(web_server):
    resources, findings = web_server
    group = resources["web-secgrp"]
    world = {f["message"] for f in on(findings, group, "aws-ec2-security-group-no-world-ingress")}
    # Port 80 is one of Security Hub EC2.18's default authorized ports (80, 443); SSH is not.
    assert "tcp ports 22-22 open to 0.0.0.0/0" in world and "tcp ports 80-80 open to 0.0.0.0/0" not in world
    assert any("22" in f["message"] for f in on(findings, group, "aws-ec2-security-group-no-internet-admin-ports"))


def test_website_bucket_public_policy_is_found_on_the_policy_and_the_open_block_on_the_block(website):
    resources, findings = website
    [public] = on(findings, resources["site-policy"], "aws-s3-bucket-policy-no-public-access")
    assert "PublicReadGetObject allows Principal '*'" in public["message"] and public["severity"] == "critical"
    [block] = on(findings, resources["site-public-access"], "aws-s3-bucket-public-access-blocked")
    assert "of bucket site-bucket leaves blockPublicAcls, blockPublicPolicy" in block["message"]
    assert not on(findings, resources["site-bucket"], "aws-s3-bucket-public-access-blocked")


def test_findings_land_only_on_the_programs_resources(web_server, website):
    for resources, findings in (web_server, website):
        urns = {r.urn for r in resources.values()}
        assert findings and all(f["urn"] in urns or f["urn"] is None for f in findings)
