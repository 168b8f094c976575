"""Managed node groups do not open SSH to the internet.

With remoteAccess.ec2SshKey set and no sourceSecurityGroupIds, EKS opens port 22 on the nodes to
0.0.0.0/0 (EKS API reference, RemoteAccessConfig.sourceSecurityGroups).
"""

from ....props import items
from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    remote = props.get("remoteAccess") or {}
    if remote.get("ec2SshKey") and not items(remote.get("sourceSecurityGroupIds")):
        yield "remoteAccess names an SSH key but no sourceSecurityGroupIds: port 22 is open to 0.0.0.0/0"


RULE = ResourceRule(
    description="EKS node groups must not allow SSH from anywhere.",
    severity="high",
    references={
        "baseline": "Checkov CKV_AWS_100",
        "hipaa": HIPAA.format("164.312(e)(1)"),
        "mlps": MLPS.format("8.1.3.1 边界防护"),
    },
    remediation="Drop remoteAccess (use SSM Session Manager) or set remoteAccess.sourceSecurityGroupIds.",
    url="https://docs.aws.amazon.com/eks/latest/APIReference/API_RemoteAccessConfig.html",
    types=("aws:eks/nodeGroup:NodeGroup",),
    check=check,
)
