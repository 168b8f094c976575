"""Classic Load Balancer (SLB) listeners serve HTTP only as a redirect to HTTPS, and HTTPS with TLS 1.2 or newer.

pulumi-alicloud 4.0.0 ``slb.Listener`` (inputs as terraform-provider-alicloud's ``alicloud_slb_listener`` documents
them, website/docs/r/slb_listener.html.markdown): ``protocol`` http, https, tcp or udp; ``listenerForward`` "on"
with ``forwardPort`` redirects HTTP to the HTTPS listener on that port (default "off"); ``tlsCipherPolicy``
tls_cipher_policy_1_0 (the default), _1_1, _1_2 or _1_2_strict. Alibaba Cloud Config's managed rule
``slb-listener-https-enabled`` wants an HTTPS listener on the instance's port 443
(https://www.alibabacloud.com/help/ja/cloud-config/latest/j96886, read 2026-11-27).
"""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule

DEFAULT_POLICY = "tls_cipher_policy_1_0"
TLS12_POLICIES = ["tls_cipher_policy_1_2", "tls_cipher_policy_1_2_strict"]


def check(props, config, args):
    protocol = str(props.get("protocol") or "").lower()
    if protocol == "http" and not (props.get("listenerForward") == "on" and props.get("forwardPort")):
        yield "an http listener that does not redirect to HTTPS (listenerForward on, forwardPort) sends clear text"
    elif protocol == "https":
        policy = props.get("tlsCipherPolicy") or DEFAULT_POLICY
        if policy not in config["allowedPolicies"]:
            yield f"tlsCipherPolicy {policy} allows protocols older than TLS 1.2"


RULE = ResourceRule(
    description="SLB listeners must serve HTTPS with TLS 1.2 or newer; HTTP listeners must redirect to HTTPS.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud Config slb-listener-https-enabled",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation="Use protocol https with serverCertificateId and tlsCipherPolicy tls_cipher_policy_1_2_strict; make "
    "the http listener a redirect (listenerForward: on, forwardPort: 443).",
    url="https://www.alibabacloud.com/help/ja/cloud-config/latest/j96886",
    config={
        "allowedPolicies": {
            "type": "array",
            "items": {"type": "string"},
            "default": TLS12_POLICIES,
            "description": "SLB TLS cipher policies that allow only TLS 1.2 and newer.",
        }
    },
    types=("alicloud:slb/listener:Listener",),
    check=check,
)
