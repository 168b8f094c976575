"""Karpenter (upstream chart, pinned) on EKS, and one EC2NodeClass and one NodePool per GPU group.

With Karpenter the GPU groups are not managed node groups: Karpenter launches a node when a pod is pending and fits a
NodePool, and removes it when it is empty. Each GPU group becomes one EC2NodeClass (AMI family, subnets, security
groups, root volume, placement group, capacity reservation) and one NodePool (instance type, zone, capacity type,
the node contract's labels and taints, the group's GPU ceiling), so a pod written for the Cluster Autoscaler's
groups (nodeSelector gpu-blueprints/node-group, the GPU taint) lands the same way.

Gang safety. A running gang must not lose a pod to Karpenter's own disruption:
- consolidationPolicy WhenEmpty: a GPU node is only consolidated once no pod but DaemonSets runs there;
- a budget of 0 nodes for Drifted (and Underutilized) disruption: a drifted GPU node is not replaced under a job;
- expireAfter Never: expiry is a forceful method that budgets do not stop (disruption.md, "Expiration");
- no terminationGracePeriod, so a pod annotated `karpenter.sh/do-not-disrupt: "true"` blocks voluntary disruption
  of its node (the training examples set it on every pod of a gang).
Interruption (spot reclaim, scheduled maintenance, capacity-reservation end) is involuntary: Karpenter drains the node
ahead of it from the interruption queue; Kueue requeues the whole workload when a pod fails (waitForPodsReady).
Source: aws/karpenter-provider-aws v1.14.1 website/content/en/docs/concepts/disruption.md and
pkg/apis/crds/karpenter.sh_nodepools.yaml, karpenter.k8s.aws_ec2nodeclasses.yaml.
"""

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from ..base import KUBERNETES, Args, Component, as_args
from .charts import chart_release
from .nodes import GPU_RESOURCE, STARTUP_TAINT_PREFIX

NAMESPACE = "kube-system"
NODE_POOL_API = "karpenter.sh/v1"
NODE_CLASS_API = "karpenter.k8s.aws/v1"
NODE_POOL_TYPE = f"kubernetes:{NODE_POOL_API}:NodePool"
NODE_CLASS_TYPE = f"kubernetes:{NODE_CLASS_API}:EC2NodeClass"
"""The Pulumi type tokens of the two objects, as the offline plan reads them back."""
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
"""Pod annotation: Karpenter does not voluntarily disrupt (consolidate, drift) a node running such a pod."""
# How the spec's capacity maps to Karpenter's capacity types: ODCRs and capacity blocks are both `reserved`, selected
# by id through the EC2NodeClass's capacityReservationSelectorTerms (reservedCapacity feature gate, on by default at
# v1.14.1: charts/karpenter/values.yaml settings.featureGates).
CAPACITY_TYPES = {"on-demand": "on-demand", "spot": "spot", "reservation": "reserved", "capacity-block": "reserved"}


@dataclass(frozen=True)
class KarpenterPool(Args):
    """One GPU group as an EC2NodeClass and a NodePool."""

    name: str
    """The group's name: the NodePool's and EC2NodeClass's name."""
    instance_types: Sequence[str]
    """The instance types the pool may launch (the group's resolved shape)."""
    gpus: int
    """`nvidia.com/gpu` a node offers (GPUs x MIG slices)."""
    max_nodes: int
    """The group's maximum: the pool's GPU limit is max_nodes x gpus."""
    labels: Mapping[str, str]
    """The node contract's labels (NODE_GROUP_LABEL and the rest the cluster puts on the group's nodes)."""
    taints: Sequence[Mapping[str, str]]
    """Taints (key, value, effect); those under the startup-taint prefix (the acceptance gate) become startupTaints."""
    subnet_ids: Sequence[pulumi.Input[str]]
    """Subnets nodes may launch in (the group's zone when pinned)."""
    security_group_ids: Sequence[pulumi.Input[str]]
    """Security groups of the nodes (the cluster's, plus the EFA group's with RDMA)."""
    kms_key_arn: pulumi.Input[str]
    """Root volumes are encrypted with it."""
    capacity: Optional[str] = "on-demand"
    """on-demand, spot, reservation or capacity-block (the last two: Karpenter's `reserved`)."""
    capacity_reservation_id: Optional[str] = None
    """`cr-...`: the reservation or capacity block (required for reserved capacity)."""
    zones: Optional[Sequence[str]] = ()
    """Zones the pool may launch in; none: any zone of its subnets."""
    root_volume_gib: Optional[int] = 200
    """Root volume size, GiB."""
    placement_group_name: Optional[pulumi.Input[str]] = None
    """The group's cluster placement group; None: none."""
    ami_alias: Optional[str] = "al2023@latest"
    """EC2NodeClass amiSelectorTerms alias (family@version); AL2023 picks its NVIDIA variant for GPU types."""
    consolidate_after_minutes: Optional[int] = 10
    """Minutes a GPU node must be empty before Karpenter removes it."""
    local_nvme_raid0: Optional[bool] = False
    """Stripe instance-store NVMe for kubelet and containerd (instanceStorePolicy RAID0); off by default."""


@dataclass(frozen=True)
class KarpenterArgs(Args):
    """Karpenter on EKS and the GPU groups it launches."""

    cluster_name: pulumi.Input[str]
    """The EKS cluster (settings.clusterName)."""
    role_arn: pulumi.Input[str]
    """IRSA role of kube-system/karpenter."""
    interruption_queue: pulumi.Input[str]
    """The SQS queue name EventBridge feeds (settings.interruptionQueue)."""
    node_role_name: pulumi.Input[str]
    """The IAM role Karpenter's nodes run as (EC2NodeClass role; Karpenter makes the instance profile)."""
    node_selector: Mapping[str, str]
    """The system group: the controller must not run on nodes it launches."""
    pools: Sequence[KarpenterPool] = ()
    """The GPU groups; none by default."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags Karpenter puts on what it launches; none by default."""


def controller_values(args: KarpenterArgs, cluster_name: str, role_arn: str, queue: str) -> dict:
    """The chart's values: this cluster and queue, the IRSA role, and the system nodes (charts/karpenter/values.yaml
    at v1.14.1: settings.clusterName, settings.interruptionQueue, serviceAccount.annotations, nodeSelector)."""
    return {
        # nodeRepair (alpha, off by default) replaces a node whose GPU the EKS node monitoring agent reports failed
        # (AcceleratedHardwareReady false for 10 minutes: pkg/cloudprovider/cloudprovider.go RepairPolicies), as
        # EKS node auto repair does for the managed node groups it replaces.
        "settings": {"clusterName": cluster_name, "interruptionQueue": queue, "featureGates": {"nodeRepair": True}},
        "serviceAccount": {"annotations": {"eks.amazonaws.com/role-arn": role_arn}},
        "nodeSelector": {"kubernetes.io/os": "linux", **args.node_selector},
    }


def node_class_spec(pool: KarpenterPool, role: Any, tags: Mapping[str, str]) -> dict[str, Any]:
    """The EC2NodeClass: AMI family, node role, subnets, security groups, encrypted root volume, IMDSv2 only, and the
    group's placement group and reservation. EFA interfaces: networkInterfaces stays unset so Karpenter attaches one
    `efa` interface per network card (the instance type's vpc.amazonaws.com/efa capacity) whenever a pod asks for
    vpc.amazonaws.com/efa (pkg/providers/launchtemplate/launchtemplate.go generateNetworkInterfaces,
    pkg/providers/instance/instance.go getEFACountForInstance at v1.14.1); set, it would make the primary ENA."""
    spec: dict[str, Any] = {
        "role": role,
        "amiSelectorTerms": [{"alias": pool.ami_alias}],
        "subnetSelectorTerms": [{"id": s} for s in pool.subnet_ids],
        "securityGroupSelectorTerms": [{"id": g} for g in pool.security_group_ids],
        "blockDeviceMappings": [
            {
                "deviceName": "/dev/xvda",
                "ebs": {
                    "volumeSize": f"{pool.root_volume_gib}Gi",
                    "volumeType": "gp3",
                    "encrypted": True,
                    "kmsKeyID": pool.kms_key_arn,
                    "deleteOnTermination": True,
                },
            }
        ],
        "metadataOptions": {"httpEndpoint": "enabled", "httpTokens": "required", "httpPutResponseHopLimit": 1},
        "tags": dict(tags),
    }
    if pool.local_nvme_raid0:
        spec["instanceStorePolicy"] = "RAID0"
    if pool.placement_group_name is not None:
        spec["placementGroupSelector"] = {"name": pool.placement_group_name}
    if CAPACITY_TYPES[pool.capacity] == "reserved":
        spec["capacityReservationSelectorTerms"] = [{"id": pool.capacity_reservation_id}]
    return spec


def node_pool_spec(pool: KarpenterPool) -> dict[str, Any]:
    """The NodePool: the group's instance types, zones and capacity type, its labels and taints, the acceptance gate
    as a startup taint, a GPU limit of the group's maximum, and gang-safe disruption (module docstring)."""
    startup = [dict(t) for t in pool.taints if t["key"].startswith(STARTUP_TAINT_PREFIX)]
    taints = [dict(t) for t in pool.taints if not t["key"].startswith(STARTUP_TAINT_PREFIX)]
    requirements = [
        {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": list(pool.instance_types)},
        {"key": CAPACITY_TYPE_LABEL, "operator": "In", "values": [CAPACITY_TYPES[pool.capacity]]},
    ]
    if pool.zones:
        requirements.append({"key": ZONE_LABEL, "operator": "In", "values": list(pool.zones)})
    template_spec: dict[str, Any] = {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": pool.name},
        "requirements": requirements,
        "expireAfter": "Never",
    }
    if taints:
        template_spec["taints"] = taints
    if startup:
        template_spec["startupTaints"] = startup
    return {
        "template": {"metadata": {"labels": dict(pool.labels)}, "spec": template_spec},
        "limits": {GPU_RESOURCE: str(pool.max_nodes * pool.gpus)},
        "disruption": {
            "consolidationPolicy": "WhenEmpty",
            "consolidateAfter": f"{pool.consolidate_after_minutes}m",
            "budgets": [
                {"nodes": "0", "reasons": ["Drifted", "Underutilized"]},
                {"nodes": "10%", "reasons": ["Empty"]},
            ],
        },
    }


class Karpenter(Component):
    """Karpenter's controller (upstream chart) on the system nodes, and an EC2NodeClass and NodePool per GPU group."""

    PACKAGE = KUBERNETES
    LEGACY_TYPE = "gpu-blueprints:kubernetes:Karpenter"
    release_name: pulumi.Output[str]
    """The Helm release."""

    def __init__(self, name: str, args: KarpenterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(KarpenterArgs, args)
        values = pulumi.Output.all(args.cluster_name, args.role_arn, args.interruption_queue).apply(
            lambda v: controller_values(args, v[0], v[1], v[2])
        )
        # The chart's crds/ folder installs EC2NodeClass, NodePool and NodeClaim before its templates.
        self.release = chart_release(self, name, "karpenter", NAMESPACE, values)
        after = pulumi.ResourceOptions(parent=self, depends_on=[self.release])
        for pool in args.pools:
            node_class = k8s.apiextensions.CustomResource(
                f"{name}-{pool.name}",
                api_version=NODE_CLASS_API,
                kind="EC2NodeClass",
                metadata={"name": pool.name},
                spec=node_class_spec(pool, args.node_role_name, args.tags),
                opts=after,
            )
            k8s.apiextensions.CustomResource(
                f"{name}-{pool.name}-pool",
                api_version=NODE_POOL_API,
                kind="NodePool",
                metadata={"name": pool.name},
                spec=node_pool_spec(pool),
                opts=pulumi.ResourceOptions(parent=self, depends_on=[self.release, node_class]),
            )
        self.release_name = self.release.name
        self.register_outputs({"release_name": self.release_name})
