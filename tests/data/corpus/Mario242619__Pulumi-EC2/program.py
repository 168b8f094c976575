"""Restated from Mario242619/Pulumi-EC2 __main__.py (see annotations.yaml); the AMI looked up there is a literal."""

import pulumi_aws as aws

group = aws.ec2.SecurityGroup(
    "Se-app",
    description="anything man",
    ingress=[{"protocol": "tcp", "from_port": 22, "to_port": 22, "cidr_blocks": ["0.0.0.0/0"]}],
)
aws.ec2.Instance(
    "Deora-test",
    instance_type="t2.micro",
    vpc_security_group_ids=[group.name],
    ami="ami-052efd3df9dad4825",
    key_name="acer1",
    user_data='"\n#!/bin/bash\nuname -n > index.html\nnohup python -m SimpleHTTPServer 80 &\n',
)
