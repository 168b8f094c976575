"""Audit and detection: a multi-region CloudTrail with validation and KMS, and GuardDuty."""

from dataclasses import dataclass, field
from typing import Mapping, Optional

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..policy_document import Statement, service_role
from .storage import BucketArgs, DataBucket


@dataclass(frozen=True)
class AuditTrailArgs(Args):
    """Where audit logs go and how long they stay."""

    kms_key_arn: pulumi.Input[str]
    """Encrypts the trail's files, its bucket and its log group."""
    account_id: pulumi.Input[str]
    """The account whose calls the trail records (scopes the bucket policy)."""
    region: str
    """The trail's home region."""
    retention_days: Optional[int] = 365
    """How long the log group and old versions in the bucket are kept; a year by default (HIPAA asks six years of
    documentation, MLPS 180 days of logs: set it to what the stack's frameworks require)."""
    protect: Optional[bool] = True
    """Refuse to delete the log bucket; on by default, audit logs outlive clusters."""
    management_events: Optional[bool] = True
    """Record management events (every API call) too; off when an organisation trail records them, leaving a trail of
    S3 object events only."""
    partition: Optional[pulumi.Input[str]] = "aws"
    """The AWS partition of the trail's ARN."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on every resource; none by default."""


class AuditTrail(Component):
    """Every API call in every region, to a dedicated versioned bucket and to CloudWatch Logs."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:AuditTrail"
    trail_arn: pulumi.Output[str]
    """The trail's ARN."""

    def __init__(self, name: str, args: AuditTrailArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(AuditTrailArgs, args)
        tags, child = dict(args.tags), pulumi.ResourceOptions(parent=self)
        trail_arn = pulumi.Output.concat(
            "arn:", args.partition, ":cloudtrail:", args.region, ":", args.account_id, ":trail/", name
        )
        self.bucket = DataBucket(
            f"{name}-logs",
            BucketArgs(
                kms_key_arn=args.kms_key_arn,
                protect=args.protect,
                noncurrent_version_days=args.retention_days,
                infrequent_access_after_days=90,
                tags=tags,
                _extra_statements=lambda bucket_arn: _delivery(bucket_arn, trail_arn, args.account_id),
            ),
            opts=child,
        )
        self.log_group = aws.cloudwatch.LogGroup(
            f"{name}-trail", retention_in_days=args.retention_days, kms_key_id=args.kms_key_arn, tags=tags, opts=child
        )
        # No aws:SourceAccount/aws:SourceArn here: the CloudTrail user guide says this role does not support them
        # (https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-required-policy-for-cloudwatch-logs.html),
        # so the service-trust rule exempts cloudtrail.amazonaws.com.
        role = service_role(
            f"{name}-trail-to-logs",
            "cloudtrail.amazonaws.com",
            [
                Statement(
                    sid="DeliverTrail",
                    actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                    resources=[pulumi.Output.concat(self.log_group.arn, ":log-stream:*")],
                )
            ],
            tags,
            child,
        )
        self.trail = aws.cloudtrail.Trail(
            name,
            name=name,
            s3_bucket_name=self.bucket.name,
            is_multi_region_trail=True,
            include_global_service_events=bool(args.management_events),
            enable_log_file_validation=True,
            enable_logging=True,
            kms_key_id=args.kms_key_arn,
            cloud_watch_logs_group_arn=pulumi.Output.concat(self.log_group.arn, ":*"),
            cloud_watch_logs_role_arn=role.arn,
            advanced_event_selectors=self._event_selectors(args),
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.bucket.policy]),
        )
        self.trail_arn = self.trail.arn
        self.register_outputs({"trail_arn": self.trail_arn})

    def _event_selectors(self, args: AuditTrailArgs) -> list[dict]:
        """Management events (unless another trail records them) and object access in every bucket but the trail's."""
        management = [
            {"name": "Management events", "field_selectors": [{"field": "eventCategory", "equals": ["Management"]}]}
        ]
        return [
            *(management if args.management_events else []),
            # Object reads and writes in every bucket (HIPAA/GDPR data-access audit), except the trail's own:
            # its deliveries would be logged into itself (CloudTrail user guide, "recursive logging").
            {
                "name": "S3 object access",
                "field_selectors": [
                    {"field": "eventCategory", "equals": ["Data"]},
                    {"field": "resources.type", "equals": ["AWS::S3::Object"]},
                    {"field": "resources.ARN", "not_starts_withs": [pulumi.Output.concat(self.bucket.arn, "/")]},
                ],
            },
        ]


def _delivery(bucket_arn: pulumi.Output[str], trail_arn: pulumi.Output[str], account_id) -> list[Statement]:
    """The log bucket's policy for CloudTrail: check the ACL and write under AWSLogs/<account>, for this trail only."""
    return [
        Statement(
            sid="CloudTrailAclCheck",
            actions=["s3:GetBucketAcl"],
            resources=[bucket_arn],
            principals={"Service": "cloudtrail.amazonaws.com"},
            conditions={"StringEquals": {"aws:SourceArn": trail_arn}},
        ),
        Statement(
            sid="CloudTrailWrite",
            actions=["s3:PutObject"],
            resources=[pulumi.Output.concat(bucket_arn, "/AWSLogs/", account_id, "/*")],
            principals={"Service": "cloudtrail.amazonaws.com"},
            conditions={"StringEquals": {"aws:SourceArn": trail_arn, "s3:x-amz-acl": "bucket-owner-full-control"}},
        ),
    ]


@dataclass(frozen=True)
class ThreatDetectionArgs(Args):
    """GuardDuty settings."""

    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the detector; none by default."""


class ThreatDetection(Component):
    """GuardDuty with Runtime Monitoring of EKS nodes (its agent managed as an EKS add-on).

    GuardDuty allows one detector per account and region. At `pulumi up` the account's detector is looked up: none,
    or the one this component created (its owner tag), is declared here; another one (organisation-managed, or
    another stack's) is adopted: its id is the output and nothing is created or changed on it (a member account
    cannot change an organisation's detector features)."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:ThreatDetection"
    detector_id: pulumi.Output[str]
    """The GuardDuty detector (created, or the account's existing one)."""

    def __init__(self, name: str, args: ThreatDetectionArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        given = dict(as_args(ThreatDetectionArgs, args).tags)
        tags = {**given, OWNER_TAG: name}
        existing = existing_detector(pulumi.InvokeOptions(parent=self))
        found = dict(existing.tags or {}) if existing is not None else {}
        # Ours: it carries our owner tag, or (created before that tag) all of our tags.
        ours = found.get(OWNER_TAG) == name or bool(given) and given.items() <= found.items()
        self.adopted = existing is not None and not ours
        if self.adopted:
            self.detector = None
            self.detector_id = pulumi.Output.from_input(existing.id)
            self.register_outputs({"detector_id": self.detector_id})
            return
        self.detector = aws.guardduty.Detector(
            name,
            enable=True,
            finding_publishing_frequency="FIFTEEN_MINUTES",
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self),
        )
        # Runtime Monitoring, which AWS folded EKS Runtime Monitoring into (the older feature is to be disabled
        # when migrating), with GuardDuty managing its agent as an EKS add-on.
        # https://docs.aws.amazon.com/guardduty/latest/ug/eks-protection-configuration.html
        aws.guardduty.DetectorFeature(
            f"{name}-eks-runtime",
            detector_id=self.detector.id,
            name="RUNTIME_MONITORING",
            status="ENABLED",
            additional_configurations=[{"name": "EKS_ADDON_MANAGEMENT", "status": "ENABLED"}],
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.detector_id = self.detector.id
        self.register_outputs({"detector_id": self.detector_id})


# The tag that marks a detector this component created, so a later `pulumi up` keeps declaring it.
OWNER_TAG = "gpu-blueprints/detector-owner"


def existing_detector(opts: pulumi.InvokeOptions) -> Optional[aws.guardduty.AwaitableGetDetectorResult]:
    """The account's detector in the region, or None. The provider's data source fails when there is none ("no
    GuardDuty Detectors found" / an empty result: terraform-provider-aws internal/service/guardduty
    detector_data_source.go); any failure here means "none", and creating the detector then reports a real error."""
    try:
        return aws.guardduty.get_detector(opts=opts)
    except Exception:  # noqa: BLE001 - the data source's only way to say "no detector"
        return None
