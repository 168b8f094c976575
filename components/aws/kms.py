"""The stack's customer-managed KMS key: rotation on, 30-day deletion window, scoped key policy."""

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..policy_document import Statement, policy_json

DELETION_WINDOW_DAYS = 30
# The AWS "key administrators" statement, spelled out rather than kms:*.
# https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html#key-policy-default-allow-administrators
ADMIN_ACTIONS = (
    "kms:Create*",
    "kms:Describe*",
    "kms:Enable*",
    "kms:List*",
    "kms:Put*",
    "kms:Update*",
    "kms:Revoke*",
    "kms:Disable*",
    "kms:Get*",
    "kms:Delete*",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:ScheduleKeyDeletion",
    "kms:CancelKeyDeletion",
    "kms:RotateKeyOnDemand",
)
# The data a key encrypts for each service principal; CloudWatch Logs and CloudTrail need
# the key policy to name them, IAM grants alone are not enough for service principals.
ENCRYPT_ACTIONS = ("kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey")


@dataclass(frozen=True)
class DataKeyArgs(Args):
    """The stack key."""

    account_id: pulumi.Input[str]
    """The account that administers the key (its root principal, so IAM policies can grant use)."""
    region: str
    """The key's region: names the regional CloudWatch Logs principal in the key policy."""
    partition: Optional[pulumi.Input[str]] = "aws"
    """The AWS partition of the ARNs in the key policy."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the key; none by default."""
    rotation_days: Optional[int] = 90
    """Days between automatic rotations of the key material, 90 to 2560 (AWS's own default is 365); 90 by default.
    https://docs.aws.amazon.com/kms/latest/developerguide/rotate-keys.html"""
    fsx_linked_bucket_arns: Optional[Sequence[pulumi.Input[str]]] = ()
    """Buckets encrypted with this key (SSE-KMS, bucket keys on) that an FSx for Lustre file system links to: FSx's
    service-linked role may use the key on them through S3; none by default."""


class DataKey(Component):
    """One KMS key for everything the stack keeps at rest (EBS, S3, FSx, logs, EKS secrets)."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:DataKey"
    arn: pulumi.Output[str]
    """The key's ARN."""

    def __init__(self, name: str, args: DataKeyArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(DataKeyArgs, args)
        tags = dict(args.tags)
        child = pulumi.ResourceOptions(parent=self)
        # KMS refuses a key policy naming a role that does not exist, and Auto Scaling's service-linked role exists
        # only once the account has had an Auto Scaling group: look it up at `pulumi up` and create it where missing.
        self.autoscaling_role = autoscaling_service_linked_role(name, self)
        policy = _key_policy(args)
        self.key = aws.kms.Key(
            name,
            description=f"{name}: data at rest for the GPU cluster",
            enable_key_rotation=True,
            rotation_period_in_days=args.rotation_days,
            deletion_window_in_days=DELETION_WINDOW_DAYS,
            policy=policy,
            tags=tags,
            opts=pulumi.ResourceOptions(
                parent=self, depends_on=[self.autoscaling_role] if self.autoscaling_role else []
            ),
        )
        self.alias = aws.kms.Alias(name, name=f"alias/{name}", target_key_id=self.key.key_id, opts=child)
        self.arn = self.key.arn
        self.register_outputs({"arn": self.arn})

    def grant_encrypt_decrypt(self, sid: str = "UseStackKey") -> Statement:
        """What a workload needs to read and write data encrypted with this key."""
        return Statement(sid=sid, actions=ENCRYPT_ACTIONS, resources=[self.arn])


def _key_policy(args: DataKeyArgs) -> pulumi.Output[str]:
    """Who may use the key: the account administers it; CloudWatch Logs, CloudTrail and Auto Scaling (for node
    volumes) encrypt with it, each held to its own resources; FSx reads linked buckets' objects through S3."""
    account_id, region, partition = args.account_id, args.region, args.partition
    root = pulumi.Output.concat("arn:", partition, ":iam::", account_id, ":root")
    return policy_json(
        [
            Statement(
                sid="AccountAdministersKey",
                actions=ADMIN_ACTIONS + ENCRYPT_ACTIONS + ("kms:CreateGrant",),
                resources=["*"],  # in a key policy "*" means this key
                principals={"AWS": root},
            ),
            *_log_statements(account_id, region, partition),
            *_autoscaling_statements(account_id, partition),
            Statement(
                sid="ServicesDescribeKey",
                actions=["kms:DescribeKey"],
                resources=["*"],
                principals={"Service": [f"logs.{region}.amazonaws.com", "cloudtrail.amazonaws.com"]},
            ),
        ]
        + [
            _fsx_linked_bucket(i, arn, account_id, region, partition)
            for i, arn in enumerate(args.fsx_linked_bucket_arns or ())
        ]
    )


def _log_statements(account_id: pulumi.Input[str], region: str, partition: pulumi.Input[str]) -> list[Statement]:
    """CloudWatch Logs and CloudTrail encrypt with the key, each only for this account's log groups and trails."""
    # Encryption-context conditions only on the actions that carry one; DescribeKey does not.
    return [
        Statement(
            sid="CloudWatchLogsEncrypt",
            actions=("kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*"),
            resources=["*"],
            principals={"Service": f"logs.{region}.amazonaws.com"},
            conditions={
                "StringLike": {
                    "kms:EncryptionContext:aws:logs:arn": pulumi.Output.concat(
                        "arn:", partition, ":logs:", region, ":", account_id, ":log-group:*"
                    )
                }
            },
        ),
        Statement(
            sid="CloudTrailEncrypt",
            actions=["kms:GenerateDataKey*"],
            resources=["*"],
            principals={"Service": "cloudtrail.amazonaws.com"},
            conditions={
                "StringLike": {
                    "kms:EncryptionContext:aws:cloudtrail:arn": pulumi.Output.concat(
                        "arn:", partition, ":cloudtrail:*:", account_id, ":trail/*"
                    )
                }
            },
        ),
    ]


def _autoscaling_statements(account_id: pulumi.Input[str], partition: pulumi.Input[str]) -> list[Statement]:
    """EKS node groups launch through Auto Scaling, whose service-linked role must be able to use the key for
    encrypted root volumes, or instances fail to start (Client.InternalError).
    https://docs.aws.amazon.com/autoscaling/ec2/userguide/key-policy-requirements-EBS-encryption.html"""
    autoscaling = pulumi.Output.concat(
        "arn:",
        partition,
        ":iam::",
        account_id,
        ":role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling",
    )
    return [
        Statement(
            sid="AutoScalingEncryptsNodeVolumes",
            actions=ENCRYPT_ACTIONS,
            resources=["*"],
            principals={"AWS": autoscaling},
        ),
        Statement(
            sid="AutoScalingGrantsForNodeVolumes",
            actions=["kms:CreateGrant"],
            resources=["*"],
            principals={"AWS": autoscaling},
            conditions={"Bool": {"kms:GrantIsForAWSResource": "true"}},
        ),
    ]


# FSx for Lustre guide, "Working with server-side encrypted Amazon S3 buckets" (read 2026-11-24):
# https://docs.aws.amazon.com/fsx/latest/LustreGuide/s3-server-side-encryption-support.html
# A file system linked to an SSE-KMS bucket needs the key policy to let its S3 service-linked role
# (AWSServiceRoleForFSxS3Access_<file system id>) encrypt and decrypt the bucket's objects through S3; with S3 Bucket
# Keys on, the encryption context is the bucket's ARN. The role is named after the file system, which is created
# with this key, so the statement matches the role by aws:PrincipalArn (file systems of this account only) instead
# of naming it, with the guide's CallerAccount, ViaService and EncryptionContext conditions and its actions but
# kms:DescribeKey, which carries no encryption context, so the guide's statement can never allow it (and Parliament
# flags the condition on it).
FSX_S3_ROLE_PATH = "role/aws-service-role/s3.data-source.lustre.fsx.amazonaws.com/AWSServiceRoleForFSxS3Access_"


def _fsx_linked_bucket(
    index: int, bucket_arn: pulumi.Input[str], account_id: pulumi.Input[str], region: str, partition: pulumi.Input[str]
) -> Statement:
    return Statement(
        sid=f"FsxLinkedBucketObjects{index}" if index else "FsxLinkedBucketObjects",
        actions=("kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*"),
        resources=["*"],
        principals={"AWS": "*"},
        conditions={
            "StringEquals": {"kms:CallerAccount": account_id, "kms:ViaService": f"s3.{region}.amazonaws.com"},
            "StringLike": {"kms:EncryptionContext:aws:s3:arn": bucket_arn},
            "ArnLike": {
                "aws:PrincipalArn": pulumi.Output.concat(
                    "arn:", partition, ":iam::", account_id, ":", FSX_S3_ROLE_PATH, "fs-*"
                )
            },
        },
    )


# Auto Scaling's service-linked role (one per account, created by AWS on the first Auto Scaling group, or by
# iam:CreateServiceLinkedRole):
# https://docs.aws.amazon.com/autoscaling/ec2/userguide/autoscaling-service-linked-role.html
AUTOSCALING_ROLE = "AWSServiceRoleForAutoScaling"
AUTOSCALING_ROLE_PATH = "/aws-service-role/autoscaling.amazonaws.com/"
ROLE_OWNER_TAG = "gpu-blueprints/role-owner"


def autoscaling_service_linked_role(name: str, parent: pulumi.Resource) -> Optional[aws.iam.ServiceLinkedRole]:
    """The role, declared where the account lacks it (or where this key created it, by its owner tag), else None.

    Looked up rather than asked of the stack so a new account needs no manual step; the role is kept on destroy
    (retain_on_delete): other Auto Scaling groups of the account use it, and a later stack finds it in place."""
    invoke = pulumi.InvokeOptions(parent=parent)
    names = aws.iam.get_roles(path_prefix=AUTOSCALING_ROLE_PATH, opts=invoke).names or []
    if (
        AUTOSCALING_ROLE in names
        and (aws.iam.get_role(name=AUTOSCALING_ROLE, opts=invoke).tags or {}).get(ROLE_OWNER_TAG) != name
    ):
        return None
    return aws.iam.ServiceLinkedRole(
        f"{name}-autoscaling",
        aws_service_name="autoscaling.amazonaws.com",
        description="Auto Scaling (created by gpu-cluster-blueprints: the account had none)",
        tags={ROLE_OWNER_TAG: name},
        opts=pulumi.ResourceOptions(parent=parent, retain_on_delete=True),
    )
