"""Restated from Faucitas/pulumi-ecs-workshop __main__.py (see annotations.yaml); the default VPC and its subnets,
looked up there, are literals here."""

import pulumi_aws as aws

aws.ecs.Cluster("cluster")
group = aws.ec2.SecurityGroup(
    "web-secgrp",
    vpc_id="vpc-0default",
    description="Enable HTTP access",
    ingress=[
        {"protocol": "icmp", "from_port": 8, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]},
        {"protocol": "tcp", "from_port": 80, "to_port": 80, "cidr_blocks": ["0.0.0.0/0"]},
    ],
    egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}],
)
alb = aws.lb.LoadBalancer(
    "ap-1b",
    internal=False,
    security_groups=[group.id],
    subnets=["subnet-0default-a", "subnet-0default-b"],
    load_balancer_type="application",
)
target = aws.lb.TargetGroup(
    "app-tg", port=80, deregistration_delay=0, protocol="HTTP", target_type="ip", vpc_id="vpc-0default"
)
aws.lb.Listener(
    "web", load_balancer_arn=alb.arn, port=80, default_actions=[{"type": "forward", "target_group_arn": target.arn}]
)
