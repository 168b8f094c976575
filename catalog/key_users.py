"""Services that use a customer-managed KMS key on the stack's behalf, and what its key policy must grant each.

An IAM policy cannot grant these: the key policy itself must name the service's role (KMS key policies,
https://docs.aws.amazon.com/kms/latest/developerguide/key-policies.html). Read 2026-11-24.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KeyUser:
    service: str
    role_marker: str  # a principal ARN, or the aws:PrincipalArn condition value, that names the role, contains this
    actions: tuple[str, ...]
    source: str


# EBS volumes Auto Scaling launches (EKS node groups' root volumes) with a customer key.
AUTOSCALING = KeyUser(
    "Auto Scaling (encrypted node volumes)",
    "role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling",
    ("kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey", "kms:CreateGrant"),
    "https://docs.aws.amazon.com/autoscaling/ec2/userguide/key-policy-requirements-EBS-encryption.html",
)
# FSx for Lustre linked to an SSE-KMS bucket: the file system's S3 service-linked role, through S3.
FSX_LINKED_BUCKET = KeyUser(
    "FSx for Lustre (linked SSE-KMS bucket)",
    "role/aws-service-role/s3.data-source.lustre.fsx.amazonaws.com/AWSServiceRoleForFSxS3Access_",
    # The guide also lists kms:DescribeKey under an encryption-context condition it never carries: not needed.
    ("kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*"),
    "https://docs.aws.amazon.com/fsx/latest/LustreGuide/s3-server-side-encryption-support.html",
)
