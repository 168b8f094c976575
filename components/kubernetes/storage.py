"""Storage pods can mount: StorageClasses for block volumes and statically provisioned shared file systems.

A shared file system (FSx for Lustre, CPFS, NAS) already exists when the platform is installed, so it is
bound by a PersistentVolume that names it and a claim in the namespace that uses it, ReadWriteMany.
"""

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s

from ..base import KUBERNETES, Args, Component, as_args

DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"


@dataclass(frozen=True)
class StorageClassSpec(Args):
    """A StorageClass for block volumes."""

    name: str
    """The class's name."""
    provisioner: str
    """The CSI driver."""
    parameters: Mapping[str, pulumi.Input[str]]
    """The driver's parameters (type, encryption, key)."""
    default: Optional[bool] = False
    """Make it the default class; off by default."""
    reclaim_policy: Optional[str] = "Delete"
    """What happens to a volume when its claim goes; Delete by default."""
    binding_mode: Optional[str] = "WaitForFirstConsumer"
    """The volume is made in the zone of the pod's node."""


@dataclass(frozen=True)
class SharedVolumeSpec(Args):
    """A file system every GPU node can mount, and the claim jobs use (``claim`` in ``namespace``)."""

    claim: str
    """The claim's name."""
    namespace: str
    """The claim's namespace."""
    driver: str
    """CSI driver name."""
    volume_handle: pulumi.Input[str]
    """The file system's handle for the CSI driver."""
    attributes: Mapping[str, pulumi.Input[str]]
    """CSI volume attributes (DNS name, mount name, server, path)."""
    capacity_gib: int
    """Capacity, GiB."""
    mount_options: Optional[Sequence[str]] = ()
    """Mount options; none by default."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Extra labels; none by default."""


@dataclass(frozen=True)
class ClusterStorageArgs(Args):
    """Storage classes and shared volumes."""

    classes: Optional[Sequence[StorageClassSpec]] = ()
    """StorageClasses for block volumes; none by default."""
    volumes: Optional[Sequence[SharedVolumeSpec]] = ()
    """Shared file systems as statically provisioned volumes, each bound to its claim; none by default."""
    labels: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Labels on every object; none by default."""


class ClusterStorage(Component):
    """Storage pods can mount: StorageClasses and statically provisioned shared volumes with their claims."""

    PACKAGE = KUBERNETES
    LEGACY_TYPE = "gpu-blueprints:kubernetes:ClusterStorage"
    claims: pulumi.Output[Sequence[str]]
    """The claims, as namespace/name."""

    def __init__(self, name: str, args: ClusterStorageArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(ClusterStorageArgs, args)
        classes, volumes, labels = args.classes, args.volumes, dict(args.labels)
        child = pulumi.ResourceOptions(parent=self)
        self.classes = {
            c.name: k8s.storage.v1.StorageClass(
                f"{name}-{c.name}",
                metadata={
                    "name": c.name,
                    "labels": dict(labels),
                    "annotations": {DEFAULT_CLASS: "true" if c.default else "false"},
                },
                provisioner=c.provisioner,
                parameters=dict(c.parameters),
                reclaim_policy=c.reclaim_policy,
                volume_binding_mode=c.binding_mode,
                allow_volume_expansion=True,
                opts=child,
            )
            for c in classes
        }
        self.claims = {}
        for v in volumes:
            pv_name = f"{v.namespace}-{v.claim}"
            volume = k8s.core.v1.PersistentVolume(
                f"{name}-{pv_name}",
                metadata={"name": pv_name, "labels": {**labels, **v.labels}},
                spec={
                    "capacity": {"storage": f"{v.capacity_gib}Gi"},
                    "accessModes": ["ReadWriteMany"],
                    "persistentVolumeReclaimPolicy": "Retain",  # deleting the claim never deletes the data
                    "storageClassName": "",
                    "mountOptions": list(v.mount_options),
                    "claimRef": {"namespace": v.namespace, "name": v.claim},
                    "csi": {
                        "driver": v.driver,
                        "volumeHandle": v.volume_handle,
                        "volumeAttributes": dict(v.attributes),
                    },
                },
                opts=child,
            )
            self.claims[(v.namespace, v.claim)] = k8s.core.v1.PersistentVolumeClaim(
                f"{name}-{v.namespace}-{v.claim}-claim",
                metadata={"name": v.claim, "namespace": v.namespace, "labels": {**labels, **v.labels}},
                spec={
                    "accessModes": ["ReadWriteMany"],
                    "storageClassName": "",
                    "volumeName": pv_name,
                    "resources": {"requests": {"storage": f"{v.capacity_gib}Gi"}},
                },
                opts=pulumi.ResourceOptions(parent=self, depends_on=[volume]),
            )
        self.register_outputs({"claims": pulumi.Output.from_input([f"{ns}/{c}" for ns, c in sorted(self.claims)])})
