"""Tablestore tables encrypt data at rest, with a customer key where the pack asks for one.

pulumi-alicloud 4.0.0 ``ots.Table``: ``enableSse`` ("Default value is false"), ``sseKeyType`` SSE_KMS_SERVICE (the
service's KMS key) or SSE_BYOK (``sseKeyId``, a customer key, with ``sseRoleArn``). Alibaba Cloud Config's managed
rule ``ots-instance-all-table-encrypted`` wants every table of an instance encrypted
(https://alibabacloud.com/help/en/cloud-config/latest/ots-instance-all-table-encrypted, read 2026-11-27).
"""

from ....props import truthy
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if not truthy(props.get("enableSse")):
        yield "enableSse is not true: the table's data is stored unencrypted"
    elif config["requireCustomerKey"] and not (props.get("sseKeyType") == "SSE_BYOK" and props.get("sseKeyId")):
        yield "sseKeyType is not SSE_BYOK with sseKeyId: the service key encrypts it, not a customer key"


RULE = ResourceRule(
    description="Tablestore tables must be encrypted at rest (with a customer KMS key).",
    severity="high",
    references={
        "baseline": "Alibaba Cloud Config ots-instance-all-table-encrypted",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set enableSse: true, sseKeyType: SSE_BYOK, sseKeyId: <KMS key> and sseRoleArn.",
    url="https://alibabacloud.com/help/en/cloud-config/latest/ots-instance-all-table-encrypted",
    config={
        "requireCustomerKey": {
            "type": "boolean",
            "default": True,
            "description": "Also require a customer key (SSE_BYOK with sseKeyId).",
        }
    },
    types=("alicloud:ots/table:Table",),
    check=check,
)
