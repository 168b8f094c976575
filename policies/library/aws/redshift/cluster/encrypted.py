"""Redshift clusters are encrypted at rest, with a customer key where the pack asks for one.

pulumi-aws 7.51.1 sends ``encrypted`` as a string and defaults it to "true"; a cluster that turns it off,
or (with requireCustomerKey) names no kmsKeyId, fails.
"""

from ....props import truthy
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    encrypted = props.get("encrypted")
    if encrypted is not None and not truthy(encrypted):
        yield "encrypted is false: the cluster's data and snapshots are stored unencrypted"
    elif config["requireCustomerKey"] and not props.get("kmsKeyId"):
        yield "no kmsKeyId: the cluster is encrypted with an AWS-owned key, not a customer key"


RULE = ResourceRule(
    description="Redshift clusters must be encrypted at rest (with a customer KMS key).",
    severity="high",
    references={
        "baseline": "AWS Security Hub Redshift.10",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Leave encrypted: true and set kmsKeyId to a customer-managed key with rotation.",
    url=SECURITY_HUB.format("redshift"),
    config={
        "requireCustomerKey": {
            "type": "boolean",
            "default": True,
            "description": "Also require a customer-managed KMS key (kmsKeyId).",
        }
    },
    types=("aws:redshift/cluster:Cluster",),
    check=check,
)
