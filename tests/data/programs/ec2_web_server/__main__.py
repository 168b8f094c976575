"""A web server as public examples write it (one EC2 instance, HTTP and SSH open to the world, IMDSv1).

Written for the tests: the packs must judge programs that are not ours, and find on these resources what
is wrong with them.
"""

import pulumi
import pulumi_aws as aws

group = aws.ec2.SecurityGroup(
    "web-secgrp",
    description="Enable HTTP and SSH access",
    ingress=[
        {"protocol": "tcp", "from_port": 80, "to_port": 80, "cidr_blocks": ["0.0.0.0/0"]},
        {"protocol": "tcp", "from_port": 22, "to_port": 22, "cidr_blocks": ["0.0.0.0/0"]},
    ],
    egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}],
)

server = aws.ec2.Instance(
    "web-server",
    instance_type="t3.micro",
    ami="ami-0c55b159cbfafe1f0",
    vpc_security_group_ids=[group.id],
    associate_public_ip_address=True,
    metadata_options={"http_endpoint": "enabled", "http_tokens": "optional"},
    user_data="#!/bin/bash\necho 'Hello, World!' > index.html\nnohup python -m http.server 80 &\n",
    tags={"Name": "web-server"},
)

pulumi.export("public_ip", server.public_ip)
