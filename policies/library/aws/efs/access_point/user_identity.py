"""EFS access points impose a POSIX identity on every request (Security Hub EFS.4, severity Medium).

Without posixUser, a client's own uid/gid are used, so root in a pod is root on the share.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    user = props.get("posixUser") or {}
    if user.get("uid") is None or user.get("gid") is None:
        yield "posixUser has no uid and gid: requests keep the client's own identity (root stays root)"


RULE = ResourceRule(
    description="EFS access points must enforce a user identity.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub EFS.4",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set posixUser: {uid: <non-root uid>, gid: <gid>}.",
    url=SECURITY_HUB.format("efs"),
    types=("aws:efs/accessPoint:AccessPoint",),
    check=check,
)
