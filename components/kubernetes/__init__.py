"""The Kubernetes layer that makes GPUs and RDMA devices schedulable (type tokens
gpu-blueprints-kubernetes:index:<Name>).

`public_components()` is what the component package (provider/kubernetes) offers to other Pulumi languages.
"""


def public_components() -> list:
    from .acceptance import GpuAcceptance
    from .autoscaler import ClusterAutoscaler
    from .fabric import FabricValidation
    from .monitoring import GpuMonitoring
    from .platform import GpuPlatform
    from .queueing import FairQueueing
    from .storage import ClusterStorage

    return [
        GpuPlatform,
        ClusterAutoscaler,
        FairQueueing,
        FabricValidation,
        GpuMonitoring,
        GpuAcceptance,
        ClusterStorage,
    ]
