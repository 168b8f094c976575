"""Restated from davidbegin/chat_thief infra/__main__.py (see annotations.yaml); commented-out settings there are
left out here too."""

import json

from pulumi_aws import acm, cloudfront, s3

bucket = s3.Bucket("beginworld.exchange", force_destroy=True)
statements = [
    {"Sid": "PublicAccess", "Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "s3:Get*"},
    {
        "Sid": "BeginWriteAccess",
        "Effect": "Allow",
        "Principal": {"AWS": "arn:aws:iam::851075464416:root"},
        "Action": "s3:Put*",
    },
]
s3.BucketPolicy(
    "beginworld-exchange-bucket-policy",
    bucket=bucket.id,
    policy=bucket.arn.apply(
        lambda arn: json.dumps(
            {
                "Version": "2012-10-17",
                "Id": "BeginWorldExchange",
                "Statement": [{**s, "Resource": f"{arn}/*"} for s in statements],
            }
        )
    ),
)
acm.Certificate("cert", domain_name="beginworld.exchange", tags={"Environment": "test"}, validation_method="DNS")
origin = "beginworld-exchange"
methods = ["GET", "HEAD", "OPTIONS"]


def behaviour(pattern, cached, ttl, max_ttl, headers=None):
    forwarded = {"cookies": {"forward": "none"}, "query_string": False, **({"headers": headers} if headers else {})}
    return {
        "allowed_methods": methods,
        "cached_methods": cached,
        "compress": True,
        "default_ttl": ttl,
        "forwarded_values": forwarded,
        "max_ttl": max_ttl,
        "min_ttl": 0,
        "path_pattern": pattern,
        "target_origin_id": origin,
        "viewer_protocol_policy": "redirect-to-https",
    }


cloudfront.Distribution(
    "s3Distribution",
    default_cache_behavior={
        "allowed_methods": methods,
        "cached_methods": ["GET", "HEAD"],
        "default_ttl": 3600,
        "forwarded_values": {"cookies": {"forward": "none"}, "query_string": False},
        "max_ttl": 86400,
        "min_ttl": 0,
        "target_origin_id": origin,
        "viewer_protocol_policy": "allow-all",
    },
    default_root_object="index.html",
    enabled=True,
    is_ipv6_enabled=True,
    ordered_cache_behaviors=[
        behaviour("/content/immutable/*", methods, 86400, 31536000, ["Origin"]),
        behaviour("/content/*", ["GET", "HEAD"], 3600, 86400),
    ],
    origins=[{"domain_name": bucket.bucket_regional_domain_name, "origin_id": origin}],
    restrictions={"geo_restriction": {"restriction_type": "none"}},
    viewer_certificate={},
)
