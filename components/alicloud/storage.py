"""OSS bucket (KMS, versioned, private, lifecycle) and CPFS or NAS file systems encrypted with the stack key."""

from __future__ import annotations

from typing import Optional

import pulumi
import pulumi_alicloud as alicloud

from ..policy_document import Statement, ram_policy_json

CPFS_DATA_FLOW_MBPS = 600  # the smallest CPFS data-flow throughput (600, 1200 or 1500 MB/s)


class DataBucket(pulumi.ComponentResource):
    def __init__(self, name: str, *, kms_key_id: pulumi.Input[str], protect: bool, noncurrent_version_days: int,
                 infrequent_access_after_days: Optional[int], tags: dict[str, str], access_logs: bool = True,
                 opts: pulumi.ResourceOptions | None = None):
        """``access_logs`` (default on): OSS access logging into a companion ``<name>-access-logs`` bucket with
        the same key and protections, so every object read and write is recorded (MLPS 8.1.4.3, HIPAA
        164.312(b)); the log bucket itself is not logged (that would log the log delivery)."""
        super().__init__("gpu-blueprints:alicloud:DataBucket", name, None, opts)
        rule = {"id": "versions-and-tiering", "enabled": True, "prefix": "",
                "noncurrent_version_expirations": [{"days": noncurrent_version_days}],
                "abort_multipart_uploads": [{"days": 7}]}
        if infrequent_access_after_days:
            rule["transitions"] = [{"days": infrequent_access_after_days, "storage_class": "IA"}]
        self.bucket = alicloud.oss.Bucket(
            name, bucket=name, acl="private", storage_class="Standard", redundancy_type="ZRS",
            server_side_encryption_rule={"sse_algorithm": "KMS", "kms_master_key_id": kms_key_id},
            versioning={"status": "Enabled"}, lifecycle_rules=[rule], force_destroy=not protect,
            tags=tags, opts=pulumi.ResourceOptions(parent=self, protect=protect))
        alicloud.oss.BucketPublicAccessBlock(name, bucket=self.bucket.bucket, block_public_access=True,
                                             opts=pulumi.ResourceOptions(parent=self))
        bucket_arn = pulumi.Output.concat("acs:oss:*:*:", self.bucket.bucket)
        alicloud.oss.BucketPolicy(name, bucket=self.bucket.bucket, policy=ram_policy_json([Statement(
            effect="Deny", actions=["oss:*"], principals=["*"],
            resources=[bucket_arn, pulumi.Output.concat(bucket_arn, "/*")],
            conditions={"Bool": {"acs:SecureTransport": ["false"]}})]), opts=pulumi.ResourceOptions(parent=self))
        self.name = self.bucket.bucket
        if access_logs:
            logs = DataBucket(f"{name}-access-logs", kms_key_id=kms_key_id, protect=protect,
                              noncurrent_version_days=noncurrent_version_days, infrequent_access_after_days=None,
                              tags=tags, access_logs=False, opts=pulumi.ResourceOptions(parent=self))
            alicloud.oss.BucketLogging(name, bucket=self.bucket.bucket, target_bucket=logs.name,
                                       target_prefix="access-logs/", opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"bucket": self.bucket.bucket})

    def grant_read_write(self, prefix: str) -> list[Statement]:
        objects = pulumi.Output.concat("acs:oss:*:*:", self.bucket.bucket, "/", prefix.strip("/"), "/*")
        return [
            Statement(actions=["oss:GetObject", "oss:PutObject", "oss:AbortMultipartUpload"], resources=[objects]),
            Statement(actions=["oss:ListObjects"],
                         resources=[pulumi.Output.concat("acs:oss:*:*:", self.bucket.bucket)],
                         conditions={"StringLike": {"oss:Prefix": [f"{prefix.strip('/')}/*"]}}),
        ]


class SharedFileSystem(pulumi.ComponentResource):
    """CPFS (parallel) or NAS extreme (shared) in the nodes' zone, encrypted with the stack's key (BYOK)."""

    def __init__(self, name: str, *, kind: str, size_gib: int, vpc_id: pulumi.Input[str],
                 vswitch_id: pulumi.Input[str], zone_id: pulumi.Input[str], kms_key_id: pulumi.Input[str],
                 protect: bool, tags: dict[str, str], opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:SharedFileSystem", name, None, opts)
        flavour = ({"file_system_type": "cpfs", "protocol_type": "cpfs", "storage_type": "advance_100"}
                   if kind == "cpfs" else
                   {"file_system_type": "extreme", "protocol_type": "NFS", "storage_type": "standard"})
        self.file_system = alicloud.nas.FileSystem(
            name, capacity=size_gib, encrypt_type=2, kms_key_id=kms_key_id, vpc_id=vpc_id, vswitch_id=vswitch_id,
            zone_id=zone_id, description=f"{name}: shared data for GPU nodes", tags=tags,
            opts=pulumi.ResourceOptions(parent=self, protect=protect), **flavour)
        self.kind, self._base = kind, name
        self.register_outputs({"file_system_id": self.file_system.id})

    def nfs_export(self, vpc_id: pulumi.Input[str], vswitch_id: pulumi.Input[str],
                   export_domain: Optional[str] = None) -> tuple[Optional[pulumi.Input[str]], str]:
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
                self._base, file_system_id=self.file_system.id, vpc_id=vpc_id, vswitch_id=vswitch_id,
                network_type="Vpc", access_group_name="DEFAULT_VPC_GROUP_NAME",
                opts=pulumi.ResourceOptions(parent=self))
            return target.mount_target_domain, "/share"
        service = alicloud.nas.ProtocolService(
            self._base, file_system_id=self.file_system.id, protocol_type="NFS", protocol_spec="General",
            vpc_id=vpc_id, vswitch_id=vswitch_id, description="NFS access for ACK nodes",
            opts=pulumi.ResourceOptions(parent=self))
        self.export = alicloud.nas.ProtocolMountTarget(
            self._base, file_system_id=self.file_system.id, protocol_service_id=service.protocol_service_id,
            access_group_name="DEFAULT_VPC_GROUP_NAME", vpc_id=vpc_id, vswitch_id=vswitch_id, path="/",
            description="NFS export for ACK nodes", opts=pulumi.ResourceOptions(parent=self))
        return export_domain, "/share"

    def cache(self, bucket_name: pulumi.Input[str], path: str = "/data/") -> "alicloud.nas.DataFlow":
        """Make a CPFS fileset a cache of the OSS bucket: a data flow imports and exports over TLS."""
        if self.kind != "cpfs":
            raise ValueError("only CPFS file systems have data flows to OSS")
        fileset = alicloud.nas.Fileset(f"{self._base}-cache", file_system_id=self.file_system.id,
                                       file_system_path=path, description="OSS-backed cache",
                                       opts=pulumi.ResourceOptions(parent=self))
        return alicloud.nas.DataFlow(f"{self._base}-cache", file_system_id=self.file_system.id,
                                     fset_id=fileset.fileset_id, source_storage=pulumi.Output.concat("oss://", bucket_name),
                                     source_security_type="SSL", throughput=CPFS_DATA_FLOW_MBPS,
                                     description="OSS bucket <-> CPFS cache", opts=pulumi.ResourceOptions(parent=self))
