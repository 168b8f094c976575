"""Container Registry Enterprise Edition (ACR EE) instances keep their image security scanner on.

pulumi-alicloud 4.0.0 ``cr.RegistryEnterpriseInstance.imageScanner``: "ACR" (the Trivy engine, used by default),
"SAS" (Security Center's enhanced engine) or "DISABLE", which turns scanning off for every image the instance holds;
which images are scanned and when is a ``cr.ScanRule``. No Alibaba Cloud Config managed rule for ACR scanning was
found (Config rule search, 2026-11-27); Checkov has no check on ACR.
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if str(props.get("imageScanner") or "").upper() == "DISABLE":
        yield "imageScanner is DISABLE: images pushed to the registry are never scanned for known vulnerabilities"


RULE = ResourceRule(
    description="ACR Enterprise Edition instances must keep an image security scanner (ACR or SAS).",
    severity="medium",
    references={
        "baseline": "Alibaba Cloud Container Registry: image security scanning (counterpart of AWS Security Hub ECR.1)",
        "hipaa": HIPAA.format("164.308(a)(1)(ii)(B)"),
        "mlps": MLPS.format("8.1.4.4 入侵防范 e), 8.1.4.5 恶意代码防范"),
    },
    remediation="Leave imageScanner unset (ACR, Trivy) or set it to SAS; add a cr.ScanRule (triggerType AUTO) for "
    "the namespaces your cluster pulls from.",
    url="https://www.alibabacloud.com/help/en/acr/developer-reference/api-cr-2018-12-01-createscanrule",
    types=("alicloud:cr/registryEnterpriseInstance:RegistryEnterpriseInstance",),
    check=check,
)
