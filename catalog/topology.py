"""Network topology as each cloud labels its nodes: the levels Kueue's Topology lists, and the shapes that carry them.

AWS. Amazon EKS labels a node with its place in the EC2 network hierarchy: topology.k8s.aws/network-node-layer-1
(the top, least selective), -2, -3 (the bottom for most types), and -4 only on types whose topology has four layers
(Amazon EKS User Guide, "Place distributed AI/ML workloads with network topology labels",
https://docs.aws.amazon.com/eks/latest/userguide/ml-workload-topology.html, read 2026-11-27). Which instance types
have a topology, and with how many layers: Amazon EC2 User Guide, "Prerequisites for Amazon EC2 topology"
(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-topology-prerequisites.html, read 2026-11-27):
three network nodes for g6e.*, g7e.*, p3dn/p4d/p4de/p5.48xlarge/p5e/p5en/p6e-gb200, trn1/trn2; four for p6-b200 and
p6-b300. Other types (g4dn, g5, g6, p5.4xlarge) have none, so their nodes carry no such label.

Alibaba Cloud. ACK Lingjun clusters label Lingjun nodes with alibabacloud.com/point-of-delivery (a group of access
switches) and alibabacloud.com/asw-id (the access switch); the lingjun-networktopology-collector sets them on
Lingjun nodes only, other node types need them set by hand (ACK, "Using network topology-aware scheduling in an
ACK Lingjun cluster", https://www.alibabacloud.com/help/en/ack/ack-lingjun-managed-clusters/user-guide/
using-network-topology-aware-scheduling-in-lingjun-cluster, read 2026-11-27). The catalog's ECS GPU shapes are not
Lingjun nodes: none carries them.

Kueue's Topology ends with kubernetes.io/hostname: the taints of nodes are respected only when the hostname is the
lowest level (kueue v0.19.2 site/static/examples/tas/sample-gpu-queues.yaml; the CRD allows it only last).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

HOSTNAME = "kubernetes.io/hostname"
AWS_LAYER = "topology.k8s.aws/network-node-layer-{}"
AWS_SOURCE = (
    "https://docs.aws.amazon.com/eks/latest/userguide/ml-workload-topology.html and "
    "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-topology-prerequisites.html (read 2026-11-27)"
)
ACK_SOURCE = (
    "https://www.alibabacloud.com/help/en/ack/ack-lingjun-managed-clusters/user-guide/"
    "using-network-topology-aware-scheduling-in-lingjun-cluster (read 2026-11-27)"
)
ACK_LEVELS = ("alibabacloud.com/point-of-delivery", "alibabacloud.com/asw-id")

# Instance type (or family, written "<family>.*") -> network layers EC2 reports for it.
AWS_LAYERS = {
    "g6e.*": 3,
    "g7e.*": 3,
    "p3dn.24xlarge": 3,
    "p4d.24xlarge": 3,
    "p4de.24xlarge": 3,
    "p5.48xlarge": 3,
    "p5e.48xlarge": 3,
    "p5en.48xlarge": 3,
    "p6e-gb200.36xlarge": 3,
    "trn1.*": 3,
    "trn1n.*": 3,
    "trn2.*": 3,
    "p6-b200.48xlarge": 4,
    "p6-b300.48xlarge": 4,
}


@dataclass(frozen=True)
class NetworkTopology:
    """The levels of one cloud's network topology, top first, as node label keys, and where that is written."""

    name: str
    """The Kueue Topology's name."""
    levels: tuple[str, ...]
    """Node label keys, broadest first; the cloud sets every one on the nodes it labels."""
    source: str

    @property
    def kueue_levels(self) -> tuple[str, ...]:
        """The Topology's levels: the cloud's, then the node itself."""
        return (*self.levels, HOSTNAME)


def _aws_layers(instance_type: str) -> Optional[int]:
    if instance_type in AWS_LAYERS:
        return AWS_LAYERS[instance_type]
    return AWS_LAYERS.get(f"{instance_type.split('.', 1)[0]}.*")


def cloud_levels(cloud: str) -> tuple[str, ...]:
    """Every label key the cloud may set for its topology (what a job may name as its level)."""
    if cloud == "aws":
        return tuple(AWS_LAYER.format(n) for n in range(1, 5))
    return ACK_LEVELS


def network_topology(cloud: str, instance_type: str) -> Optional[NetworkTopology]:
    """The topology the cloud labels nodes of this shape with, or None where it labels them with none."""
    if cloud == "aws":
        layers = _aws_layers(instance_type)
        if layers is None:
            return None
        return NetworkTopology(
            f"aws-network-{layers}", tuple(AWS_LAYER.format(n) for n in range(1, layers + 1)), AWS_SOURCE
        )
    return None  # ACK sets its labels on Lingjun nodes only; no catalog shape is one


def unlabelled_reason(cloud: str, instance_type: str) -> Optional[str]:
    """Why a multi-node gang on this shape gets no Topology, where the cloud labels a kind of node the catalog has
    none of (ACK: Lingjun nodes only, and its autoscaler documents no ProvisioningRequest support); None on AWS, where
    a shape's labels are a fact of the shape (AWS_LAYERS)."""
    if cloud == "aws" or network_topology(cloud, instance_type) is not None:
        return None
    return (
        f"ACK sets its network topology labels ({', '.join(ACK_LEVELS)}) on Lingjun nodes only, and {instance_type} "
        "is an ECS shape that carries none (catalog/topology.py); Kueue admits gangs here by quota, and the group's "
        "placement is its zone and vSwitch"
    )


def intended_topology(cloud: str) -> NetworkTopology:
    """The levels to ask for where the shape's nodes carry none (a stack that turns topology on for every RDMA group):
    on AWS the three layers every labelled type has, on ACK the Lingjun levels. Readiness says no node carries them."""
    if cloud == "aws":
        return NetworkTopology("aws-network-3", tuple(AWS_LAYER.format(n) for n in range(1, 4)), AWS_SOURCE)
    return NetworkTopology("ack-lingjun", ACK_LEVELS, ACK_SOURCE)


def carries(cloud: str, instance_type: str, label: str) -> bool:
    """Whether the cloud sets this topology label on nodes of this shape."""
    topology = network_topology(cloud, instance_type)
    return topology is not None and label in topology.kueue_levels
