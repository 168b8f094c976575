"""Simple Message Queue (formerly MNS) queues encrypt messages at rest, with a customer key where asked.

pulumi-alicloud 4.0.0 ``message.ServiceQueue``: ``enableSse`` ("Default value: false"), ``sseType`` SMQ (keys the
service manages) or KMS (``kmsKeyId``, a customer master key in KMS). Messages between training, evaluation and
serving jobs can carry prompts, results or data paths. No Alibaba Cloud Config managed rule for queue encryption was
found (Config rule search, 2026-11-27); Checkov has no check on it.
"""

from ....props import truthy
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if not truthy(props.get("enableSse")):
        yield "enableSse is not true: the queue's messages are stored unencrypted"
    elif config["requireCustomerKey"] and not (props.get("sseType") == "KMS" and props.get("kmsKeyId")):
        yield "sseType is not KMS with kmsKeyId: messages are encrypted with the service's keys, not a customer key"


RULE = ResourceRule(
    description="Message queues must encrypt messages at rest (with a customer KMS key).",
    severity="medium",
    references={
        "baseline": "Alibaba Cloud Simple Message Queue: server-side encryption",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set enableSse: true, sseType: KMS and kmsKeyId: <KMS key>.",
    url="https://alibabacloud.com/help/en/mns/createqueue",
    config={
        "requireCustomerKey": {
            "type": "boolean",
            "default": True,
            "description": "Also require a customer KMS key (sseType KMS with kmsKeyId).",
        }
    },
    types=("alicloud:message/serviceQueue:ServiceQueue",),
    check=check,
)
