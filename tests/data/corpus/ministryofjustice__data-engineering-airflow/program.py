"""Restated from ministryofjustice/data-engineering-airflow infra/ (see annotations.yaml): the Kubernetes objects of
eks/namespaces/ and the bucket policy of s3.py. Left out: the EKS cluster and its provider (pulumi_eks, which the
offline runner does not model), the kube2iam Helm chart (a client-side Chart the runner cannot fetch) and the bucket
itself (a component of another package); the bucket name is a literal."""

import json

import pulumi_aws as aws
import pulumi_kubernetes as k8s

runners = k8s.core.v1.Namespace("github-actions", metadata={"name": "github-actions"})
account = k8s.core.v1.ServiceAccount(
    "github-actions-runner", metadata={"name": "github-actions-runner", "namespace": runners.metadata["name"]}
)
k8s.rbac.v1.ClusterRoleBinding(
    "github-actions-runner",
    metadata={"name": "github-actions-runner", "namespace": runners.metadata["name"]},
    subjects=[{"kind": "ServiceAccount", "name": account.metadata["name"], "namespace": account.metadata["namespace"]}],
    role_ref={"api_group": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
)
airflow = k8s.core.v1.Namespace(
    "airflow", metadata={"name": "airflow", "annotations": {"iam.amazonaws.com/allowed-roles": '["airflow*"]'}}
)
pod_resources = ["jobs", "pods", "pods/attach", "pods/exec", "pods/log", "pods/portforward", "secrets", "services"]
k8s.rbac.v1.Role(
    "airflow",
    metadata={"name": "mwaa-role", "namespace": airflow.metadata["name"]},
    rules=[
        {
            "api_groups": ["", "apps", "batch", "extensions"],
            "resources": pod_resources,
            "verbs": ["create", "describe", "delete", "get", "list", "patch", "update"],
        }
    ],
)
k8s.rbac.v1.RoleBinding(
    "airflow",
    metadata={"name": "mwaa-role-binding", "namespace": airflow.metadata["name"]},
    subjects=[{"kind": "User", "name": "mwaa-service"}],
    role_ref={"api_group": "rbac.authorization.k8s.io", "kind": "Role", "name": "mwaa-role"},
)
bucket = "mojap-airflow-dev"
statement = {
    "Sid": "AirflowBucketPolicy",
    "Effect": "Allow",
    "Principal": {"AWS": "arn:aws:iam::593291632749:role/data-ga-s3-sync"},
    "Action": ["s3:ListBucket", "s3:ListBucketMultipartUploads", "s3:ListBucketVersions"],
    "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"],
}
aws.s3.BucketPolicy(
    f"{bucket}-bucket-policy", bucket=bucket, policy=json.dumps({"Version": "2012-10-17", "Statement": statement})
)
