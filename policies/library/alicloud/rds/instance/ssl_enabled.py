"""ApsaraDB RDS instances accept clients over SSL/TLS.

pulumi-alicloud 4.0.0 ``rds.Instance.sslAction``: "Open" turns SSL encryption on, "Close" off, "Update" renews the
certificate of an instance that has it on; left out, SSL stays off (the RDS default). ``forceEncryption`` "1"
(MySQL, SQL Server) also refuses clients that do not use it. Alibaba Cloud Config's nearest managed rule,
``rds-instance-tls-version-check``, wants SSL on and a TLS version in range
(https://www.alibabacloud.com/help/en/cloud-config/latest/enable-ssl-and-use-the-specified-tls-version-for-the,
read 2026-11-27); the TLS version is an instance parameter, not one of the resource's inputs.
"""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule

ON = ("Open", "Update")


def check(props, config, args):
    if props.get("sslAction") not in ON:
        yield f"sslAction is {props.get('sslAction') or 'not set'}: clients connect to the database in clear text"
    elif config["requireForceEncryption"] and str(props.get("forceEncryption")) != "1":
        yield "forceEncryption is not 1: clients may still connect without SSL"


RULE = ResourceRule(
    description="ApsaraDB RDS instances must have SSL encryption on.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud Config rds-instance-tls-version-check; Checkov CKV_ALI_20",
        "hipaa": HIPAA.format("164.312(e)(2)(ii)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.2.2 通信传输"),
    },
    remediation="Set sslAction: Open (and forceEncryption: '1' on MySQL and SQL Server to refuse plain clients).",
    url="https://www.alibabacloud.com/help/en/cloud-config/latest/enable-ssl-and-use-the-specified-tls-version-for-the",
    config={
        "requireForceEncryption": {
            "type": "boolean",
            "default": False,
            "description": "Also require forceEncryption '1' (MySQL and SQL Server only).",
        }
    },
    types=("alicloud:rds/instance:Instance",),
    check=check,
)
