"""Restated from Sajjadkhan12/my-learning-resources pulumi-learning/__main__.py (see annotations.yaml)."""

from pulumi_aws import ec2, s3

s3.Bucket("my-bucket")
group = ec2.SecurityGroup("web-server-sg", description="Security group for web server")
for name, low, high, protocol in (("AllowSSH", 22, 22, "tcp"), ("AllowHTTP", 80, 80, "tcp"), ("AllowALL", 0, 0, "-1")):
    ec2.SecurityGroupRule(
        name,
        type="ingress",
        from_port=low,
        to_port=high,
        protocol=protocol,
        cidr_blocks=["0.0.0.0/0"],
        security_group_id=group.id,
    )
ec2.Instance(
    "web-server",
    ami="ami-053b0d53c279acc90",
    instance_type="t3.nano",
    key_name="linux_key",
    tags={"Name": "web"},
    vpc_security_group_ids=[group.id],
)
