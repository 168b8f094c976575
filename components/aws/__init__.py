"""AWS components of a GPU cluster, one concern a module (type tokens gpu-blueprints-aws:index:<Name>).

`PUBLIC` is what the component package (provider/aws) offers to other Pulumi languages. Imports are lazy so a
program that needs one component does not load the others.
"""


def public_components() -> list:
    from .addons import EksAddons
    from .alerts import SnsAlertTopic
    from .audit import AuditTrail, ThreatDetection
    from .budget import CostBudget
    from .cluster import GpuCluster
    from .eks import EksCluster
    from .iam import NodeRole, WorkloadRole
    from .kms import DataKey
    from .network import EfaFabric, GpuNetwork
    from .node_group import GpuNodeGroup, SystemNodeGroup
    from .storage import DataBucket, LustreFileSystem

    return [
        GpuCluster,
        GpuNetwork,
        EfaFabric,
        EksCluster,
        EksAddons,
        GpuNodeGroup,
        SystemNodeGroup,
        NodeRole,
        WorkloadRole,
        DataKey,
        DataBucket,
        LustreFileSystem,
        AuditTrail,
        ThreatDetection,
        CostBudget,
        SnsAlertTopic,
    ]
