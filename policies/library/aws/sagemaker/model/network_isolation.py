"""SageMaker models run with network isolation: the model container can make no network calls of its own.

A model container comes from a third party more often than not (a published image with published weights);
with isolation it cannot send data out or fetch code in.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("enableNetworkIsolation") is not True:
        yield "enableNetworkIsolation is not true: the model container can reach the network"


RULE = ResourceRule(
    description="SageMaker models must enable network isolation.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub SageMaker.5",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Set enableNetworkIsolation: true (the model's artifacts still load from S3 through SageMaker).",
    url=SECURITY_HUB.format("sagemaker"),
    types=("aws:sagemaker/model:Model",),
    check=check,
)
