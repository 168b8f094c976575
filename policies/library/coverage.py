"""Coverage beside Checkov, per resource type: which of our rules judge it, which Checkov checks do, what neither does.

Our rules come from the registry (each rule's ``types``); Checkov's from benchmarks/data/checkov-<version>-checks.json,
written by benchmarks/checkov_checks.py from the installed Checkov's registries. ``neither`` names controls of the
catalogues our rules cite (AWS Security Hub FSBP, CIS Kubernetes, Pod Security Standards) that no rule of ours and
no Checkov check listed for the type implements; "not assessed" where nobody has gone through that service's
controls yet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .kubernetes.pods import WORKLOAD_TYPES

CHECKOV_DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "checkov-3.3.30-checks.json"
RBAC = "kubernetes:rbac.authorization.k8s.io/v1"


@dataclass(frozen=True)
class Row:
    title: str
    types: tuple[str, ...]  # Pulumi type tokens our rules judge
    checkov: tuple[str, ...]  # Checkov resource types: Terraform types, or Kubernetes kinds prefixed "k8s:"
    neither: str
    stack_rules: tuple[str, ...] = ()  # stack rules (they declare no types) that judge this type


ROWS = (
    Row(
        "Pods and every workload's pod template",
        WORKLOAD_TYPES,
        ("k8s:Pod", "k8s:Deployment", "k8s:DaemonSet", "k8s:StatefulSet", "k8s:Job", "k8s:CronJob"),
        "Checkov's Kubernetes registry has no JobSet, MPIJob, PyTorchJob or TFJob kind (ours reads their templates); "
        "neither reads the image's own USER, so a runAsNonRoot pod whose image runs as root fails only at start",
    ),
    Row(
        "PersistentVolume",
        ("kubernetes:core/v1:PersistentVolume",),
        (),
        "nfs/iscsi PersistentVolumes without mount options or export restrictions",
    ),
    Row(
        "Role, ClusterRole",
        (f"{RBAC}:Role", f"{RBAC}:ClusterRole"),
        ("k8s:Role", "k8s:ClusterRole"),
        "pods/exec and nodes/proxy grants",
    ),
    Row(
        "RoleBinding, ClusterRoleBinding",
        (f"{RBAC}:RoleBinding", f"{RBAC}:ClusterRoleBinding"),
        ("k8s:RoleBinding", "k8s:ClusterRoleBinding"),
        "bindings to system:authenticated or system:unauthenticated",
    ),
    Row("ServiceAccount", ("kubernetes:core/v1:ServiceAccount",), ("k8s:ServiceAccount",), "none found"),
    Row(
        "ECR repository, repository policy",
        ("aws:ecr/repository:Repository", "aws:ecr/repositoryPolicy:RepositoryPolicy"),
        ("aws_ecr_repository", "aws_ecr_repository_policy"),
        "ECR.3 (a lifecycle policy: Checkov has no check on aws_ecr_lifecycle_policy)",
    ),
    Row(
        "Load balancers (ALB, NLB, Classic)",
        ("aws:lb/loadBalancer:LoadBalancer", "aws:alb/loadBalancer:LoadBalancer", "aws:elb/loadBalancer:LoadBalancer"),
        ("aws_lb", "aws_alb", "aws_elb"),
        "ELB.7 (Classic connection draining)",
    ),
    Row(
        "Load balancer listeners",
        ("aws:lb/listener:Listener", "aws:alb/listener:Listener"),
        ("aws_lb_listener", "aws_alb_listener"),
        "none found",
    ),
    Row("ECS service", ("aws:ecs/service:Service",), ("aws_ecs_service",), "none found"),
    Row(
        "ECS task definition",
        ("aws:ecs/taskDefinition:TaskDefinition",),
        ("aws_ecs_task_definition",),
        "none found",
    ),
    Row("SageMaker model", ("aws:sagemaker/model:Model",), ("aws_sagemaker_model",), "none found"),
    Row(
        "SageMaker endpoint configuration",
        ("aws:sagemaker/endpointConfiguration:EndpointConfiguration",),
        ("aws_sagemaker_endpoint_configuration",),
        "SageMaker.4 (more than one initial instance per production variant)",
    ),
    Row(
        "Redshift cluster",
        ("aws:redshift/cluster:Cluster", "aws:redshift/parameterGroup:ParameterGroup"),
        ("aws_redshift_cluster", "aws_redshift_parameter_group"),
        "Redshift.8 (default admin username awsuser; Checkov CKV_AWS_391 only with public access)",
        ("aws-redshift-cluster-audit-logging",),
    ),
    Row(
        "RDS instance, cluster",
        ("aws:rds/instance:Instance", "aws:rds/cluster:Cluster", "aws:rds/clusterInstance:ClusterInstance"),
        ("aws_db_instance", "aws_rds_cluster", "aws_rds_cluster_instance"),
        "RDS.15 (cluster Multi-AZ), RDS.17 (instance copies tags to snapshots), RDS.23 (engine default port), "
        "RDS.24/RDS.25 (default admin user name); RDS.4 (snapshot encryption) is no input: a snapshot inherits its "
        "source's encryption",
    ),
    Row(
        "OpenSearch domain",
        ("aws:opensearch/domain:Domain",),
        ("aws_opensearch_domain", "aws_elasticsearch_domain"),
        "Opensearch.6 (three data nodes with zone awareness), Opensearch.7 (fine-grained access control); "
        "aws:elasticsearch/domain (the ES.* controls) is judged by neither of our rules",
    ),
    Row(
        "Lambda function, permission",
        ("aws:lambda/function:Function", "aws:lambda/permission:Permission"),
        ("aws_lambda_function", "aws_lambda_permission"),
        "Lambda.5 (VPC functions in two Availability Zones: the subnets' zones are not function inputs)",
    ),
    Row(
        "API Gateway stage, method, method settings",
        (
            "aws:apigateway/stage:Stage",
            "aws:apigateway/method:Method",
            "aws:apigateway/methodSettings:MethodSettings",
            "aws:apigatewayv2/stage:Stage",
        ),
        (
            "aws_api_gateway_stage",
            "aws_api_gateway_method",
            "aws_api_gateway_method_settings",
            "aws_apigatewayv2_stage",
        ),
        "APIGateway.2 (backend client certificate), APIGateway.8 (V2 routes without an authorization type)",
        ("aws-apigateway-stage-execution-logging", "aws-apigateway-stage-waf", "aws-apigateway-method-authorized"),
    ),
    Row(
        "CloudFront distribution",
        ("aws:cloudfront/distribution:Distribution",),
        ("aws_cloudfront_distribution",),
        "CloudFront.7 (custom certificate), CloudFront.8 (SNI), CloudFront.9 (HTTPS to custom origins), "
        "CloudFront.10 (SSLv3 to custom origins), CloudFront.13 (origin access control); CloudFront.12 (an S3 "
        "origin whose bucket does not exist) needs the account's state",
    ),
    Row(
        "EFS file system, access point",
        ("aws:efs/fileSystem:FileSystem", "aws:efs/accessPoint:AccessPoint"),
        ("aws_efs_file_system", "aws_efs_access_point"),
        "none found (EFS.2 through a tag-based aws.backup.Selection is not judged)",
        ("aws-efs-file-system-backed-up",),
    ),
    Row(
        "DynamoDB table",
        ("aws:dynamodb/table:Table",),
        ("aws_dynamodb_table",),
        "DynamoDB.3 (DAX cluster encryption: aws:dax/cluster, no rule of ours)",
        ("aws-dynamodb-table-scales-with-demand",),
    ),
    Row(
        "SQS queue, SNS topic",
        ("aws:sqs/queue:Queue", "aws:sns/topic:Topic"),
        ("aws_sqs_queue", "aws_sns_topic"),
        "SNS.2 (delivery-status logging through the topic's feedback roles)",
    ),
)


def checkov_checks(resource_types: tuple[str, ...]) -> list[str]:
    """Checkov check ids for the given types, as the recorded Checkov version registers them."""
    data = json.loads(CHECKOV_DATA.read_text(encoding="utf-8"))["checks"]
    ids: set[str] = set()
    for resource_type in resource_types:
        framework, name = (
            ("kubernetes", resource_type[4:]) if resource_type.startswith("k8s:") else ("terraform", resource_type)
        )
        ids.update(check_id for check_id, _ in data.get(framework, {}).get(name, []))
    return sorted(ids, key=lambda i: (i.rsplit("_", 1)[0], int(i.rsplit("_", 1)[1])))
