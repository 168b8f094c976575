"""The Kubernetes Cluster Autoscaler (upstream chart, pinned) for EKS: grows GPU groups from zero when
GPU pods are pending and gives idle nodes back after `scale_down_unneeded_minutes`.

It discovers the cluster's node groups by the tags EKS puts on their Auto Scaling groups
(`k8s.io/cluster-autoscaler/enabled`, `k8s.io/cluster-autoscaler/<cluster>`), and learns what an
empty GPU group would offer from the node-template tags `GpuNodeGroup` adds.
https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/aws/README.md
https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md (flags and their defaults)
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

import pulumi
import pulumi_kubernetes as k8s
import yaml

from ..base import KUBERNETES, Args, Component, as_args
from .charts import chart_release

SERVICE_ACCOUNT = "cluster-autoscaler"
NAMESPACE = "kube-system"
# The ProvisioningRequest API, which neither the chart nor EKS installs (crds/SOURCE.md). With the flag on, the
# autoscaler waits for it before it starts (cluster-autoscaler-1.35.2 provisioningrequest/provreqclient/client.go
# newPRsLister, WaitForCacheSync), and Kueue sets its Provisioning check up only if it is served when Kueue starts.
PROVISIONING_REQUEST_CRD = Path(__file__).parent / "crds" / "autoscaling.x-k8s.io_provisioningrequests.yaml"


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
    provisioning_requests: Optional[bool] = False
    """Serve ProvisioningRequests (`--enable-provisioning-requests`, upstream default false), which Kueue's
    Provisioning admission check creates for gangs on topology-aware flavors; the chart's ClusterRole already grants
    provisioningrequests and podtemplates (chart 9.59.0 templates/clusterrole.yaml). Off by default."""
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
            **({"enable-provisioning-requests": "true"} if args.provisioning_requests else {}),
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
        self.provisioning_request_crd = self._provisioning_request_crd(name) if args.provisioning_requests else None
        """The ProvisioningRequest CRD (with provisioning_requests), which Kueue's release must wait for."""
        crds = [self.provisioning_request_crd] if self.provisioning_request_crd else []
        self.release = chart_release(self, name, "cluster-autoscaler", NAMESPACE, values, depends_on=crds)
        self.release_name = self.release.name
        self.register_outputs({"release_name": self.release_name})

    def _provisioning_request_crd(self, name: str) -> pulumi.Resource:
        """The upstream CRD file, unchanged."""
        crd = yaml.safe_load(PROVISIONING_REQUEST_CRD.read_text())
        return k8s.apiextensions.v1.CustomResourceDefinition(
            f"{name}-provisioningrequest-crd",
            metadata=crd["metadata"],
            spec=crd["spec"],
            opts=pulumi.ResourceOptions(parent=self),
        )
