"""Alibaba Cloud components of a GPU cluster (type tokens gpu-blueprints-alicloud:index:<Name>).

Names match the AWS components where the concern matches (GpuCluster, GpuNetwork, GpuNodeGroup, DataKey, ...).
`public_components()` is what the component package (provider/alicloud) offers to other Pulumi languages.
"""


def public_components() -> list:
    from .ack import AckAutoscaling, AckCluster, GpuNodeGroup, SystemNodeGroup
    from .audit import AuditTrail, ThreatDetection
    from .cluster import GpuCluster
    from .kms import DataKey
    from .network import GpuNetwork
    from .ram import WorkloadRole
    from .storage import DataBucket, SharedFileSystem

    return [
        GpuCluster,
        GpuNetwork,
        AckCluster,
        AckAutoscaling,
        GpuNodeGroup,
        SystemNodeGroup,
        WorkloadRole,
        DataKey,
        DataBucket,
        SharedFileSystem,
        AuditTrail,
        ThreatDetection,
    ]
