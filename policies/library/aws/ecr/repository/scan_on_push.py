"""Container images (training and serving images) are scanned for vulnerabilities when pushed."""

from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    if (props.get("imageScanningConfiguration") or {}).get("scanOnPush") is not True:
        yield "imageScanningConfiguration.scanOnPush is not true"


RULE = ResourceRule(
    description="ECR repositories must scan images on push.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub ECR.1",
        "hipaa": HIPAA.format("164.308(a)(1)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.5 恶意代码防范"),
    },
    remediation="Set imageScanningConfiguration.scanOnPush: true (or a registry-level enhanced scanning rule).",
    url=SECURITY_HUB.format("ecr"),
    types=("aws:ecr/repository:Repository",),
    check=check,
)
