"""SageMaker endpoint configurations encrypt the endpoint's storage volumes with a customer KMS key.

No FSBP control judges it; Checkov's CKV_AWS_98 does. The volumes hold the model's weights and any data
capture the endpoint writes.
"""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if not props.get("kmsKeyArn"):
        yield "no kmsKeyArn: the endpoint's storage volumes are not encrypted with a customer key"


RULE = ResourceRule(
    description="SageMaker endpoint configurations must name a KMS key.",
    severity="high",
    references={
        "baseline": "Amazon SageMaker AI Developer Guide: CreateEndpointConfig KmsKeyId; Checkov CKV_AWS_98",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.8 数据保密性"),
    },
    remediation="Set kmsKeyArn to a customer-managed key (rotation on) that grants SageMaker its use.",
    url="https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateEndpointConfig.html",
    types=("aws:sagemaker/endpointConfiguration:EndpointConfiguration",),
    check=check,
)
