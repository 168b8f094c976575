"""Restated from bartoszlagoda/iac-labs-infra pulumi/zad1/__main__.py (see annotations.yaml); the page is a string
asset here."""

import pulumi
from pulumi_aws import s3

bucket = s3.Bucket("my-bucket", website={"index_document": "index.html"})
block = s3.BucketPublicAccessBlock("public-access-block", bucket=bucket.id, block_public_acls=False)
s3.BucketPolicy(
    "bucket-policy",
    bucket=bucket.id,
    policy=pulumi.Output.json_dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": "*",
                    "Action": ["s3:GetObject"],
                    "Resource": [pulumi.Output.format("arn:aws:s3:::{0}/*", bucket.id)],
                }
            ],
        }
    ),
    opts=pulumi.ResourceOptions(depends_on=[block]),
)
s3.BucketObject("index.html", content_type="text/html", bucket=bucket.id, source=pulumi.StringAsset("<html></html>"))
