"""ApsaraDB RDS instances encrypt data at rest: TDE, or cloud-disk encryption with a KMS key.

pulumi-alicloud 4.0.0 ``rds.Instance``: ``tdeStatus`` ("Enabled" turns TDE on; it cannot be turned off), and
``encryptionKey`` (a KMS key ID encrypts the cloud disks; "ServiceKey" uses RDS's service-managed key). Without
either the instance stores its data unencrypted. Alibaba Cloud Config's managed rule ``rds-instance-enabled-tde``
(https://www.alibabacloud.com/help/en/cloud-config/latest/rds-instance-enabled-tde, read 2026-11-27) judges TDE
alone; a customer-key disk is accepted here too, because PostgreSQL instances encrypt through it.
"""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule

SERVICE_KEY = "ServiceKey"


def check(props, config, args):
    if props.get("tdeStatus") == "Enabled":
        return
    key = props.get("encryptionKey")
    if not key:
        yield "neither tdeStatus Enabled nor encryptionKey: the instance's data is stored unencrypted"
    elif key == SERVICE_KEY and config["requireCustomerKey"]:
        yield "encryptionKey is ServiceKey: the disks are encrypted with RDS's service key, not a customer key"


RULE = ResourceRule(
    description="ApsaraDB RDS instances must encrypt data at rest (TDE, or cloud disks under a customer KMS key).",
    severity="high",
    references={
        "baseline": "Alibaba Cloud Config rds-instance-enabled-tde; Checkov CKV_ALI_22",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set tdeStatus: Enabled (MySQL, SQL Server), or encryptionKey: <KMS key ID> with roleArn "
    "(cloud-disk encryption; PostgreSQL, MySQL, SQL Server).",
    url="https://www.alibabacloud.com/help/en/cloud-config/latest/rds-instance-enabled-tde",
    config={
        "requireCustomerKey": {
            "type": "boolean",
            "default": True,
            "description": "Refuse encryptionKey ServiceKey (RDS's service-managed key) where TDE is off.",
        }
    },
    types=("alicloud:rds/instance:Instance",),
    check=check,
)
