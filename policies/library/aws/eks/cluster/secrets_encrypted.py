"""EKS envelope-encrypts Kubernetes secrets with the stack's KMS key."""

from ....props import items
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    encryption = props.get("encryptionConfig") or {}
    if "secrets" not in items(encryption.get("resources")) or not (encryption.get("provider") or {}).get("keyArn"):
        yield "encryptionConfig does not encrypt 'secrets' with a KMS key"


RULE = ResourceRule(
    description="EKS clusters must encrypt Kubernetes secrets with a customer-managed KMS key.",
    severity="high",
    references={
        "baseline": "AWS Security Hub EKS.3",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set encryptionConfig: {resources: [secrets], provider: {keyArn: <key>}}.",
    url=SECURITY_HUB.format("eks"),
    types=("aws:eks/cluster:Cluster",),
    check=check,
)
