"""A consumer's own program: a GPU node group and a data bucket from the installed package, on its own provider."""

import pulumi
import pulumi_aws as aws
from blueprints.components.aws.node_group import GpuNodeGroup, NodeGroupArgs
from blueprints.components.aws.storage import BucketArgs, DataBucket

deployer = aws.Provider(
    "deployer", region="eu-west-1", assume_roles=[{"role_arn": "arn:aws:iam::111122223333:role/deployer"}]
)
opts = pulumi.ResourceOptions(provider=deployer)
DataBucket("datasets", BucketArgs(kms_key_arn="arn:aws:kms:eu-west-1:111122223333:key/k", protect=True, tags={}), opts)
GpuNodeGroup(
    "l4",
    NodeGroupArgs(
        cluster_name="ml",
        kubernetes_version="1.33",
        node_role_arn="arn:aws:iam::111122223333:role/nodes",
        instance_type="g6.12xlarge",
        subnet_ids=["subnet-1"],
        security_group_ids=["sg-1"],
        kms_key_arn="arn:aws:kms:eu-west-1:111122223333:key/k",
        min_nodes=0,
        desired_nodes=0,
        max_nodes=2,
        labels={},
        root_volume_gib=200,
        tags={},
    ),
    opts,
)
