"""Spot GPU nodes are reclaimed without warning: a stack that uses them needs durable checkpoint storage."""

from ..props import of_type
from ..rule import StackRule

DURABLE_STORES = (
    "aws:s3/bucket:Bucket",
    "aws:fsx/lustreFileSystem:LustreFileSystem",
    "aws:efs/fileSystem:FileSystem",
    "alicloud:oss/bucket:Bucket",
    "alicloud:nas/fileSystem:FileSystem",
)


def is_spot(group):
    if group.resource_type == "aws:eks/nodeGroup:NodeGroup":
        return group.props.get("capacityType") == "SPOT"
    return group.props.get("spotStrategy", "NoSpot") not in ("NoSpot", None)


def durable(store):
    deployment = str(store.props.get("deploymentType", ""))
    return not deployment.startswith("SCRATCH")


def check(resources, config):
    spot = [g for g in of_type(resources, "aws:eks/nodeGroup:NodeGroup", "alicloud:cs/nodePool:NodePool") if is_spot(g)]
    if spot and not any(durable(s) for s in of_type(resources, *DURABLE_STORES)):
        for group in spot:
            yield f"spot node group {group.name} has no durable store for checkpoints in the stack", group.urn


RULE = StackRule(
    description="Spot GPU node groups need a durable checkpoint store (object storage or a persistent file system).",
    severity="medium",
    references={"cost": "AWS EC2 User Guide: best practices for Spot Instances (prepare for interruptions)"},
    remediation="Enable object storage or a PERSISTENT file system for checkpoints, or use on-demand capacity.",
    url="https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-best-practices.html",
    types=("aws:eks/nodeGroup:NodeGroup", "alicloud:cs/nodePool:NodePool", *DURABLE_STORES),
    check=check,
)
