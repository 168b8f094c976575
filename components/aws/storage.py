"""Data at rest: an S3 bucket that grants access like CDK does, and FSx for Lustre with its ports."""

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..policy_document import Statement, policy_json

# Lustre clients reach the file servers on TCP 988 and 1018-1023.
# https://docs.aws.amazon.com/fsx/latest/LustreGuide/limit-access-security-groups.html
LUSTRE_PORTS = ((988, 988), (1018, 1023))
READ_ACTIONS = ("s3:GetObject", "s3:GetObjectVersion")
WRITE_ACTIONS = ("s3:PutObject", "s3:AbortMultipartUpload")
LIST_ACTIONS = ("s3:ListBucket",)


@dataclass(frozen=True)
class BucketArgs(Args):
    """The data bucket."""

    kms_key_arn: pulumi.Input[str]
    """Encrypts every object (SSE-KMS with a bucket key)."""
    protect: Optional[bool] = True
    """Refuse to delete the bucket and keep its objects on destroy; on by default, data outlives clusters."""
    noncurrent_version_days: Optional[int] = 30
    """Days an overwritten or deleted object version is kept; a month by default, room to undo a bad checkpoint."""
    infrequent_access_after_days: Optional[int] = None
    """Move objects to STANDARD_IA after this many days; None (default) keeps them in STANDARD, which datasets
    read daily want."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the bucket; none by default."""
    _extra_statements: Optional[Callable[[pulumi.Output[str]], Sequence[Statement]]] = None
    """Python only: more bucket-policy statements, given the bucket's ARN (a bucket has exactly one policy)."""


class DataBucket(Component):
    """Versioned, SSE-KMS, never public, TLS only; access is granted per prefix, never with s3:*."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:DataBucket"
    arn: pulumi.Output[str]
    """The bucket's ARN."""
    name: pulumi.Output[str]
    """The bucket's name."""

    def __init__(self, name: str, args: BucketArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(BucketArgs, args)
        child = pulumi.ResourceOptions(parent=self)
        self.bucket = aws.s3.Bucket(
            name,
            force_destroy=not args.protect,
            tags=dict(args.tags),
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        aws.s3.BucketOwnershipControls(
            name, bucket=self.bucket.id, rule={"object_ownership": "BucketOwnerEnforced"}, opts=child
        )
        public_access_block = aws.s3.BucketPublicAccessBlock(
            name,
            bucket=self.bucket.id,
            block_public_acls=True,
            block_public_policy=True,
            ignore_public_acls=True,
            restrict_public_buckets=True,
            opts=child,
        )
        aws.s3.BucketVersioning(name, bucket=self.bucket.id, versioning_configuration={"status": "Enabled"}, opts=child)
        aws.s3.BucketServerSideEncryptionConfiguration(
            name,
            bucket=self.bucket.id,
            rules=[
                {
                    "apply_server_side_encryption_by_default": {
                        "sse_algorithm": "aws:kms",
                        "kms_master_key_id": args.kms_key_arn,
                    },
                    "bucket_key_enabled": True,
                }
            ],
            opts=child,
        )
        rule = {
            "id": "versions-and-tiering",
            "status": "Enabled",
            "filter": {},
            "noncurrent_version_expiration": {"noncurrent_days": args.noncurrent_version_days},
            "abort_incomplete_multipart_upload": {"days_after_initiation": 7},
        }
        if args.infrequent_access_after_days:
            rule["transitions"] = [{"days": args.infrequent_access_after_days, "storage_class": "STANDARD_IA"}]
        aws.s3.BucketLifecycleConfiguration(name, bucket=self.bucket.id, rules=[rule], opts=child)
        extra = list(args._extra_statements(self.bucket.arn)) if args._extra_statements else []
        self.policy = aws.s3.BucketPolicy(
            name,
            bucket=self.bucket.id,
            policy=policy_json([deny_insecure_transport(self.bucket.arn), *extra]),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[public_access_block]),
        )
        self.arn = self.bucket.arn
        self.name = self.bucket.bucket
        self.register_outputs({"arn": self.arn, "name": self.name})

    def _prefix_arn(self, prefix: str) -> pulumi.Output[str]:
        return pulumi.Output.concat(self.bucket.arn, "/", prefix.strip("/"), "/*")

    def grant_read(self, prefix: str, sid: str) -> list[Statement]:
        return [
            Statement(sid=f"{sid}Objects", actions=READ_ACTIONS, resources=[self._prefix_arn(prefix)]),
            Statement(
                sid=f"{sid}List",
                actions=LIST_ACTIONS,
                resources=[self.bucket.arn],
                conditions={"StringLike": {"s3:prefix": [f"{prefix.strip('/')}/*"]}},
            ),
        ]

    def grant_read_write(self, prefix: str, sid: str) -> list[Statement]:
        read = self.grant_read(prefix, sid)
        write = Statement(sid=f"{sid}Write", actions=WRITE_ACTIONS, resources=[self._prefix_arn(prefix)])
        return [*read, write]


def deny_insecure_transport(bucket_arn: pulumi.Input[str]) -> Statement:
    return Statement(
        sid="DenyInsecureTransport",
        effect="Deny",
        actions=["s3:*"],
        principals={"AWS": "*"},
        resources=[bucket_arn, pulumi.Output.concat(bucket_arn, "/*")],
        conditions={"Bool": {"aws:SecureTransport": "false"}},
    )


@dataclass(frozen=True)
class LustreArgs(Args):
    """An FSx for Lustre file system."""

    vpc_id: pulumi.Input[str]
    """The VPC of the file system and its clients."""
    subnet_id: pulumi.Input[str]
    """One subnet: put it in the GPU nodes' zone (the EFA zone), cross-zone traffic is slower and billed."""
    client_security_group_ids: Sequence[pulumi.Input[str]]
    """Groups whose members may mount (ports 988 and 1018-1023)."""
    size_gib: int
    """Capacity: 1200 GiB or a multiple of 2400 GiB for PERSISTENT_2 and SCRATCH_2."""
    kms_key_arn: pulumi.Input[str]
    """Encrypts PERSISTENT deployments (SCRATCH takes only an AWS-owned key)."""
    deployment: Optional[str] = "PERSISTENT_2"
    """PERSISTENT_2 (default: replicated, takes the customer key, backed up) or SCRATCH_2."""
    throughput_mbps_per_tib: Optional[int] = 125
    """PERSISTENT_2 throughput per TiB: 125 (default, the cheapest), 250, 500 or 1000."""
    protect: Optional[bool] = True
    """Refuse to delete the file system; on by default."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on every resource; none by default."""
    cache_bucket_name: Optional[pulumi.Input[str]] = None
    """A bucket the file system caches (a data repository association at /data); None (default) links none."""


class LustreFileSystem(Component):
    """FSx for Lustre; with a bucket it becomes the bucket's cache through a data repository association."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:LustreFileSystem"
    file_system_id: pulumi.Output[str]
    """The file system's id: the CSI volume handle."""
    dns_name: pulumi.Output[str]
    """Where clients mount it."""
    mount_name: pulumi.Output[str]
    """The Lustre mount name."""

    def __init__(self, name: str, args: LustreArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(LustreArgs, args)
        child = pulumi.ResourceOptions(parent=self)
        rules = _lustre_ingress(args)
        self.security_group = aws.ec2.SecurityGroup(
            name,
            vpc_id=args.vpc_id,
            description="FSx for Lustre: 988 and 1018-1023 from GPU nodes",
            ingress=rules,
            egress=[
                {
                    "protocol": "tcp",
                    "from_port": low,
                    "to_port": high,
                    "self": True,
                    "description": "Lustre between file servers",
                }
                for low, high in LUSTRE_PORTS
            ],
            tags=args.tags,
            opts=child,
        )
        persistent = args.deployment.startswith("PERSISTENT")
        self.file_system = aws.fsx.LustreFileSystem(
            name,
            storage_capacity=args.size_gib,
            deployment_type=args.deployment,
            subnet_ids=args.subnet_id,  # one subnet; pulumi-aws v7 types it as a string
            security_group_ids=[self.security_group.id],
            file_system_type_version="2.15",
            data_compression_type="LZ4",
            # A customer-managed key is only accepted on PERSISTENT deployments; SCRATCH uses an AWS key.
            **(
                {
                    "kms_key_id": args.kms_key_arn,
                    "per_unit_storage_throughput": args.throughput_mbps_per_tib,
                    "automatic_backup_retention_days": 7,
                    "copy_tags_to_backups": True,
                }
                if persistent
                else {}
            ),
            tags=args.tags,
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        self._cache_of(name, args)
        self.file_system_id = self.file_system.id
        self.dns_name = self.file_system.dns_name
        self.mount_name = self.file_system.mount_name
        self.register_outputs(
            {"file_system_id": self.file_system_id, "dns_name": self.dns_name, "mount_name": self.mount_name}
        )

    def _cache_of(self, name: str, args: LustreArgs) -> None:
        """Link the file system to the data bucket under /data, importing and exporting every change."""
        child = pulumi.ResourceOptions(parent=self)
        if args.cache_bucket_name is not None:
            aws.fsx.DataRepositoryAssociation(
                name,
                file_system_id=self.file_system.id,
                file_system_path="/data",
                data_repository_path=pulumi.Output.concat("s3://", args.cache_bucket_name),
                batch_import_meta_data_on_create=True,
                s3={
                    "auto_import_policy": {"events": ["NEW", "CHANGED", "DELETED"]},
                    "auto_export_policy": {"events": ["NEW", "CHANGED", "DELETED"]},
                },
                tags=args.tags,
                opts=child,
            )


def _lustre_ingress(args: "LustreArgs") -> list[dict]:
    """Lustre's ports from each client security group, and between the file servers themselves."""
    rules = []
    for low, high in LUSTRE_PORTS:
        for sg in args.client_security_group_ids:
            rules.append(
                {
                    "protocol": "tcp",
                    "from_port": low,
                    "to_port": high,
                    "security_groups": [sg],
                    "description": "Lustre from GPU nodes",
                }
            )
        rules.append(
            {
                "protocol": "tcp",
                "from_port": low,
                "to_port": high,
                "self": True,
                "description": "Lustre between file servers",
            }
        )
    return rules
