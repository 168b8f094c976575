"""The stack's KMS key on Alibaba Cloud: automatic rotation, a 30-day pending window."""

from dataclasses import dataclass, field
from typing import Mapping, Optional

import pulumi
import pulumi_alicloud as alicloud

from ..base import ALICLOUD, Args, Component, as_args


def rotation_interval(days: int) -> str:
    """KMS's own spelling, in seconds ("7776000s" for 90 days): the provider reads RotationInterval back as the API
    returns it and has no diff suppression, so another spelling ("2160h") would show a change on every refresh
    (terraform-provider-alicloud alicloud/resource_alicloud_kms_key.go@0e5a3d4ed5d6052f3f7ac28c45f24cca35fd436e)."""
    return f"{days * 86_400}s"


@dataclass(frozen=True)
class DataKeyArgs(Args):
    """The stack key."""

    protect: Optional[bool] = True
    """Deletion protection on the key; on by default, losing it loses the data it encrypts."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the key; none by default."""
    rotation_days: Optional[int] = 90
    """Days between automatic rotations, 7 to 365 for software-protected keys (pulumi-alicloud 4.0.0
    `kms.Key.rotation_interval`); 90 by default."""
    kms_instance_id: Optional[str] = None
    """The KMS instance to create the key in; None (default) makes a default key, which KMS rotates only every 365
    days (pulumi-alicloud 4.0.0 `kms.Key.dkms_instance_id` and `rotation_interval`)."""


class DataKey(Component):
    """One KMS key for everything the stack keeps at rest (disks, OSS, CPFS/NAS, logs, ACK secrets)."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:DataKey"
    key_id: pulumi.Output[str]
    """The key's id."""

    def __init__(self, name: str, args: DataKeyArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(DataKeyArgs, args)
        protect, tags = args.protect, dict(args.tags)
        self.key = alicloud.kms.Key(
            name,
            description=f"{name}: data at rest for the GPU cluster",
            key_usage="ENCRYPT/DECRYPT",
            key_spec="Aliyun_AES_256",
            automatic_rotation="Enabled",
            rotation_interval=rotation_interval(args.rotation_days),
            **({"dkms_instance_id": args.kms_instance_id} if args.kms_instance_id else {}),
            pending_window_in_days=30,
            deletion_protection="Enabled" if protect else "Disabled",
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.id = self.key_id = self.key.id
        self.register_outputs({"key_id": self.key_id})
