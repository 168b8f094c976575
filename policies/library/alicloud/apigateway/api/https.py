"""API Gateway APIs accept requests over HTTPS only.

pulumi-alicloud 4.0.0 ``apigateway.Api.requestConfig.protocol``: "HTTP", "HTTPS" or "HTTP,HTTPS"; any value that
admits HTTP lets clients call the API in clear text. Alibaba Cloud Config's managed rule
``api-gateway-api-internet-request-https`` judges APIs open to the internet
(https://alibabacloud.com/help/en/cloud-config/latest/api-gateway-api-internet-request-https, read 2026-11-27);
Checkov's CKV_ALI_21 wants HTTPS for every API.
"""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    protocols = {p.strip().upper() for p in str((props.get("requestConfig") or {}).get("protocol") or "").split(",")}
    if "HTTP" in protocols:
        yield f"requestConfig.protocol admits HTTP ({','.join(sorted(protocols))}): requests travel in clear text"


RULE = ResourceRule(
    description="API Gateway APIs must accept requests over HTTPS only.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud Config api-gateway-api-internet-request-https; Checkov CKV_ALI_21",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation="Set requestConfig.protocol: HTTPS (and bind an SSL certificate to the API group's domain).",
    url="https://alibabacloud.com/help/en/cloud-config/latest/api-gateway-api-internet-request-https",
    types=("alicloud:apigateway/api:Api",),
    check=check,
)
