"""GPU instance prices per region and purchase option (prices.yaml), each with its source and as-of date.

Why a table of its own: a shape's price differs by region (Frankfurt's p4de.24xlarge costs about 25% more
than Virginia's) and by how it is bought. The lookup never borrows another region's price silently: a
region without a row gets the nearest documented one *with a note that says so*.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal, Mapping, Optional, Union

from pydantic import BaseModel, ConfigDict, PrivateAttr

from .yamlfile import load_yaml

PRICES_FILE = Path(__file__).with_name("prices.yaml")

Option = Literal["on-demand", "spot", "commit-1y", "commit-3y", "capacity-block"]
OPTIONS: tuple[str, ...] = ("on-demand", "spot", "commit-1y", "commit-3y", "capacity-block")

# What each option is called on each cloud, for people reading a plan or `size` output.
OPTION_LABELS = {
    "aws": {
        "on-demand": "On-Demand",
        "spot": "Spot",
        "commit-1y": "1-year Reserved Instance (standard, no upfront)",
        "commit-3y": "3-year Reserved Instance (standard, no upfront)",
        "capacity-block": "EC2 Capacity Block for ML",
    },
    "alicloud": {
        "on-demand": "pay-as-you-go",
        "spot": "preemptible instance",
        "commit-1y": "1-year subscription",
        "commit-3y": "3-year subscription",
        "capacity-block": "capacity block (not sold)",
    },
}

# Regions by continent-scale area: "nearest documented price" looks in the same area first, then anywhere.
AREAS = {
    "us": ("us-east-1", "us-east-2", "us-west-2", "us-west-1"),
    "eu": ("eu-central-1", "eu-west-1", "eu-north-1", "eu-west-2", "eu-west-3", "eu-south-1"),
    "ap": ("ap-northeast-1", "ap-southeast-1", "ap-southeast-2", "ap-northeast-2", "ap-south-1", "cn-hongkong"),
    "cn": ("cn-hangzhou", "cn-shanghai", "cn-beijing", "cn-shenzhen", "cn-wulanchabu", "cn-zhangjiakou"),
}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Price(_Frozen):
    instance_type: str
    region: str
    option: Option
    usd_per_hour: float
    source: str
    as_of: str
    note: Optional[str] = None


class PriceTable(_Frozen):
    sources: dict[str, str]
    prices: tuple[Price, ...]
    _by_key: Optional[dict] = PrivateAttr(default=None)

    def exact(self, instance_type: str, region: str, option: str = "on-demand") -> Optional[Price]:
        return self.index().get((instance_type, region, option))

    def index(self) -> dict[tuple[str, str, str], Price]:
        """(instance type, region, option) -> row; built once per table (the advisor asks thousands of times)."""
        if self._by_key is None:
            self._by_key = {(p.instance_type, p.region, p.option): p for p in self.prices}
        return self._by_key

    def nearest(self, instance_type: str, region: str, option: str = "on-demand") -> Optional[Price]:
        """Another region's price for the same shape and option: same area first, then any (sorted, stable)."""
        rows = [p for p in self.prices if p.instance_type == instance_type and p.option == option]
        if not rows:
            return None
        area = next((a for a, regions in AREAS.items() if region in regions), None)
        same = [p for p in rows if area and p.region in AREAS[area]]
        return sorted(
            same or rows,
            key=lambda p: (
                AREAS.get(area or "", ()).index(p.region) if area and p.region in AREAS[area] else 99,
                p.region,
            ),
        )[0]

    def source_url(self, price: Price) -> str:
        return self.sources.get(price.source, price.source)


@lru_cache(maxsize=1)
def load_prices(path: Path = PRICES_FILE) -> PriceTable:
    raw = load_yaml(path)
    return PriceTable(sources=raw["sources"], prices=tuple(raw["prices"]))


class Quote(_Frozen):
    """A price as used: the row it came from and, when that row is another region's, why."""

    usd_per_hour: float
    region: str
    option: str
    source: str
    as_of: str
    exact: bool
    note: Optional[str] = None

    def cite(self) -> str:
        return f"{self.source} as of {self.as_of} ({self.region}, {self.option})"


def quote(
    instance_type: str, region: str, option: str = "on-demand", table: Optional[PriceTable] = None
) -> Optional[Quote]:
    """The price of ``instance_type`` in ``region`` under ``option``; the nearest documented one with a note."""
    table = table or load_prices()
    found = table.exact(instance_type, region, option)
    if found:
        return Quote(
            usd_per_hour=found.usd_per_hour,
            region=found.region,
            option=option,
            source=table.source_url(found),
            as_of=found.as_of,
            exact=True,
            note=found.note,
        )
    near = table.nearest(instance_type, region, option)
    if near is None:
        return None
    return Quote(
        usd_per_hour=near.usd_per_hour,
        region=near.region,
        option=option,
        source=table.source_url(near),
        as_of=near.as_of,
        exact=False,
        note=f"no {option} price for {instance_type} in {region} in the catalog; "
        f"using {near.region}'s (nearest documented), {region} may differ",
    )


Overrides = Mapping[str, Union[float, Mapping[str, float]]]


def home_price(instance_type: str, home_region: str) -> Optional[Price]:
    """A shape's headline price: its on-demand row in its home region (shapes.yaml `home_region`), or None."""
    return load_prices().exact(instance_type, home_region, "on-demand")


def overridden_price(overrides: Optional[Overrides], instance_type: str, option: str = "on-demand") -> Optional[float]:
    """A stack's own rate for ``instance_type`` bought as ``option``, or None.

    `prices: {p5.48xlarge: 55.0}` is every option's rate (the form stacks used first); `prices: {p5.48xlarge:
    {on-demand: 55.0}}` only on-demand's, so a negotiated on-demand rate never replaces a spot group's price.
    """
    value = (overrides or {}).get(instance_type)
    if isinstance(value, Mapping):
        value = value.get(option)
    return None if value is None else float(value)


def flat_overrides(overrides: Optional[Overrides]) -> dict[str, float]:
    """{instance type: on-demand USD/hour} of a stack's overrides, for configs that take one number a type."""
    flat = {t: overridden_price(overrides, t) for t in overrides or {}}
    return {t: v for t, v in flat.items() if v is not None}


def hourly_price(
    instance_type: str, region: Optional[str] = None, option: str = "on-demand", overrides: Optional[Overrides] = None
) -> tuple[Optional[float], str]:
    """The one price lookup every consumer uses (resolver, plan cost, cost rules): (USD per hour, its source).

    A caller's override (a stack's `prices:`, a pack's `prices` config) wins; then the catalog's price in
    ``region`` under ``option`` (the nearest documented region, with a note, when the region has none); an option
    without a price falls back to on-demand; with no region, or no regional price at all, the shape's headline
    price (its home region's on-demand row: the same table, never a second copy).
    """
    override = overridden_price(overrides, instance_type, option)
    if override is not None:
        return override, "stack override (prices)"
    if region is not None:
        found = quote(instance_type, region, option)
        if found is not None:
            return found.usd_per_hour, found.cite()
        if option != "on-demand":
            return hourly_price(instance_type, region, "on-demand")
    from . import load_catalog  # the shapes' list prices, in the same layer

    shape = load_catalog().get(instance_type)
    if shape is None:
        return None, "not in the catalog"
    row = home_price(instance_type, shape.home_region)
    if row is None:
        return None, f"no list price ({shape.unpriced_note})" if shape.unpriced_note else "no list price"
    return row.usd_per_hour, f"{load_prices().source_url(row)} as of {row.as_of} ({row.region})"
