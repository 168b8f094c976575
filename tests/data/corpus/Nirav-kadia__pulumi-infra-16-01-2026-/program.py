"""Restated from Nirav-kadia/pulumi-infra-16-01-2026- infra/ (see annotations.yaml)."""

import json

import pulumi
import pulumi_aws as aws

vpc = aws.ec2.Vpc("django-vpc", cidr_block="10.0.0.0/16", enable_dns_support=True, enable_dns_hostnames=True)
aws.ec2.Subnet("public-subnet", vpc_id=vpc.id, cidr_block="10.0.1.0/24", map_public_ip_on_launch=True)
private = aws.ec2.Subnet("private-subnet", vpc_id=vpc.id, cidr_block="10.0.2.0/24")
aws.ec2.InternetGateway("igw", vpc_id=vpc.id)
group = aws.ec2.SecurityGroup(
    "ecs-sg",
    vpc_id=vpc.id,
    ingress=[{"protocol": "tcp", "from_port": 8000, "to_port": 8000, "cidr_blocks": ["0.0.0.0/0"]}],
    egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}],
)
db = aws.rds.Instance(
    "django-db",
    engine="postgres",
    engine_version="13.20",
    instance_class="db.t3.micro",
    allocated_storage=20,
    db_name="djangodb",
    username="django",
    password="supersecret",
    skip_final_snapshot=True,
    publicly_accessible=False,
)
repo = aws.ecr.Repository("django-repo")
role = aws.iam.Role(
    "ecs-execution-role",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"Service": "ecs-tasks.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ],
        }
    ),
)
aws.iam.RolePolicyAttachment(
    "ecs-task-exec-policy",
    role=role.name,
    policy_arn="arn:aws:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy",
)
cluster = aws.ecs.Cluster("django-cluster")


def containers(args):
    image, host = args
    env = {"DB_HOST": host, "DB_NAME": "djangodb", "DB_USER": "django", "DB_PASSWORD": "supersecret"}
    return json.dumps(
        [
            {
                "name": "django",
                "image": f"{image}:latest",
                "portMappings": [{"containerPort": 8000, "protocol": "tcp"}],
                "essential": True,
                "environment": [{"name": k, "value": v} for k, v in env.items()],
            }
        ]
    )


task = aws.ecs.TaskDefinition(
    "django-task",
    family="django-task",
    cpu="256",
    memory="512",
    network_mode="awsvpc",
    requires_compatibilities=["FARGATE"],
    execution_role_arn=role.arn,
    container_definitions=pulumi.Output.all(repo.repository_url, db.address).apply(containers),
)
aws.ecs.Service(
    "django-service",
    cluster=cluster.arn,
    task_definition=task.arn,
    desired_count=1,
    launch_type="FARGATE",
    network_configuration={"subnets": [private.id], "security_groups": [group.id], "assign_public_ip": False},
)
