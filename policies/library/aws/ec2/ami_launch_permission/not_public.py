"""AMIs are not launchable by everyone, nor by accounts outside the trusted list.

An AMI built for GPU nodes often bakes in drivers, code and sometimes data; ``group: all`` makes it
public (EC2 API ModifyImageAttribute, LaunchPermission.Group "all").
"""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("group") == "all":
        yield "group 'all' makes the AMI public: any AWS account can launch it and read its volumes"
    account = props.get("accountId")
    if account and account not in config["trustedAccounts"]:
        yield f"shares the AMI with account {account}, which is not in trustedAccounts"


RULE = ResourceRule(
    description="AMIs must not be public or shared outside trusted accounts.",
    severity="critical",
    references={
        "baseline": "Checkov CKV_AWS_205",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Remove the public launch permission; share with named accounts or an organization ARN.",
    url="https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/sharingamis-intro.html",
    config={
        "trustedAccounts": {
            "type": "array",
            "items": {"type": "string"},
            "default": [],
            "description": "Account ids an AMI may be shared with.",
        }
    },
    types=("aws:ec2/amiLaunchPermission:AmiLaunchPermission",),
    check=check,
)
