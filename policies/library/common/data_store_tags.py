"""Data stores carry tags that record what the data is, why it is kept and who answers for it."""

from ..props import merged_tags
from ..refs import GDPR
from ..rule import ResourceRule

DATA_STORES = (
    "aws:s3/bucket:Bucket",
    "aws:fsx/lustreFileSystem:LustreFileSystem",
    "aws:ebs/volume:Volume",
    "aws:efs/fileSystem:FileSystem",
    "alicloud:oss/bucket:Bucket",
    "alicloud:nas/fileSystem:FileSystem",
    "alicloud:ecs/ecsDisk:EcsDisk",
)


def check(props, config, args):
    tags = merged_tags(props, args.provider)
    missing = [k for k in config["requiredTags"] if not tags.get(k)]
    if missing:
        yield f"missing tags: {', '.join(missing)}"


RULE = ResourceRule(
    description="Data stores must be tagged with data classification, purpose and owner.",
    severity="medium",
    references={"gdpr": GDPR.format("Art. 30(1)(b)-(c), Art. 5(2)")},
    remediation="Add the tags to the resource or to the stack's tags (AWS provider default tags count).",
    url="https://eur-lex.europa.eu/eli/reg/2016/679/oj",
    config={
        "requiredTags": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["data-classification", "purpose", "owner"],
            "description": "Tag keys every data store must carry.",
        }
    },
    types=DATA_STORES,
    check=check,
)
