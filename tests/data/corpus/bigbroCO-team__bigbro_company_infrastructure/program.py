"""Restated from bigbroCO-team/bigbro_company_infrastructure aws/ (see annotations.yaml); the VPC, subnets, key pair
and certificate come from modules not restated here, so their ids are literals."""

import pulumi_aws as aws

tags = {"Project": "bigbro"}
group = aws.ec2.SecurityGroup(
    "bigbro-sg",
    vpc_id="vpc-0bigbro",
    ingress=[{"protocol": "tcp", "from_port": p, "to_port": p, "cidr_blocks": ["0.0.0.0/0"]} for p in (22, 80, 443)],
    egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}],
    tags={**tags, "Name": "bigbro-sg"},
)
server = aws.ec2.Instance(
    "bigbro-ec2",
    ami="ami-0ubuntu24",
    instance_type="t2.micro",
    key_name="bigbro-key",
    subnet_id="subnet-0public1",
    vpc_security_group_ids=[group.id],
    associate_public_ip_address=True,
    tags={**tags, "Name": "bigbro-ec2"},
)
alb = aws.lb.LoadBalancer(
    "bigbro-alb",
    internal=False,
    load_balancer_type="application",
    subnets=["subnet-0public1", "subnet-0public2"],
    enable_deletion_protection=True,
    tags={**tags, "Name": "bigbro-elb"},
)
target = aws.lb.TargetGroup("alb-target-group", name="alb-target-group", vpc_id="vpc-0bigbro", port=80, protocol="HTTP")
aws.lb.TargetGroupAttachment("alb-target-group-attachment", target_group_arn=target.arn, target_id=server.id, port=80)
aws.lb.Listener(
    "alb-listener-https",
    load_balancer_arn=alb.arn,
    port=443,
    protocol="HTTPS",
    certificate_arn="arn:aws:acm:us-east-1:111122223333:certificate/bigbro",
    default_actions=[{"type": "forward", "target_group_arn": target.arn}],
)
aws.lb.Listener(
    "alb-listener-http",
    load_balancer_arn=alb.arn,
    port=80,
    protocol="HTTP",
    default_actions=[{"type": "redirect", "redirect": {"port": "443", "protocol": "HTTPS", "status_code": "HTTP_301"}}],
)
bucket = aws.s3.Bucket("bigbro-s3", bucket="bigbro-s3", acl="public-read", tags={**tags, "Name": "bigbro-ec2"})
aws.s3.BucketPublicAccessBlock(
    "s3-public-access-block",
    bucket=bucket.id,
    block_public_acls=False,
    block_public_policy=False,
    ignore_public_acls=False,
    restrict_public_buckets=False,
)
aws.s3.BucketOwnershipControls(
    "ownership-controls", bucket=bucket.id, rule={"object_ownership": "BucketOwnerPreferred"}
)
aws.s3.BucketAcl("s3-acl", bucket=bucket.id, acl="public-read")
