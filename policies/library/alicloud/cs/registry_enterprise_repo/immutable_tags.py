"""ACR Enterprise Edition repositories have immutable tags, so a tag names one image forever.

pulumi-alicloud 4.0.0 ``cs.RegistryEnterpriseRepo.tagImmutability`` (a boolean): true refuses a push that would
move an existing tag to another image (every tag but ``latest``: Container Registry, "Configure a repository to be
immutable", https://alibabacloud.com/help/en/doc-detail/186029.html, read 2026-11-27); left out or false, a tag the
cluster deploys can be replaced underneath it.
"""

from ....props import truthy
from ....refs import MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if not truthy(props.get("tagImmutability")):
        yield "tagImmutability is not true: a pushed tag can be replaced by another image"


RULE = ResourceRule(
    description="ACR Enterprise Edition repositories must have immutable tags.",
    severity="medium",
    references={
        "baseline": "Alibaba Cloud Container Registry: tag immutability (counterpart of AWS Security Hub ECR.2)",
        "mlps": MLPS.format("8.1.4.7 数据完整性"),
    },
    remediation="Set tagImmutability: true (and deploy by digest).",
    url="https://alibabacloud.com/help/en/doc-detail/186029.html",
    types=("alicloud:cs/registryEnterpriseRepo:RegistryEnterpriseRepo",),
    check=check,
)
