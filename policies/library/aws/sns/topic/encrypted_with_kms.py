"""SNS topics (alerts, job events) encrypt messages at rest with a KMS key.

Security Hub SNS.1, severity Medium. AWS retired it from the FSBP standard in April 2024; it stays in the NIST SP
800-53 Rev. 5 standard (docs.amazonaws.cn/en_us/securityhub/latest/userguide/sns-controls.html, read 2026-11-27).
The baseline keeps it: a topic that carries alert payloads or job metadata is data at rest like a queue.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if not props.get("kmsMasterKeyId"):
        yield "no kmsMasterKeyId: messages are stored without server-side encryption"


RULE = ResourceRule(
    description="SNS topics must be encrypted at rest with AWS KMS.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub SNS.1 (retired from FSBP in April 2024; NIST SP 800-53 Rev. 5)",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set kmsMasterKeyId to a customer key whose policy lets the publishers (and SNS for the "
    "subscribers' deliveries) use it.",
    url=SECURITY_HUB.format("sns"),
    types=("aws:sns/topic:Topic",),
    check=check,
)
