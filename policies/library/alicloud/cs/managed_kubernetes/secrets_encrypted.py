"""ACK encrypts Kubernetes secrets with a KMS key."""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if not props.get("encryptionProviderKey"):
        yield "encryptionProviderKey is unset: secrets are stored without KMS envelope encryption"


RULE = ResourceRule(
    description="ACK clusters must encrypt secrets with a customer KMS key.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud ACK: use KMS to encrypt Kubernetes Secrets",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set encryptionProviderKey to the stack's KMS key (ACK Pro).",
    url="https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/use-kms-to-encrypt-kubernetes-secrets",
    types=("alicloud:cs/managedKubernetes:ManagedKubernetes",),
    check=check,
)
