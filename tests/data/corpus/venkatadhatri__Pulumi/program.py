"""Restated from venkatadhatri/Pulumi __main__.py (see annotations.yaml)."""

import pulumi_aws as aws

aws.ec2.Instance(
    "pulumi_test",
    instance_type="t2.micro",
    vpc_security_group_ids=["sg-0f2285ec2dbcee3af", "sg-0371f43c89390a1ed"],
    ami="ami-085925f297f89fce1",
    subnet_id="subnet-0a57be36cc1eaf5de",
    key_name="linux-ci",
    tags={"Name": "pulumi-test"},
)
