"""Clients reach OpenSearch domains over HTTPS with TLS 1.2 or newer.

Security Hub Opensearch.8, severity Medium: fails unless the domain's TLSSecurityPolicy is a TLS 1.2 minimum
(Policy-Min-TLS-1-2-2019-07 in the control's text). The service's enum now also holds
Policy-Min-TLS-1-2-PFS-2023-10 (AWS SDK for C++ 1.11.644, aws-cpp-sdk-opensearch TLSSecurityPolicy.h), TLS 1.2 to 1.3
with forward secrecy, so any Policy-Min-TLS-1-2-* passes. pulumi-aws 7.51.1 leaves tlsSecurityPolicy to the service when
unset, and enforceHttps is judged too: a TLS policy means nothing if plain HTTP is accepted.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    endpoint = props.get("domainEndpointOptions") or {}
    policy = str(endpoint.get("tlsSecurityPolicy") or "")
    if not policy.startswith("Policy-Min-TLS-1-2"):
        yield f"domainEndpointOptions.tlsSecurityPolicy is {policy or 'unset'}: clients may connect with TLS 1.0/1.1"
    if endpoint.get("enforceHttps") is False:
        yield "domainEndpointOptions.enforceHttps is false: clients may connect over plain HTTP"


RULE = ResourceRule(
    description="Connections to OpenSearch domains must use TLS 1.2 or newer.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub Opensearch.8",
        "hipaa": HIPAA.format("164.312(e)(2)(ii)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation='Set domainEndpointOptions: {enforceHttps: true, tlsSecurityPolicy: "Policy-Min-TLS-1-2-2019-07"}.',
    url=SECURITY_HUB.format("opensearch"),
    types=("aws:opensearch/domain:Domain",),
    check=check,
)
