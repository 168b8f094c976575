"""What Karpenter needs from AWS on EKS: the controller's role (IRSA, least privilege), its interruption queue and the
EventBridge rules that feed it, and the access entry that lets the nodes it launches join the cluster.

The role's grants are AWS's own, statement for statement, from the CloudFormation template Karpenter's getting-started
guide deploys at the pinned release: aws/karpenter-provider-aws tag v1.14.1 (commit bde00654),
website/content/en/docs/getting-started/getting-started-with-karpenter/cloudformation.yaml, the managed policies
KarpenterControllerNodeLifecyclePolicy, ...IAMIntegrationPolicy, ...EKSIntegrationPolicy, ...InterruptionPolicy,
...ResourceDiscoveryPolicy. Each stays a policy document of its own (one inline policy each), as AWS splits them.
Left out: ZonalShiftPolicy (arc-zonal-shift:GetManagedResource, read only with the chart's zonal-shift support
turned on; the chart here leaves it off). The queue, its policy and the five rules follow the same template's
KarpenterInterruptionQueue, KarpenterInterruptionQueuePolicy and *Rule resources; the queue policy here admits
only EventBridge, and only from these rules (the template also lets sqs.amazonaws.com send).
"""

from dataclasses import dataclass, field
from typing import Mapping, Optional

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..policy_document import Statement, policy_json
from .iam import WorkloadRole, WorkloadRoleArgs

SERVICE_ACCOUNT = "karpenter"
"""The chart's ServiceAccount (the release is named karpenter: its fullname)."""
NAMESPACE = "kube-system"
"""Where Karpenter's getting-started guide installs it (KARPENTER_NAMESPACE=kube-system)."""
# Interruption messages older than this are stale: the template's MessageRetentionPeriod.
QUEUE_RETENTION_SECONDS = 300
# EventBridge events Karpenter handles (the template's ScheduledChangeRule, SpotInterruptionRule, RebalanceRule,
# InstanceStateChangeRule and CapacityReservationInterruptionRule).
INTERRUPTION_EVENTS: Mapping[str, tuple[str, str]] = {
    "scheduled-change": ("aws.health", "AWS Health Event"),
    "spot-interruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "instance-state-change": ("aws.ec2", "EC2 Instance State-change Notification"),
    "reservation-interruption": ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
}


@dataclass(frozen=True)
class _Scope:
    """What the grants are scoped to: this cluster's tags, its region and account."""

    cluster: str
    region: str
    account_id: pulumi.Input[str]
    partition: pulumi.Input[str]

    def arn(self, service: str, resource: str, account: pulumi.Input[str] = "*") -> pulumi.Output[str]:
        return pulumi.Output.concat("arn:", self.partition, f":{service}:{self.region}:", account, ":", resource)

    def tagged(self) -> list[pulumi.Output[str]]:
        kinds = ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")
        return [self.arn("ec2", f"{kind}/*") for kind in kinds]

    @property
    def owned(self) -> dict[str, str]:
        return {f"aws:ResourceTag/kubernetes.io/cluster/{self.cluster}": "owned"}

    @property
    def request_owned(self) -> dict[str, str]:
        return {
            f"aws:RequestTag/kubernetes.io/cluster/{self.cluster}": "owned",
            "aws:RequestTag/eks:eks-cluster-name": self.cluster,
        }

    nodepool = {"StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}}
    request_nodepool = {"StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}}

    @property
    def region_tag(self) -> dict[str, str]:
        return {"aws:ResourceTag/topology.kubernetes.io/region": self.region}

    @property
    def request_region(self) -> dict[str, str]:
        return {"aws:RequestTag/topology.kubernetes.io/region": self.region}

    @property
    def profile(self) -> pulumi.Output[str]:
        return pulumi.Output.concat("arn:", self.partition, ":iam::", self.account_id, ":instance-profile/*")


def _node_lifecycle(c: _Scope) -> list[Statement]:
    """KarpenterControllerNodeLifecyclePolicy: launch, tag and terminate only what carries this cluster's tags."""
    return [
        Statement(
            sid="AllowScopedEC2InstanceAccessActions",
            actions=["ec2:RunInstances", "ec2:CreateFleet"],
            resources=[
                pulumi.Output.concat("arn:", c.partition, f":ec2:{c.region}::image/*"),
                pulumi.Output.concat("arn:", c.partition, f":ec2:{c.region}::snapshot/*"),
                c.arn("ec2", "security-group/*"),
                c.arn("ec2", "subnet/*"),
                c.arn("ec2", "capacity-reservation/*"),
                c.arn("ec2", "placement-group/*"),
            ],
        ),
        Statement(
            sid="AllowScopedEC2LaunchTemplateAccessActions",
            actions=["ec2:RunInstances", "ec2:CreateFleet"],
            resources=[c.arn("ec2", "launch-template/*")],
            conditions={"StringEquals": c.owned, **c.nodepool},
        ),
        Statement(
            sid="AllowScopedEC2InstanceActionsWithTags",
            actions=["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            resources=c.tagged(),
            conditions={"StringEquals": c.request_owned, **c.request_nodepool},
        ),
        Statement(
            sid="AllowScopedResourceCreationTagging",
            actions=["ec2:CreateTags"],
            resources=c.tagged(),
            conditions={
                "StringEquals": {
                    **c.request_owned,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                **c.request_nodepool,
            },
        ),
        Statement(
            sid="AllowScopedResourceTagging",
            actions=["ec2:CreateTags"],
            resources=[c.arn("ec2", "instance/*")],
            conditions={
                "StringEquals": c.owned,
                **c.nodepool,
                "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": c.cluster},
                "ForAllValues:StringEquals": {
                    "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                },
            },
        ),
        Statement(
            sid="AllowScopedDeletion",
            actions=["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            resources=[c.arn("ec2", "instance/*"), c.arn("ec2", "launch-template/*")],
            conditions={"StringEquals": c.owned, **c.nodepool},
        ),
    ]


def _iam_integration(c: _Scope, node_role_arn: pulumi.Input[str]) -> list[Statement]:
    """KarpenterControllerIAMIntegrationPolicy: pass only the node role; manage only its tagged instance profiles."""
    return [
        Statement(
            sid="AllowPassingInstanceRole",
            actions=["iam:PassRole"],
            resources=[node_role_arn],
            conditions={"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
        ),
        Statement(
            sid="AllowScopedInstanceProfileCreationActions",
            actions=["iam:CreateInstanceProfile"],
            resources=[c.profile],
            conditions={
                "StringEquals": {**c.request_owned, **c.request_region},
                "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        ),
        Statement(
            sid="AllowScopedInstanceProfileTagActions",
            actions=["iam:TagInstanceProfile"],
            resources=[c.profile],
            conditions={
                "StringEquals": {**c.owned, **c.region_tag, **c.request_owned, **c.request_region},
                "StringLike": {
                    "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                    "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*",
                },
            },
        ),
        Statement(
            sid="AllowScopedInstanceProfileActions",
            actions=[
                "iam:AddRoleToInstanceProfile",
                "iam:RemoveRoleFromInstanceProfile",
                "iam:DeleteInstanceProfile",
            ],
            resources=[c.profile],
            conditions={
                "StringEquals": {**c.owned, **c.region_tag},
                "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        ),
        Statement(sid="AllowInstanceProfileReadActions", actions=["iam:GetInstanceProfile"], resources=[c.profile]),
    ]


def _resource_discovery(c: _Scope) -> list[Statement]:
    """KarpenterControllerResourceDiscoveryPolicy: reads (Describe* take no resource), in this region."""
    return [
        Statement(
            sid="AllowRegionalReadActions",
            actions=[
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceStatus",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                "ec2:DescribePlacementGroups",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
            ],
            resources=["*"],
            conditions={"StringEquals": {"aws:RequestedRegion": c.region}},
        ),
        Statement(
            sid="AllowSSMReadActions",
            actions=["ssm:GetParameter"],
            # AWS's public parameters: the template writes no account (`::`); `*` matches the same parameters
            # (only AWS publishes under /aws/service/) in the ARN form IAM's reference gives for ssm:GetParameter.
            resources=[c.arn("ssm", "parameter/aws/service/*")],
        ),
        Statement(sid="AllowPricingReadActions", actions=["pricing:GetProducts"], resources=["*"]),
        Statement(sid="AllowUnscopedInstanceProfileListAction", actions=["iam:ListInstanceProfiles"], resources=["*"]),
    ]


def controller_policies(
    cluster: str,
    region: str,
    account_id: pulumi.Input[str],
    partition: pulumi.Input[str],
    node_role_arn: pulumi.Input[str],
    queue_arn: pulumi.Input[str],
) -> dict[str, list[Statement]]:
    """The controller's grants, by AWS's policy name, scoped to this cluster's tags, region and account."""
    c = _Scope(cluster, region, account_id, partition)
    return {
        "node-lifecycle": _node_lifecycle(c),
        "iam-integration": _iam_integration(c, node_role_arn),
        "eks-integration": [
            Statement(
                sid="AllowAPIServerEndpointDiscovery",
                actions=["eks:DescribeCluster"],
                resources=[c.arn("eks", f"cluster/{c.cluster}", account_id)],
            ),
        ],
        "interruption": [
            Statement(
                sid="AllowInterruptionQueueActions",
                actions=["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
                resources=[queue_arn],
            ),
        ],
        "resource-discovery": _resource_discovery(c),
    }


def queue_policy(queue_arn: pulumi.Input[str], rule_arns: list[pulumi.Input[str]]) -> pulumi.Output[str]:
    """Only these EventBridge rules may send to the queue, and nothing reaches it without TLS."""
    return policy_json(
        [
            Statement(
                sid="EventBridgeRulesSend",
                actions=["sqs:SendMessage"],
                principals={"Service": "events.amazonaws.com"},
                resources=[queue_arn],
                conditions={"ArnEquals": {"aws:SourceArn": rule_arns}},
            ),
            Statement(
                sid="DenyHTTP",
                effect="Deny",
                actions=["sqs:*"],
                principals={"AWS": "*"},
                resources=[queue_arn],
                conditions={"Bool": {"aws:SecureTransport": "false"}},
            ),
        ]
    )


@dataclass(frozen=True)
class KarpenterAwsArgs(Args):
    """The AWS side of Karpenter for one EKS cluster."""

    cluster_name: str
    """The EKS cluster's name: the tags Karpenter puts on what it launches, and that its grants are scoped to."""
    region: str
    """The cluster's region."""
    account_id: pulumi.Input[str]
    """The account's id."""
    node_role_arn: pulumi.Input[str]
    """The node role Karpenter's nodes run as (the only role it may pass to EC2)."""
    oidc_provider_arn: pulumi.Input[str]
    """The cluster's IAM OIDC provider (IRSA)."""
    oidc_issuer: pulumi.Input[str]
    """The cluster's OIDC issuer without https://."""
    partition: Optional[pulumi.Input[str]] = "aws"
    """The AWS partition; `aws` by default."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on every resource; none by default."""


class KarpenterAws(Component):
    """Karpenter's controller role (IRSA for kube-system/karpenter), its interruption queue (SQS-managed encryption,
    TLS only) with the EventBridge rules AWS documents, and the EC2_LINUX access entry for its nodes."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:KarpenterAws"
    role_arn: pulumi.Output[str]
    """The controller's role, for the ServiceAccount's `eks.amazonaws.com/role-arn` annotation."""
    queue_name: pulumi.Output[str]
    """The interruption queue (the chart's settings.interruptionQueue)."""

    def __init__(self, name: str, args: KarpenterAwsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(KarpenterAwsArgs, args)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        self._interruption_queue(name, args, tags, child)
        self.role = WorkloadRole(
            name,
            WorkloadRoleArgs(
                oidc_provider_arn=args.oidc_provider_arn,
                oidc_issuer=args.oidc_issuer,
                namespace=NAMESPACE,
                service_account=SERVICE_ACCOUNT,
                partition=args.partition,
                tags=tags,
            ),
            opts=child,
        )
        for policy, statements in controller_policies(
            args.cluster_name, args.region, args.account_id, args.partition, args.node_role_arn, self.queue.arn
        ).items():
            aws.iam.RolePolicy(f"{name}-{policy}", role=self.role.role.id, policy=policy_json(statements), opts=child)
        # Managed node groups add their role's access entry themselves; nodes Karpenter launches need one declared.
        # https://docs.aws.amazon.com/eks/latest/userguide/creating-access-entries.html (type EC2_LINUX)
        self.access_entry = aws.eks.AccessEntry(
            f"{name}-nodes",
            cluster_name=args.cluster_name,
            principal_arn=args.node_role_arn,
            type="EC2_LINUX",
            tags=tags,
            opts=child,
        )
        self.role_arn = self.role.arn
        self.queue_name = self.queue.name
        self.register_outputs({"role_arn": self.role_arn, "queue_name": self.queue_name})

    def _interruption_queue(
        self, name: str, args: KarpenterAwsArgs, tags: dict[str, str], child: pulumi.ResourceOptions
    ) -> None:
        """The queue (named after the cluster, as the template names it: QueueName ClusterName), its policy and the
        EventBridge rules that feed it."""
        self.queue = aws.sqs.Queue(
            f"{name}-interruption",
            name=f"{args.cluster_name}-karpenter",
            message_retention_seconds=QUEUE_RETENTION_SECONDS,
            sqs_managed_sse_enabled=True,
            tags=tags,
            opts=child,
        )
        rules = []
        for event, (source, detail_type) in INTERRUPTION_EVENTS.items():
            rule = aws.cloudwatch.EventRule(
                f"{name}-{event}",
                event_pattern=pulumi.Output.json_dumps({"source": [source], "detail-type": [detail_type]}),
                tags=tags,
                opts=child,
            )
            aws.cloudwatch.EventTarget(
                f"{name}-{event}",
                rule=rule.name,
                arn=self.queue.arn,
                target_id="KarpenterInterruptionQueueTarget",
                opts=child,
            )
            rules.append(rule.arn)
        aws.sqs.QueuePolicy(
            f"{name}-interruption", queue_url=self.queue.url, policy=queue_policy(self.queue.arn, rules), opts=child
        )
