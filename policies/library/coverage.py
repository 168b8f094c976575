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


# Alibaba Cloud types, judged against Alibaba Cloud Config's managed rules and MLPS 2.0 level 3 (GB/T 22239-2019 clause
# 8) rather than the FSBP. Checkov's column names the Terraform types pulumi-alicloud bridges to these tokens
# (pulumi/pulumi-alicloud provider/resources.go: alicloud_db_instance -> rds.Instance, alicloud_cr_ee_repo ->
# cs.RegistryEnterpriseRepo, ...). ``neither``: Config rules and MLPS controls for the type that no rule of ours
# and no Checkov check implements; "not assessed" where nobody has gone through that service's Config rules yet.
ALICLOUD_ROWS = (
    Row(
        "ApsaraDB RDS instance",
        ("alicloud:rds/instance:Instance",),
        ("alicloud_db_instance",),
        "Config rds-public-access-check (the public endpoint is an `rds.Connection`); the TLS version of "
        "rds-instance-tls-version-check (an engine parameter, not an input of the instance)",
    ),
    Row(
        "SLB (CLB) listener",
        ("alicloud:slb/listener:Listener",),
        ("alicloud_slb_listener", "alicloud_slb_tls_cipher_policy"),
        "CLB access logs (MLPS 8.1.3.5: pulumi-alicloud 4.0.0 has no resource or input for them)",
    ),
    Row(
        "ALB listener, forwarding rule",
        ("alicloud:alb/listener:Listener", "alicloud:alb/rule:Rule"),
        ("alicloud_alb_listener", "alicloud_alb_rule", "alicloud_alb_acl_entry_attachment"),
        "the TLS version of an HTTPS listener's security policy (securityPolicyId names a policy)",
        ("alicloud-alb-listener-https",),
    ),
    Row(
        "ALB instance",
        (
            "alicloud:alb/loadBalancer:LoadBalancer",
            "alicloud:alb/loadBalancerAccessLogConfigAttachment:LoadBalancerAccessLogConfigAttachment",
        ),
        ("alicloud_alb_load_balancer", "alicloud_alb_load_balancer_access_log_config_attachment"),
        "not assessed",
        ("alicloud-alb-load-balancer-access-logs",),
    ),
    Row("API Gateway API", ("alicloud:apigateway/api:Api",), ("alicloud_api_gateway_api",), "not assessed"),
    Row(
        "Container Registry instance, repository, namespace, endpoint ACL",
        (
            "alicloud:cr/registryEnterpriseInstance:RegistryEnterpriseInstance",
            "alicloud:cs/registryEnterpriseRepo:RegistryEnterpriseRepo",
            "alicloud:cs/registryEnterpriseNamespace:RegistryEnterpriseNamespace",
            "alicloud:cr/repo:Repo",
            "alicloud:cr/namespace:Namespace",
            "alicloud:cr/endpointAclPolicy:EndpointAclPolicy",
            "alicloud:cr/internetEndpoint:InternetEndpoint",
        ),
        ("alicloud_cr_ee_repo", "alicloud_cr_ee_namespace", "alicloud_cr_repo", "alicloud_cr_namespace"),
        "which repositories a `cr.ScanRule` scans and when (triggerType): the scanner being on is judged, its "
        "scope is not",
    ),
    Row(
        "Function Compute service, function",
        ("alicloud:fc/service:Service", "alicloud:fc/v3Function:V3Function"),
        ("alicloud_fc_service", "alicloud_fcv3_function"),
        "not assessed",
    ),
    Row(
        "Tablestore instance, table",
        ("alicloud:ots/instance:Instance", "alicloud:ots/table:Table"),
        ("alicloud_ots_instance", "alicloud_ots_table"),
        "not assessed",
    ),
    Row(
        "Simple Message Queue (MNS) queue",
        ("alicloud:message/serviceQueue:ServiceQueue",),
        ("alicloud_message_service_queue",),
        "not assessed",
    ),
    Row(
        "OSS bucket, ACL, policy, logging",
        (
            "alicloud:oss/bucket:Bucket",
            "alicloud:oss/bucketAcl:BucketAcl",
            "alicloud:oss/bucketPolicy:BucketPolicy",
            "alicloud:oss/bucketLogging:BucketLogging",
        ),
        ("alicloud_oss_bucket",),
        "not assessed",
        ("alicloud-oss-bucket-access-logged", "alicloud-oss-bucket-private", "alicloud-oss-bucket-tls-only"),
    ),
    Row("KMS key", ("alicloud:kms/key:Key",), ("alicloud_kms_key",), "not assessed"),
    Row(
        "ECS disk, instance, launch template",
        (
            "alicloud:ecs/disk:Disk",
            "alicloud:ecs/ecsDisk:EcsDisk",
            "alicloud:ecs/instance:Instance",
            "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
        ),
        ("alicloud_disk", "alicloud_ecs_disk", "alicloud_instance", "alicloud_ecs_launch_template"),
        "not assessed (launch templates' data disks: Checkov only, CKV_ALI_32)",
    ),
    Row(
        "Security group rule",
        ("alicloud:ecs/securityGroupRule:SecurityGroupRule",),
        ("alicloud_security_group_rule",),
        "not assessed",
    ),
    Row("ActionTrail trail", ("alicloud:actiontrail/trail:Trail",), ("alicloud_actiontrail_trail",), "not assessed"),
    Row(
        "ACK cluster, node pool",
        ("alicloud:cs/managedKubernetes:ManagedKubernetes", "alicloud:cs/nodePool:NodePool"),
        ("alicloud_cs_kubernetes", "alicloud_cs_managed_kubernetes", "alicloud_cs_kubernetes_node_pool"),
        "not assessed",
    ),
    Row(
        "NAS file system",
        ("alicloud:nas/fileSystem:FileSystem",),
        ("alicloud_nas_file_system",),
        "not assessed",
    ),
    Row(
        "SLS logstore, log audit",
        ("alicloud:log/store:Store", "alicloud:log/audit:Audit"),
        ("alicloud_log_store", "alicloud_log_audit"),
        "not assessed",
    ),
    Row(
        "VPC",
        ("alicloud:vpc/network:Network",),
        ("alicloud_vpc",),
        "not assessed",
        ("alicloud-vpc-network-flow-logs-enabled",),
    ),
    Row(
        "RAM policy, role, account password policy, security preference",
        (
            "alicloud:ram/policy:Policy",
            "alicloud:ram/role:Role",
            "alicloud:ram/accountPasswordPolicy:AccountPasswordPolicy",
            "alicloud:ram/securityPreference:SecurityPreference",
        ),
        (
            "alicloud_ram_policy",
            "alicloud_ram_role",
            "alicloud_ram_account_password_policy",
            "alicloud_ram_security_preference",
        ),
        "not assessed (password policy and MFA: Checkov only, CKV_ALI_13 to CKV_ALI_24)",
    ),
    Row(
        "ApsaraDB for MongoDB instance",
        ("alicloud:mongodb/instance:Instance",),
        ("alicloud_mongodb_instance",),
        "not assessed (VPC, SSL, not public, TDE: Checkov only, CKV_ALI_41 to CKV_ALI_44)",
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
