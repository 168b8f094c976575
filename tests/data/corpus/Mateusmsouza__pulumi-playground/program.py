"""Restated from Mateusmsouza/pulumi-playground aws-ec2/__main__.py (see annotations.yaml); the Ubuntu AMI looked up
there is a literal."""

import pulumi_aws as aws

aws.ec2.Instance("web", ami="ami-0ubuntu-focal", instance_type="t3.micro", tags={"Name": "HelloWorld"})
