"""ApsaraDB RDS whitelists never admit the whole internet.

pulumi-alicloud 4.0.0 ``rds.Instance.securityIps``: the IP whitelist, a list of addresses and CIDR blocks;
"0.0.0.0/0" (or the bare "0.0.0.0") admits every address, so an instance with a public endpoint (an
``rds.Connection``) is open to anyone holding a password. Alibaba Cloud Config's ``rds-public-access-check``
(https://help.aliyun.com/en/document_detail/208988.html, read 2026-11-27) judges the public endpoint itself, which a
program declares as a separate ``rds.Connection``; this rule judges the whitelist, as Checkov's CKV_ALI_9 does.
"""

from ....props import WORLD, as_list
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule

ANY = (*WORLD, "0.0.0.0")


def check(props, config, args):
    ips = [str(ip).strip() for entry in as_list(props.get("securityIps")) for ip in str(entry).split(",")]
    for ip in ips:
        if ip in ANY:
            yield f"securityIps holds {ip}: every address may connect to the database"


RULE = ResourceRule(
    description="ApsaraDB RDS IP whitelists must not hold 0.0.0.0/0.",
    severity="critical",
    references={
        "baseline": "Checkov CKV_ALI_9; Alibaba Cloud Config rds-public-access-check (the public endpoint)",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.3.2 访问控制"),
    },
    remediation="List only the VPC CIDRs and addresses that need the database in securityIps.",
    url="https://alibabacloud.com/help/en/rds/api-modify-ip-address-whitelist",
    types=("alicloud:rds/instance:Instance",),
    check=check,
)
