"""Restated from novandrautomo17/iaac-pulumi vpc.py, bastion_host.py and eks.py (see annotations.yaml); only the
resources those files declare that carry security settings, plus the VPC and public subnet they hang on."""

import json

import pulumi_aws as aws

vpc = aws.ec2.Vpc("my-vpc", cidr_block="10.0.0.0/16", enable_dns_support=True, enable_dns_hostnames=True)
public = aws.ec2.Subnet(
    "my-subnet-public",
    vpc_id=vpc.id,
    cidr_block="10.0.11.0/24",
    availability_zone="ap-southeast-3a",
    map_public_ip_on_launch=True,
)
private = [
    aws.ec2.Subnet(name, vpc_id=vpc.id, cidr_block=cidr, availability_zone=zone)
    for name, cidr, zone in (
        ("subnet-private-1", "10.0.31.0/24", "ap-southeast-3a"),
        ("subnet-private-2", "10.0.41.0/24", "ap-southeast-3b"),
    )
]
everything = [{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}]
aws.ec2.SecurityGroup(
    "eks-node-sg", vpc_id=vpc.id, description="Security group for EKS nodes", ingress=everything, egress=everything
)
bastion_sg = aws.ec2.SecurityGroup(
    "bastion-sg",
    vpc_id=vpc.id,
    description="Allow SSH inbound traffic",
    ingress=[{"from_port": 22, "to_port": 22, "protocol": "tcp", "cidr_blocks": ["0.0.0.0/0"]}],
    egress=everything,
)
aws.ec2.Instance(
    "my-bastion",
    instance_type="t2.micro",
    vpc_security_group_ids=[bastion_sg.id],
    ami="ami-07dbcf2a6e3b19f57",
    subnet_id=public.id,
    associate_public_ip_address=True,
    key_name="my-keypair",
)
statement = {"Action": "sts:AssumeRole", "Principal": {"Service": "eks.amazonaws.com"}, "Effect": "Allow", "Sid": ""}
role = aws.iam.Role("eks-role", assume_role_policy=json.dumps({"Version": "2012-10-17", "Statement": [statement]}))
for name, policy in (
    ("eks-cluster-policy", "AmazonEKSClusterPolicy"),
    ("eks-service-policy", "AmazonEKSServicePolicy"),
):
    aws.iam.RolePolicyAttachment(name, role=role.id, policy_arn=f"arn:aws:iam::aws:policy/{policy}")
subnets = [s.id for s in private]
cluster = aws.eks.Cluster("my-cluster", role_arn=role.arn, vpc_config={"subnet_ids": subnets})
aws.eks.NodeGroup(
    "my-node-group",
    cluster_name=cluster.name,
    node_role_arn=role.arn,
    subnet_ids=subnets,
    scaling_config={"desired_size": 2, "max_size": 3, "min_size": 1},
    disk_size=20,
)
