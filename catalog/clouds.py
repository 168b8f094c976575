"""Each cloud's facts in one place (clouds.yaml): region and zone names, principal formats, file systems, RDMA and
placement names, service price keys and the resource-type table the offline plan matches registrations with.

Why: these facts were `cloud == "aws"` branches in a dozen modules, so a third cloud meant touching each of them.
Now a module asks the profile (`profile(spec.cloud).rdma.name`), and a new cloud is one entry in clouds.yaml.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from .yamlfile import load_yaml

CLOUDS_FILE = Path(__file__).with_name("clouds.yaml")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class NamePattern(_Frozen):
    """A name the cloud accepts (region, instance type), with an example for error messages."""

    pattern: str
    example: str
    source: str

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        re.compile(v)
        return v

    def matches(self, name: str) -> bool:
        return _compiled(self.pattern).match(name) is not None


class Zone(_Frozen):
    """Zone names: the region, `separator` and a letter; `default_letter` None: no zone to assume."""

    separator: str
    example_letter: str
    default_letter: Optional[str]
    source: str

    def pattern(self, region: str) -> re.Pattern:
        return re.compile(rf"^{re.escape(region)}{re.escape(self.separator)}[a-z]$")

    def example(self, region: str) -> str:
        return f"{region}{self.separator}{self.example_letter}"

    def default(self, region: str) -> Optional[str]:
        return None if self.default_letter is None else f"{region}{self.separator}{self.default_letter}"


class Principal(_Frozen):
    pattern: str
    describe: str
    source: str

    def matches(self, name: str) -> bool:
        return _compiled(self.pattern).match(name) is not None


class Kms(_Frozen):
    rotation_days: tuple[int, int]
    instances: bool  # whether a key may live in a KMS instance (encryption.kmsInstanceId)
    source: str


class Rdma(_Frozen):
    kind: str  # the catalog's shape rdma.kind
    name: str  # what people call it (EFA, eRDMA)
    source: str


class Placement(_Frozen):
    name: str  # what the plan calls the group it makes (cluster placement group, low-latency deployment set)
    family: str  # the service's name for the kind (EC2 placement group, ECS deployment set)
    holds_spot: bool
    max_instances: Optional[int]
    source: str


class ServicePriceKeys(_Frozen):
    """Keys of service_prices.yaml under the cloud; None where the cloud bills no such thing."""

    control_plane: str
    control_plane_extended: Optional[str]
    node_disk: str
    object_storage: str
    log_ingest: str
    nat_gateway: str
    kms_key: str
    interface_endpoint: Optional[str]


class CloudProfile(_Frozen):
    name: str
    kubernetes_service: str
    control_plane_edition: str
    region: NamePattern
    zone: Zone
    instance_type: NamePattern
    accelerated: NamePattern  # instance families with accelerators (GPUs and the like), by name
    admin_principal: Principal
    resource_arn: Optional[str]
    resource_arn_source: str
    provider_tags_all: bool
    kms: Kms
    file_systems: tuple[str, ...]
    file_systems_source: str
    rdma: Rdma
    placement: Placement
    capacity_blocks: bool
    reservation_needs_zone: bool
    capacity_source: str
    autoscaling_engines: tuple[str, ...]
    autoscaling_engines_source: str
    provisioning_request_engines: tuple[str, ...]
    provisioning_requests_source: str
    alert_topic: Optional[str]
    alert_topic_source: str
    service_prices: ServicePriceKeys
    resource_types: dict[str, str]
    resource_types_source: str

    @property
    def default_file_system(self) -> str:
        """What a stack without storage.parallelFs.type gets: the first file system listed."""
        return self.file_systems[0]

    def resource_type(self, role: str) -> Optional[str]:
        return self.resource_types.get(role)


class Clouds(_Frozen):
    sources: dict[str, str]
    clouds: dict[str, CloudProfile]

    @model_validator(mode="after")
    def _sources_known(self) -> "Clouds":
        for cloud, p in self.clouds.items():
            keys = (
                p.region.source,
                p.zone.source,
                p.instance_type.source,
                p.accelerated.source,
                p.admin_principal.source,
                p.resource_arn_source,
                p.kms.source,
                p.file_systems_source,
                p.rdma.source,
                p.placement.source,
                p.capacity_source,
                p.autoscaling_engines_source,
                p.provisioning_requests_source,
                p.alert_topic_source,
                p.resource_types_source,
            )
            unknown = [k for k in keys if k not in self.sources]
            if unknown:
                raise ValueError(f"clouds.{cloud}: unknown source(s) {unknown}")
            wrong = [t for t in p.resource_types.values() if not t.startswith(f"{cloud}:")]
            if wrong:
                raise ValueError(f"clouds.{cloud}.resource_types: {wrong} are not {cloud} type tokens")
        return self


@lru_cache(maxsize=None)
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern)


@lru_cache(maxsize=1)
def load_clouds(path: Path = CLOUDS_FILE) -> Clouds:
    return Clouds.model_validate(load_yaml(path))


def profile(cloud: str) -> CloudProfile:
    """The cloud's profile; a KeyError names a cloud clouds.yaml does not describe."""
    return load_clouds().clouds[cloud]


def cloud_names() -> tuple[str, ...]:
    return tuple(load_clouds().clouds)


def cloud_of_package(package: str) -> Optional[CloudProfile]:
    """The profile of a Pulumi package name (the token's first part: aws, alicloud), or None (kubernetes, ...)."""
    return load_clouds().clouds.get(package)


@lru_cache(maxsize=None)
def types_of(*roles: str) -> tuple[str, ...]:
    """Every cloud's type token for ``roles`` (the offline plan's one resource-type table), in clouds.yaml order."""
    return tuple(p.resource_types[r] for r in roles for p in load_clouds().clouds.values() if r in p.resource_types)


def type_of(cloud: str, role: str) -> str:
    """One cloud's type token for ``role``; a KeyError names a role the cloud has no resource for."""
    return profile(cloud).resource_types[role]


@lru_cache(maxsize=None)
def role_of(token: str) -> Optional[str]:
    """The role of a type token (node_group, file_system, ...), or None where the table has none."""
    return next((r for p in load_clouds().clouds.values() for r, t in p.resource_types.items() if t == token), None)
