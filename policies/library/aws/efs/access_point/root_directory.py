"""EFS access points confine their clients to a directory (Security Hub EFS.3, severity Medium).

The control fails an access point whose rootDirectory.path is "/" (the file system's root), which is also what
an access point without rootDirectory gets.
"""

from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    path = str((props.get("rootDirectory") or {}).get("path") or "/")
    if path.rstrip("/") == "":
        yield "rootDirectory.path is /: clients of the access point see the whole file system"


RULE = ResourceRule(
    description="EFS access points must enforce a root directory.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub EFS.3",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation='Set rootDirectory: {path: "/<team or job>", creationInfo: {ownerUid, ownerGid, permissions: "750"}}.',
    url=SECURITY_HUB.format("efs"),
    types=("aws:efs/accessPoint:AccessPoint",),
    check=check,
)
