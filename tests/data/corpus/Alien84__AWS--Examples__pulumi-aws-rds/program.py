"""Restated from Alien84/AWS--Examples pulumi-aws-rds/__main__.py (see annotations.yaml)."""

from pulumi_aws import rds

rds.Instance(
    "my-db-instance",
    allocated_storage=20,
    engine="postgres",
    engine_version="17.2",
    instance_class="db.t3.micro",
    db_name="mydatabase",
    username="admanijehmin",
    password="alien110Secure",
    publicly_accessible=True,
    skip_final_snapshot=True,
)
