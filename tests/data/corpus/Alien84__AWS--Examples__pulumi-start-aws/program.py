"""Restated from Alien84/AWS--Examples pulumi-start-aws/__main__.py (see annotations.yaml); BucketV2 and
BucketWebsiteConfigurationV2 are Bucket and BucketWebsiteConfiguration in pulumi-aws 7; the page is a string asset."""

import pulumi
from pulumi_aws import s3

bucket = s3.Bucket("my-bucket--aa04")
s3.BucketWebsiteConfiguration("website", bucket=bucket.id, index_document={"suffix": "index.html"})
ownership = s3.BucketOwnershipControls(
    "ownership-controls", bucket=bucket.id, rule={"object_ownership": "ObjectWriter"}
)
block = s3.BucketPublicAccessBlock("public-access-block", bucket=bucket.id, block_public_acls=False)
s3.BucketObject(
    "index.html",
    bucket=bucket.id,
    source=pulumi.StringAsset("<html></html>"),
    content_type="text/html",
    acl="public-read",
    opts=pulumi.ResourceOptions(depends_on=[ownership, block]),
)
