"""Issue #23 items 6-7: the stack key grants every service that uses it (FSx for a linked SSE-KMS bucket, Auto
Scaling for node volumes), and the readiness check catches a key policy that misses one."""

from __future__ import annotations

import json

from blueprints.offline.readiness import check
from blueprints.offline.readiness_key_grants import check as key_check
from conftest import shipped_plan
from test_readiness import edited

KEY = "aws:kms/key:Key"


def without_statements(plan, *sids):
    def drop(inputs):
        policy = json.loads(inputs["policy"])
        policy["Statement"] = [s for s in policy["Statement"] if s.get("Sid") not in sids]
        inputs["policy"] = json.dumps(policy)

    return [edited(r, drop) if r.type == KEY else r for r in plan.registrations]


def test_fsx_linked_to_the_sse_kms_bucket_is_granted_the_key_as_the_fsx_guide_says():
    plan = shipped_plan("enterprise-h100")
    (key,) = [r for r in plan.registrations if r.type == KEY]
    (statement,) = [s for s in json.loads(key.inputs["policy"])["Statement"] if s["Sid"] == "FsxLinkedBucketObjects"]
    assert statement["Action"] == sorted(["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*"])
    (bucket,) = [r for r in plan.registrations if r.type == "aws:s3/bucket:Bucket" and r.name == "enterprise-h100-data"]
    condition = statement["Condition"]
    assert condition["StringEquals"] == {
        "kms:CallerAccount": "123456789012",
        "kms:ViaService": "s3.us-east-1.amazonaws.com",
    }
    # S3 Bucket Keys are on, so the encryption context is the bucket's ARN (the guide's note).
    assert condition["StringLike"]["kms:EncryptionContext:aws:s3:arn"].startswith("arn:aws:s3:::enterprise-h100-data")
    assert bucket.urn in key.dependencies
    assert condition["ArnLike"]["aws:PrincipalArn"].endswith(
        ":role/aws-service-role/s3.data-source.lustre.fsx.amazonaws.com/AWSServiceRoleForFSxS3Access_fs-*"
    )
    assert key_check(plan.registrations) == []


def test_a_key_policy_without_the_fsx_grant_is_blocking_as_the_shipped_plan_was():
    plan = shipped_plan("enterprise-h100")
    found = [
        f for f in check(without_statements(plan, "FsxLinkedBucketObjects")) if f.check == "key-policy-missing-service"
    ]
    assert len(found) == 1 and "FSx for Lustre" in found[0].message and found[0].level == "blocking"


def test_a_key_policy_without_auto_scaling_is_blocking():
    plan = shipped_plan("research-a100")
    found = key_check(without_statements(plan, "AutoScalingEncryptsNodeVolumes", "AutoScalingGrantsForNodeVolumes"))
    assert found and all("Auto Scaling" in f.message for f in found)
    assert key_check(plan.registrations) == []


def test_no_grant_for_fsx_where_no_file_system_links_the_bucket():
    plan = shipped_plan("research-a100")
    (key,) = [r for r in plan.registrations if r.type == KEY]
    assert "FsxLinkedBucketObjects" not in key.inputs["policy"]
