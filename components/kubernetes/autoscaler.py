"""The Kubernetes Cluster Autoscaler (upstream chart, pinned) for EKS: grows GPU groups from zero when
GPU pods are pending and gives idle nodes back after `scale_down_unneeded_minutes`.

It discovers the cluster's node groups by the tags EKS puts on their Auto Scaling groups
(`k8s.io/cluster-autoscaler/enabled`, `k8s.io/cluster-autoscaler/<cluster>`), and learns what an
empty GPU group would offer from the node-template tags `GpuNodeGroup` adds.
https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/aws/README.md
https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md (flags and their defaults)
"""

from dataclasses import dataclass
from typing import Mapping, Optional

import pulumi

from ..base import KUBERNETES, Args, Component, as_args
from .charts import chart_release

SERVICE_ACCOUNT = "cluster-autoscaler"
NAMESPACE = "kube-system"


@dataclass(frozen=True)
class AutoscalerArgs(Args):
    """The Cluster Autoscaler on EKS."""

    cluster_name: pulumi.Input[str]
    """The EKS cluster the autoscaler discovers node groups of."""
    region: str
    """The cluster's region."""
    role_arn: pulumi.Input[str]
    """IRSA role for kube-system/cluster-autoscaler."""
    image_tag: str
    """The autoscaler's minor version must match the cluster's."""
    node_selector: Mapping[str, str]
    """The system group: the autoscaler must not run on nodes it may remove."""
    scale_down_unneeded_minutes: Optional[int] = 10
    """Upstream default 10m."""
    scale_down_utilization_threshold: Optional[float] = 0.5
    """Upstream default 0.5."""
    gpu_scale_down_utilization_threshold: Optional[float] = 0.5
    """Upstream default 0.5."""
    dynamic_resource_allocation: Optional[bool] = False
    """Simulate pods' DRA claims against nodes' ResourceSlices (a node group has `devices: dra`); the flag defaults to
    false up to cluster-autoscaler 1.34 and is locked true from 1.35 (config/flags/flags.go at cluster-autoscaler-1.34.5
    and -1.35.2). Off by default."""


def autoscaler_values(args: AutoscalerArgs, cluster_name: str, role_arn: str) -> dict:
    return {
        "cloudProvider": "aws",
        "awsRegion": args.region,
        "autoDiscovery": {"clusterName": cluster_name},
        "image": {"tag": args.image_tag},
        "rbac": {
            "serviceAccount": {
                "create": True,
                "name": SERVICE_ACCOUNT,
                "annotations": {"eks.amazonaws.com/role-arn": role_arn},
            }
        },
        "nodeSelector": dict(args.node_selector),
        "priorityClassName": "system-cluster-critical",
        "extraArgs": {
            "scale-down-unneeded-time": f"{args.scale_down_unneeded_minutes}m",
            "scale-down-utilization-threshold": str(args.scale_down_utilization_threshold),
            "scale-down-gpu-utilization-threshold": str(args.gpu_scale_down_utilization_threshold),
            "balance-similar-node-groups": "true",
            # Pods with emptyDir scratch (training jobs) must not pin an idle GPU node forever.
            "skip-nodes-with-local-storage": "false",
            "expander": "least-waste",
            **({"enable-dynamic-resource-allocation": "true"} if args.dynamic_resource_allocation else {}),
        },
    }


class ClusterAutoscaler(Component):
    """The Kubernetes Cluster Autoscaler (upstream chart) for EKS, on the system group."""

    PACKAGE = KUBERNETES
    LEGACY_TYPE = "gpu-blueprints:kubernetes:ClusterAutoscaler"
    release_name: pulumi.Output[str]
    """The Helm release."""

    def __init__(self, name: str, args: AutoscalerArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(AutoscalerArgs, args)
        values = pulumi.Output.all(args.cluster_name, args.role_arn).apply(
            lambda v: autoscaler_values(args, v[0], v[1])
        )
        self.release = chart_release(self, name, "cluster-autoscaler", NAMESPACE, values)
        self.release_name = self.release.name
        self.register_outputs({"release_name": self.release_name})
