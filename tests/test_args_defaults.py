"""Cluster args default to what the stack spec defaults to for the same input (issue 24).

A library user who leaves an args field out gets the cluster a stack file gets when it leaves the spec field out.
Every defaulted field of the cluster args classes is either paired with its spec field here or named as one the
spec does not have (decided by the blueprint, or a toggle the spec spells differently), so a new field cannot slip
past; each cloud's args carry only fields that cloud's cluster reads.
"""

import dataclasses
import re
from pathlib import Path

import pytest

from blueprints import spec as s
from components import cluster_args as a

ROOT = Path(__file__).resolve().parents[1]

# (args class, field) -> (spec model, field, how the cluster reads the spec value); None: the value as it is.
PAIRS = {
    (a.GpuGroupArgs, "root_volume_gib"): (s.NodeGroupSpec, "root_volume_gib", None),
    (a.GpuGroupArgs, "capacity"): (s.NodeGroupSpec, "capacity", None),
    (a.GpuGroupArgs, "capacity_reservation_id"): (s.NodeGroupSpec, "capacity_reservation_id", None),
    (a.GpuGroupArgs, "spot_max_price_usd"): (s.NodeGroupSpec, "spot_max_price_usd", None),
    (a.GpuGroupArgs, "labels"): (s.NodeGroupSpec, "labels", None),
    (a.GpuGroupArgs, "mig_profile"): (s.NodeGroupSpec, "mig_profile", None),
    (a.GpuGroupArgs, "sharing"): (s.NodeGroupSpec, "sharing", lambda v: v.strategy if v else None),
    (a.GpuGroupArgs, "sharing_replicas"): (s.NodeGroupSpec, "sharing", lambda v: v.replicas if v else 1),
    (a.GpuGroupArgs, "devices"): (s.NodeGroupSpec, "devices", None),
    (a.GpuGroupArgs, "zone"): (s.NodeGroupSpec, "zone", None),
    (a.GpuGroupArgs, "capacity_block_starts_at"): (s.NodeGroupSpec, "capacity_block_starts_at", None),
    (a.SystemGroupArgs, "min_nodes"): (s.SystemNodesSpec, "min_nodes", None),
    (a.SystemGroupArgs, "desired_nodes"): (s.SystemNodesSpec, "desired_nodes", None),
    (a.SystemGroupArgs, "max_nodes"): (s.SystemNodesSpec, "max_nodes", None),
    (a.SystemGroupArgs, "root_volume_gib"): (s.SystemNodesSpec, "root_volume_gib", None),
    (a.ObjectStorageArgs, "noncurrent_version_days"): (s.ObjectStorageSpec, "noncurrent_version_days", None),
    (a.ObjectStorageArgs, "infrequent_access_after_days"): (s.ObjectStorageSpec, "infrequent_access_after_days", None),
    (a.ObjectStorageArgs, "cache"): (s.ObjectStorageSpec, "cache", None),
    (a.FileSystemArgs, "deployment"): (s.ParallelFsSpec, "deployment", None),
    (a.FileSystemArgs, "throughput_mbps_per_tib"): (s.ParallelFsSpec, "throughput_mbps_per_tib", None),
    (a.FileSystemArgs, "export_domain"): (s.ParallelFsSpec, "export_domain", None),
    (a.AutoscalingArgs, "unneeded_minutes"): (s.AutoscalingSpec, "scale_down_unneeded_minutes", None),
    (a.AutoscalingArgs, "utilization_threshold"): (s.AutoscalingSpec, "scale_down_utilization_threshold", None),
    (a.AutoscalingArgs, "gpu_utilization_threshold"): (s.AutoscalingSpec, "gpu_scale_down_utilization_threshold", None),
    (a.AutoscalingArgs, "engine"): (s.AutoscalingSpec, "engine", None),
    (a.BudgetArgs, "thresholds_pct"): (s.BudgetSpec, "alert_thresholds_pct", tuple),
    (a.BudgetArgs, "contacts"): (s.BudgetSpec, "contacts", tuple),
    (a.BudgetArgs, "activate_cost_tag"): (s.BudgetSpec, "activate_cost_allocation_tag", None),
    (a.ClusterArgs, "log_retention_days"): (s.LoggingSpec, "retention_days", None),
    (a.ClusterArgs, "key_rotation_days"): (s.EncryptionSpec, "key_rotation_days", None),
    (a.ClusterArgs, "public_api"): (s.NetworkingSpec, "public_api", None),
    (a.ClusterArgs, "cluster_admins"): (s.AccessSpec, "cluster_admins", tuple),
    (a.ClusterArgs, "zone"): (s.NetworkingSpec, "zone", None),
    (a.ClusterArgs, "audit_trail"): (s.AccountServicesSpec, "audit_trail", lambda v: v == "create"),
    (a.ClusterArgs, "threat_detection"): (s.AccountServicesSpec, "threat_detection", lambda v: v == "create"),
    (a.AwsClusterArgs, "public_api_cidrs"): (s.NetworkingSpec, "public_api_cidrs", tuple),
    (a.AwsClusterArgs, "node_release_version"): (s.NodeImageSpec, "release_version", None),
    (a.AwsClusterArgs, "alert_topic"): (s.AlertReceiverSpec, "sns", None),  # no topic unless a receiver has sns
    (a.AlicloudClusterArgs, "kms_instance_id"): (s.EncryptionSpec, "kms_instance_id", None),
    (a.AlicloudClusterArgs, "mlps_hardening"): (s.ComplianceSpec, "frameworks", lambda v: "mlps" in v),
}

# Defaulted args fields with no spec field of their own: the resolver or compose decides them from other facts.
NOT_SPEC_INPUTS = {
    (a.GpuGroupArgs, "taints"),
    (a.GpuGroupArgs, "gpu_resources"),
    (
        a.GpuGroupArgs,
        "mig_slices",
    ),  # the cluster's MIG strategy and the catalog's layout decide both (blueprints/mig.py)
    (a.GpuGroupArgs, "mig_resources"),
    (a.GpuGroupArgs, "rdma_interfaces"),
    (a.GpuGroupArgs, "placement_group"),
    (a.GpuGroupArgs, "local_nvme_raid0"),
    # the shape's facts and the check's expectation the resolver derives; the Kubernetes layer's view (nodes())
    (a.GpuGroupArgs, "rdma"),
    (a.GpuGroupArgs, "vcpus"),
    (a.GpuGroupArgs, "memory_gib"),
    (a.GpuGroupArgs, "acceptance"),
    (a.GpuGroupArgs, "fabric_min_busbw_gbps"),
    (a.GpuGroupArgs, "rdma_dra"),  # the resolver's choice from devices, the minor and catalog/dra.yaml
    (a.GpuGroupArgs, "topology_name"),  # the resolver's choice from queueing.topology and catalog/topology.py
    (a.GpuGroupArgs, "topology_levels"),
    (a.GpuGroupArgs, "provisioned"),  # the resolver's choice: a Topology on a group the Cluster Autoscaler scales
    (a.AutoscalingArgs, "image_tag"),
    (a.ClusterArgs, "tags"),
    (a.ClusterArgs, "protect_data"),
    (a.ClusterArgs, "addon_versions"),
    (a.ClusterArgs, "object_storage"),
    (a.ClusterArgs, "file_system"),
    (a.ClusterArgs, "trainer_namespace"),
    (a.ClusterArgs, "team_namespaces"),
    (a.ClusterArgs, "autoscaling"),
    (a.ClusterArgs, "platform"),
}

ARGS_CLASSES = (
    a.GpuGroupArgs,
    a.SystemGroupArgs,
    a.ObjectStorageArgs,
    a.FileSystemArgs,
    a.AutoscalingArgs,
    a.BudgetArgs,
    a.ClusterArgs,
    a.AwsClusterArgs,
    a.AlicloudClusterArgs,
)


def args_default(cls: type, name: str):
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


def spec_default(model, name: str):
    return model.model_fields[name].get_default(call_default_factory=True)


@pytest.mark.parametrize(
    "pair", sorted(PAIRS, key=lambda p: (p[0].__name__, p[1])), ids=lambda p: f"{p[0].__name__}.{p[1]}"
)
def test_an_args_default_is_the_spec_default_for_the_same_input(pair):
    model, name, read = PAIRS[pair]
    wanted = spec_default(model, name)
    assert args_default(*pair) == (read(wanted) if read else wanted), f"{model.__name__}.{name}"


def test_every_defaulted_args_field_is_paired_with_the_spec_or_named_as_no_spec_input():
    """A field a class declares itself (inherited fields belong to the class that declares them)."""
    defaulted = {
        (cls, f.name)
        for cls in ARGS_CLASSES
        for f in dataclasses.fields(cls)
        if f.name in vars(cls).get("__annotations__", {})
        and (f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING)
    }
    assert defaulted - PAIRS.keys() - NOT_SPEC_INPUTS == set()
    assert (PAIRS.keys() | NOT_SPEC_INPUTS) - defaulted == set()


@pytest.mark.parametrize("cloud,cls", [("aws", a.AwsClusterArgs), ("alicloud", a.AlicloudClusterArgs)])
def test_each_clouds_args_hold_only_fields_its_cluster_reads(cloud, cls):
    source = (ROOT / "components" / cloud / "cluster.py").read_text()
    read = set(re.findall(r"args\.([a-z_]+)", source))
    unread = sorted(f.name for f in dataclasses.fields(cls) if f.name not in read)
    assert unread == [], f"{cls.__name__} fields components/{cloud}/cluster.py never reads"
