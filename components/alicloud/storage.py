"""OSS bucket (KMS, versioned, private, lifecycle) and CPFS or NAS file systems encrypted with the stack key."""

from dataclasses import dataclass, field
from typing import Mapping, Optional

import pulumi
import pulumi_alicloud as alicloud

from ..base import ALICLOUD, Args, Component, as_args
from ..policy_document import Statement, ram_policy_json

CPFS_DATA_FLOW_MBPS = 600  # the smallest CPFS data-flow throughput (600, 1200 or 1500 MB/s)


@dataclass(frozen=True)
class BucketArgs(Args):
    """The data bucket."""

    kms_key_id: pulumi.Input[str]
    """Encrypts every object (SSE-KMS)."""
    protect: Optional[bool] = True
    """Refuse to delete the bucket and keep its objects on destroy; on by default, data outlives clusters."""
    noncurrent_version_days: Optional[int] = 30
    """Days an overwritten or deleted object version is kept; a month by default."""
    infrequent_access_after_days: Optional[int] = None
    """Move objects to IA after this many days; None (default) keeps them in Standard."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the bucket; none by default."""
    bucket_name: Optional[pulumi.Input[str]] = None
    """The bucket's name, unique across every OSS customer (the access-log bucket appends `-access-logs`); None
    (default) uses the resource name, which must then be unique across OSS."""
    cpfs_data_flow: Optional[bool] = False
    """Tag the bucket `cpfs-dataflow: true`, without which a CPFS data flow cannot read it; off by default.
    https://www.alibabacloud.com/help/en/cpfs/user-guide/manage-data-flows"""
    access_logs: Optional[bool] = True
    """OSS access logging into a companion `<name>-access-logs` bucket with the same key and protections, so every
    object read and write is recorded (MLPS 8.1.4.3, HIPAA 164.312(b)); on by default. The log bucket itself is not
    logged (that would log the log delivery)."""


class DataBucket(Component):
    """Versioned, SSE-KMS, zone-redundant, never public, TLS only; access is granted per prefix."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:DataBucket"
    name: pulumi.Output[str]
    """The bucket's name."""

    def __init__(self, name: str, args: BucketArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(BucketArgs, args)
        tags = dict(args.tags)
        if args.cpfs_data_flow:
            tags["cpfs-dataflow"] = "true"
        bucket_name = args.bucket_name if args.bucket_name is not None else name
        self.bucket = alicloud.oss.Bucket(
            name,
            bucket=bucket_name,
            acl="private",
            storage_class="Standard",
            redundancy_type="ZRS",
            server_side_encryption_rule={"sse_algorithm": "KMS", "kms_master_key_id": args.kms_key_id},
            versioning={"status": "Enabled"},
            lifecycle_rules=[_lifecycle_rule(args)],
            force_destroy=not args.protect,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        alicloud.oss.BucketPublicAccessBlock(
            name, bucket=self.bucket.bucket, block_public_access=True, opts=pulumi.ResourceOptions(parent=self)
        )
        self._tls_only(name)
        self.name = self.bucket.bucket
        if args.access_logs:
            self._access_logs(name, args, bucket_name)
        self.register_outputs({"name": self.name})

    def _tls_only(self, name: str) -> None:
        """A bucket policy denying every request not made over TLS."""
        bucket_arn = pulumi.Output.concat("acs:oss:*:*:", self.bucket.bucket)
        alicloud.oss.BucketPolicy(
            name,
            bucket=self.bucket.bucket,
            policy=ram_policy_json(
                [
                    Statement(
                        effect="Deny",
                        actions=["oss:*"],
                        principals=["*"],
                        resources=[bucket_arn, pulumi.Output.concat(bucket_arn, "/*")],
                        conditions={"Bool": {"acs:SecureTransport": ["false"]}},
                    )
                ]
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )

    def _access_logs(self, name: str, args: BucketArgs, bucket_name: pulumi.Input[str]) -> None:
        """A second bucket, as protected and encrypted, receiving this one's access logs."""
        logs = DataBucket(
            f"{name}-access-logs",
            BucketArgs(
                kms_key_id=args.kms_key_id,
                protect=args.protect,
                noncurrent_version_days=args.noncurrent_version_days,
                infrequent_access_after_days=None,
                tags=dict(args.tags),
                access_logs=False,
                bucket_name=pulumi.Output.concat(bucket_name, "-access-logs") if args.bucket_name is not None else None,
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        alicloud.oss.BucketLogging(
            name,
            bucket=self.bucket.bucket,
            target_bucket=logs.name,
            target_prefix="access-logs/",
            opts=pulumi.ResourceOptions(parent=self),
        )

    def grant_read(self, prefix: str) -> list[Statement]:
        """Read and list only under ``prefix`` (a model's weights)."""
        objects = pulumi.Output.concat("acs:oss:*:*:", self.bucket.bucket, "/", prefix.strip("/"), "/*")
        return [
            Statement(actions=["oss:GetObject"], resources=[objects]),
            Statement(
                actions=["oss:ListObjects"],
                resources=[pulumi.Output.concat("acs:oss:*:*:", self.bucket.bucket)],
                conditions={"StringLike": {"oss:Prefix": [f"{prefix.strip('/')}/*"]}},
            ),
        ]

    def grant_read_write(self, prefix: str) -> list[Statement]:
        objects = pulumi.Output.concat("acs:oss:*:*:", self.bucket.bucket, "/", prefix.strip("/"), "/*")
        return [
            Statement(actions=["oss:GetObject", "oss:PutObject", "oss:AbortMultipartUpload"], resources=[objects]),
            Statement(
                actions=["oss:ListObjects"],
                resources=[pulumi.Output.concat("acs:oss:*:*:", self.bucket.bucket)],
                conditions={"StringLike": {"oss:Prefix": [f"{prefix.strip('/')}/*"]}},
            ),
        ]


@dataclass(frozen=True)
class SharedFileSystemArgs(Args):
    """A CPFS or NAS file system and its NFS export."""

    kind: str
    """`cpfs` (parallel, general-purpose CPFS) or `nas` (NAS extreme)."""
    size_gib: int
    """Capacity; CPFS grows in the region's scale-out steps."""
    vpc_id: pulumi.Input[str]
    """The nodes' VPC."""
    vswitch_id: pulumi.Input[str]
    """The vSwitch in the GPU nodes' zone."""
    zone_id: pulumi.Input[str]
    """That vSwitch's zone."""
    kms_key_id: pulumi.Input[str]
    """NAS extreme: encrypts the file system (BYOK, EncryptType 2). CPFS: unused, since CreateFileSystem takes no
    EncryptType or KmsKeyId for `cpfs` ("valid if FileSystemType is standard or extreme", NAS API 2017-06-26; the
    provider's `encrypt_type` 2: "only when FileSystemType = extreme"), so CPFS data at rest is not under this key."""
    protect: Optional[bool] = True
    """Refuse to delete the file system; on by default."""
    export_domain: Optional[str] = None
    """CPFS: the NFS export's domain, which only DescribeProtocolMountTarget returns; None (default) until the first
    `pulumi up` created the export, and then pods cannot mount it yet."""
    cache_bucket_name: Optional[pulumi.Input[str]] = None
    """CPFS: an OSS bucket a fileset caches through a data flow; None (default) links none."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the file system; none by default."""


class SharedFileSystem(Component):
    """CPFS (parallel) or NAS extreme (shared) in the nodes' zone, with the NFS endpoint nodes mount. NAS extreme is
    encrypted with the stack's key (BYOK); CPFS cannot be asked for any encryption through CreateFileSystem (see
    `SharedFileSystemArgs.kms_key_id`)."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:SharedFileSystem"
    file_system_id: pulumi.Output[str]
    """The file system's id."""
    nfs_server: pulumi.Output[Optional[str]]
    """Where nodes mount it over NFS; unset for CPFS until `export_domain` is given."""
    nfs_path: pulumi.Output[str]
    """The exported path."""
    export_id: pulumi.Output[Optional[str]]
    """CPFS: the NFS export's id (look its domain up with DescribeProtocolMountTarget)."""

    def __init__(self, name: str, args: SharedFileSystemArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(SharedFileSystemArgs, args)
        kind, size_gib, vpc_id, vswitch_id = args.kind, args.size_gib, args.vpc_id, args.vswitch_id
        zone_id, kms_key_id, protect, tags = args.zone_id, args.kms_key_id, args.protect, dict(args.tags)
        if kind not in ("cpfs", "nas"):
            raise ValueError(f"SharedFileSystemArgs.kind: `cpfs` or `nas`, not {kind!r}")
        # EncryptType 2 (a KMS key of ours) only for extreme (provider docs) / standard or extreme (NAS API): CPFS
        # gets none, the API not accepting it there. CPFS's guide describes server-side encryption under a KMS key
        # (https://www.alibabacloud.com/help/en/cpfs/data-encryption), but neither the API nor the provider exposes it.
        flavour = (
            {"file_system_type": "cpfs", "protocol_type": "cpfs", "storage_type": "advance_100"}
            if kind == "cpfs"
            else {
                "file_system_type": "extreme",
                "protocol_type": "NFS",
                "storage_type": "standard",
                "encrypt_type": 2,
                "kms_key_id": kms_key_id,
            }
        )
        self.file_system = alicloud.nas.FileSystem(
            name,
            capacity=size_gib,
            vpc_id=vpc_id,
            vswitch_id=vswitch_id,
            zone_id=zone_id,
            description=f"{name}: shared data for GPU nodes",
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, protect=protect),
            **flavour,
        )
        self.kind, self._base = kind, name
        self.export = None
        if args.cache_bucket_name is not None:
            self.cache(args.cache_bucket_name)
        server, self.nfs_path = self._nfs_export(vpc_id, vswitch_id, args.export_domain)
        self.nfs_server = pulumi.Output.from_input(server) if server is not None else None
        self.file_system_id = self.file_system.id
        self.export_id = self.export.export_id if self.export is not None else None
        self.register_outputs(
            {
                "file_system_id": self.file_system_id,
                "nfs_server": self.nfs_server,
                "nfs_path": self.nfs_path,
                "export_id": self.export_id,
            }
        )

    def _nfs_export(
        self, vpc_id: pulumi.Input[str], vswitch_id: pulumi.Input[str], export_domain: Optional[str] = None
    ) -> tuple[Optional[pulumi.Input[str]], str]:
        """Where nodes mount the file system over NFS: (server, path); server None while it is unknown.

        NAS extreme: a VPC mount target, path /share.
        https://www.alibabacloud.com/help/en/nas/user-guide/mount-an-extreme-nas-file-system-on-a-linux-ecs-instance
        CPFS general-purpose: an NFS protocol service and an export (NFSv3, path /share). The export's domain
        is returned only by DescribeProtocolMountTarget, not by the provider, so the stack passes it in
        (``export_domain``) once the export exists.
        https://www.alibabacloud.com/help/en/cpfs/cpfsonecs/user-guide/protocol-service-faq
        """
        if self.kind == "nas":
            target = alicloud.nas.MountTarget(
                self._base,
                file_system_id=self.file_system.id,
                vpc_id=vpc_id,
                vswitch_id=vswitch_id,
                network_type="Vpc",
                access_group_name="DEFAULT_VPC_GROUP_NAME",
                opts=pulumi.ResourceOptions(parent=self),
            )
            return target.mount_target_domain, "/share"
        service = alicloud.nas.ProtocolService(
            self._base,
            file_system_id=self.file_system.id,
            protocol_type="NFS",
            protocol_spec="General",
            vpc_id=vpc_id,
            vswitch_id=vswitch_id,
            description="NFS access for ACK nodes",
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.export = alicloud.nas.ProtocolMountTarget(
            self._base,
            file_system_id=self.file_system.id,
            protocol_service_id=service.protocol_service_id,
            access_group_name="DEFAULT_VPC_GROUP_NAME",
            vpc_id=vpc_id,
            vswitch_id=vswitch_id,
            path="/",
            description="NFS export for ACK nodes",
            opts=pulumi.ResourceOptions(parent=self),
        )
        return export_domain, "/share"

    def cache(self, bucket_name: pulumi.Input[str], path: str = "/data/") -> "alicloud.nas.DataFlow":
        """Make a CPFS fileset a cache of the OSS bucket: a data flow imports and exports over TLS."""
        if self.kind != "cpfs":
            raise ValueError("only CPFS file systems have data flows to OSS")
        fileset = alicloud.nas.Fileset(
            f"{self._base}-cache",
            file_system_id=self.file_system.id,
            file_system_path=path,
            description="OSS-backed cache",
            opts=pulumi.ResourceOptions(parent=self),
        )
        return alicloud.nas.DataFlow(
            f"{self._base}-cache",
            file_system_id=self.file_system.id,
            fset_id=fileset.fileset_id,
            source_storage=pulumi.Output.concat("oss://", bucket_name),
            source_security_type="SSL",
            throughput=CPFS_DATA_FLOW_MBPS,
            description="OSS bucket <-> CPFS cache",
            opts=pulumi.ResourceOptions(parent=self),
        )


def _lifecycle_rule(args: "BucketArgs") -> dict:
    """Non-current versions expire, unfinished uploads are aborted, and objects move to IA when the stack says."""
    rule = {
        "id": "versions-and-tiering",
        "enabled": True,
        "prefix": "",
        "noncurrent_version_expirations": [{"days": args.noncurrent_version_days}],
        "abort_multipart_uploads": [{"days": 7}],
    }
    if args.infrequent_access_after_days:
        rule["transitions"] = [{"days": args.infrequent_access_after_days, "storage_class": "IA"}]
    return rule
