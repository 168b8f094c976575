"""A static website bucket as public examples write it: public access block off, s3:GetObject to everyone.

Written for the tests: the packs must find the public policy on the bucket policy and the open block on the
public access block itself.
"""

import json

import pulumi
import pulumi_aws as aws

site = aws.s3.Bucket("site-bucket")
aws.s3.BucketWebsiteConfiguration("site-website", bucket=site.id, index_document={"suffix": "index.html"})
public = aws.s3.BucketPublicAccessBlock(
    "site-public-access",
    bucket=site.id,
    block_public_acls=False,
    block_public_policy=False,
    ignore_public_acls=False,
    restrict_public_buckets=False,
)
aws.s3.BucketPolicy(
    "site-policy",
    bucket=site.id,
    policy=site.arn.apply(
        lambda arn: json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Sid": "PublicReadGetObject",
                        "Effect": "Allow",
                        "Principal": "*",
                        "Action": ["s3:GetObject"],
                        "Resource": [f"{arn}/*"],
                    }
                ],
            }
        )
    ),
    opts=pulumi.ResourceOptions(depends_on=[public]),
)

pulumi.export("website_url", site.bucket)
