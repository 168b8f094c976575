"""Restated from junoteam/pulumi-demo-repo rds/rds.py and s3/s3.py (see annotations.yaml), with stack config values
written in (engine, sizes, one bucket name) and the VPC and subnets as literals; eks/ uses pulumi_eks, which the
offline runner does not model, and is left out."""

import pulumi_aws as aws

tags = {"ManagedBy": "Pulumi"}
group = aws.ec2.SecurityGroup(
    "pulumi-rds-sg",
    vpc_id="vpc-0juno",
    description="Allow inbound traffic for RDS",
    egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}],
    ingress=[
        {
            "protocol": "tcp",
            "from_port": 3306,
            "to_port": 3306,
            "cidr_blocks": ["10.0.3.0/24", "10.0.4.0/24", "10.0.5.0/24"],
        }
    ],
    tags={**tags, "Name": "pulumi-rds-sg"},
)
subnets = aws.rds.SubnetGroup(
    "pulumi-rds-subnet-group", subnet_ids=["subnet-0a", "subnet-0b"], tags={**tags, "Name": "pulumi-rds-subnet-group"}
)
aws.rds.Instance(
    "pulumi-rds-instance",
    db_name="pulumi_created_db",
    allocated_storage=20,
    storage_type="gp3",
    engine="mysql",
    db_subnet_group_name=subnets.name,
    deletion_protection=True,
    publicly_accessible=False,
    vpc_security_group_ids=[group.id],
    multi_az=False,
    engine_version="8.0",
    instance_class="db.t3.micro",
    parameter_group_name="default.mysql8.0",
    password="from-stack-secret",
    skip_final_snapshot=True,
    auto_minor_version_upgrade=True,
    tags={**tags, "Name": "pulumi-rds-db", "Environment": "dev"},
    username="admin",
)
aws.s3.Bucket("artifacts-3k9x2m7q", versioning={"enabled": True})
