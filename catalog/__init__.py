"""The GPU shape catalog: instance facts with their sources, loaded from shapes.yaml."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict

from .yamlfile import load_yaml

CATALOG_FILE = Path(__file__).with_name("shapes.yaml")

Cloud = Literal["aws", "alicloud"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GpuFacts(_Frozen):
    model: str
    count: int
    # Vendor / provider label, GB ("24 GB"); not a size to compute with.
    memory_gb: float
    # GiB as AWS's DescribeInstanceTypes reports it (SizeInMiB / 1024): what sizing and checks compute with.
    memory_gib: float
    interconnect: Literal["pcie", "nvlink", "nvswitch"]


class RdmaFacts(_Frozen):
    kind: Literal["none", "efa", "erdma"]
    interfaces: int


class PriceFacts(_Frozen):
    """A shape's headline price, read from prices.yaml (its on-demand row in the home region), never stored here."""

    usd_per_hour: Optional[float]
    region: str
    as_of: Optional[str]
    source: Optional[str]  # a key of prices.yaml's sources
    note: Optional[str] = None


class ShapeSources(_Frozen):
    specs: str
    rdma: str
    regions: str


class Shape(_Frozen):
    cloud: Cloud
    instance_type: str
    gpu: GpuFacts
    vcpus: int
    memory_gib: int
    local_nvme_gb: int
    # The published figure ("up to" burst for small AWS sizes), Gbps.
    network_gbps: float
    # Sustained (baseline) bandwidth, Gbps: what `minNetworkGbps` is judged against.
    network_baseline_gbps: float
    rdma: RdmaFacts
    # Set where the provider sells the shape only on request (e.g. gn8v): the plan repeats it as a note.
    sales_note: Optional[str] = None
    # The region of the headline price: the on-demand row there in prices.yaml (the price's one home).
    home_region: str
    # Why there is no such row (sold only through capacity blocks, no sourced price): what the plan repeats.
    unpriced_note: Optional[str] = None
    # Regions with a pay-as-you-go (on-demand) offer. Alibaba: DescribeZones(InstanceChargeType=PostPaid) data.
    regions: tuple[str, ...]
    # Alibaba: regions the instance-type-by-region page lists but with no pay-as-you-go zone in the API data, so the
    # type is sold there only on request (or by subscription). The resolver picks it there only when no shape is
    # sold pay-as-you-go, and the plan says so.
    on_request_regions: tuple[str, ...] = ()
    sources: ShapeSources

    def offered_in(self, region: str) -> bool:
        """Sold in the region pay-as-you-go or on request; anywhere else the resolver must not pick it."""
        return region in self.regions or region in self.on_request_regions

    @property
    def price(self) -> PriceFacts:
        """The headline (home-region, on-demand) price, looked up in prices.yaml like every other price."""
        from .prices import home_price  # prices.py reads this module; the lookup is the one in prices.py

        row = home_price(self.instance_type, self.home_region)
        if row is None:
            return PriceFacts(
                usd_per_hour=None, region=self.home_region, as_of=None, source=None, note=self.unpriced_note
            )
        return PriceFacts(
            usd_per_hour=row.usd_per_hour, region=row.region, as_of=row.as_of, source=row.source, note=row.note
        )

    @property
    def total_gpu_memory_gib(self) -> float:
        return self.gpu.count * self.gpu.memory_gib


class Catalog(_Frozen):
    sources: dict[str, str]
    shapes: tuple[Shape, ...]

    def get(self, instance_type: str) -> Optional[Shape]:
        return next((s for s in self.shapes if s.instance_type == instance_type), None)

    def for_cloud(self, cloud: str) -> tuple[Shape, ...]:
        return tuple(s for s in self.shapes if s.cloud == cloud)

    def gpu_models(self, cloud: Optional[str] = None) -> list[str]:
        shapes = self.for_cloud(cloud) if cloud else self.shapes
        return sorted({s.gpu.model for s in shapes})


@lru_cache(maxsize=1)
def load_catalog(path: Path = CATALOG_FILE) -> Catalog:
    raw = load_yaml(path)
    return Catalog(sources=raw["sources"], shapes=tuple(raw["shapes"]))
