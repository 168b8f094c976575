"""EBS snapshots are not restorable by accounts outside the trusted list (nor by everyone)."""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    account = props.get("accountId")
    if account == "all":
        yield "accountId 'all' makes the snapshot public"
    elif account and account not in config["trustedAccounts"]:
        yield f"lets account {account} restore the snapshot; it is not in trustedAccounts"


RULE = ResourceRule(
    description="EBS snapshots must not be public or shared outside trusted accounts.",
    severity="critical",
    references={
        "baseline": "AWS Security Hub EC2.1",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Share snapshots only with accounts listed in trustedAccounts; block public snapshot sharing.",
    url=SECURITY_HUB.format("ec2"),
    config={
        "trustedAccounts": {
            "type": "array",
            "items": {"type": "string"},
            "default": [],
            "description": "Account ids a snapshot may be shared with.",
        }
    },
    types=("aws:ec2/snapshotCreateVolumePermission:SnapshotCreateVolumePermission",),
    check=check,
)
