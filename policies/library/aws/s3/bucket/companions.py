"""S3 settings live in companion resources (pulumi-aws v7): find each bucket's companions."""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from pulumi_policy import PolicyResource

from ....props import attached, of_type

BUCKET = "aws:s3/bucket:Bucket"


def buckets_with(resources: Sequence[PolicyResource], companion_type: str) -> Iterator[tuple[PolicyResource, list]]:
    """Every bucket with the companions of ``companion_type`` whose ``bucket`` input came from it."""
    companions = of_type(resources, companion_type)
    for bucket in of_type(resources, BUCKET):
        yield bucket, attached(bucket, companions, "bucket")


def missing(bucket: PolicyResource, what: str) -> tuple[str, str]:
    return f"bucket {bucket.name} has no {what}", bucket.urn


def first_failure(bucket: PolicyResource, companions: Iterable[PolicyResource], ok, what: str):
    """(message, urn) when no companion satisfies ``ok``; None when one does."""
    companions = list(companions)
    if not companions:
        return missing(bucket, what)
    if not any(ok(c.props) for c in companions):
        return f"bucket {bucket.name}: {what} is not as required", bucket.urn
    return None
