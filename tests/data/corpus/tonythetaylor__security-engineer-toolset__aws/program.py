"""Restated from tonythetaylor/security-engineer-toolset iac/pulumi/aws/main.py (see annotations.yaml)."""

import pulumi_aws as aws

vpc = aws.ec2.Vpc("secure-vpc", cidr_block="10.0.0.0/16", enable_dns_support=True, enable_dns_hostnames=True)
group = aws.ec2.SecurityGroup(
    "secure-sg",
    vpc_id=vpc.id,
    ingress=[{"protocol": "tcp", "from_port": 22, "to_port": 22, "cidr_blocks": ["203.0.113.0/32"]}],
)
aws.ec2.Instance(
    "secure-instance",
    ami="ami-0abcdef1234567890",
    instance_type="t3.micro",
    vpc_security_group_ids=[group.id],
    user_data=(
        "#!/bin/bash\napt update -y\napt install fail2ban -y\nsystemctl enable fail2ban\nsystemctl start fail2ban\n"
    ),
)
