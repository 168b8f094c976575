"""The stack's KMS key on Alibaba Cloud: automatic rotation, a 30-day pending window."""

from __future__ import annotations

import pulumi
import pulumi_alicloud as alicloud

ROTATION_INTERVAL = "8760h"  # yearly, as on AWS


class DataKey(pulumi.ComponentResource):
    def __init__(self, name: str, *, protect: bool, tags: dict[str, str], opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:DataKey", name, None, opts)
        self.key = alicloud.kms.Key(
            name, description=f"{name}: data at rest for the GPU cluster", key_usage="ENCRYPT/DECRYPT",
            key_spec="Aliyun_AES_256", automatic_rotation="Enabled", rotation_interval=ROTATION_INTERVAL,
            pending_window_in_days=30, deletion_protection="Enabled" if protect else "Disabled",
            tags=tags, opts=pulumi.ResourceOptions(parent=self))
        self.id = self.key.id
        self.register_outputs({"key_id": self.key.id})
