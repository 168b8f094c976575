"""Image tags cannot be overwritten, so a tag names one image forever."""

from ....refs import MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    mutability = props.get("imageTagMutability", "MUTABLE")
    if not str(mutability).startswith("IMMUTABLE"):
        yield f"imageTagMutability is {mutability}: a pushed tag can be replaced by another image"


RULE = ResourceRule(
    description="ECR repositories must have immutable tags.",
    severity="medium",
    references={"baseline": "AWS Security Hub ECR.2", "mlps": MLPS.format("8.1.4.7 数据完整性")},
    remediation="Set imageTagMutability: IMMUTABLE.",
    url=SECURITY_HUB.format("ecr"),
    types=("aws:ecr/repository:Repository",),
    check=check,
)
