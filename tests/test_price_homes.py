"""A price has one home (issue 24 item 4): instance prices live in prices.yaml (GPU shapes) or system_shapes.yaml
(CPU system shapes), never in both and never beside a shape in shapes.yaml, so no cost rule can read a second copy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from catalog import load_catalog
from catalog.prices import hourly_price, load_prices
from catalog.system_shapes import load_system_shapes
from catalog.yamlfile import load_yaml

CATALOG = Path(__file__).resolve().parents[1] / "catalog"
# The keys a stored price is written with in the catalog's YAML.
PRICE_KEYS = {"usd_per_hour", "price", "prices", "usd"}
# The files allowed to hold instance prices, and service_prices.yaml's service rates (no instance type).
PRICE_HOMES = {"prices.yaml", "system_shapes.yaml", "service_prices.yaml"}


def _keys(data: Any, path: str = "") -> Iterator[str]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield f"{path}.{k}" if path else str(k)
            yield from _keys(v, f"{path}.{k}" if path else str(k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _keys(v, f"{path}[{i}]")


def _stored_prices(name: str) -> list[str]:
    return [k for k in _keys(load_yaml(CATALOG / name)) if k.rsplit(".", 1)[-1] in PRICE_KEYS]


def test_only_the_price_tables_store_prices():
    stored = {p.name: _stored_prices(p.name) for p in sorted(CATALOG.glob("*.yaml"))}
    assert {name for name, keys in stored.items() if keys} <= PRICE_HOMES, stored


def test_the_finder_sees_a_price_beside_a_shape(tmp_path):
    (tmp_path / "shapes.yaml").write_text("shapes:\n  - instance_type: x\n    price: {usd_per_hour: 1.0}\n")
    global CATALOG
    saved, CATALOG = CATALOG, tmp_path
    try:
        assert _stored_prices("shapes.yaml") == ["shapes[0].price", "shapes[0].price.usd_per_hour"]
    finally:
        CATALOG = saved


def test_no_instance_type_is_priced_in_two_tables():
    gpu = {p.instance_type for p in load_prices().prices}
    system = {s.instance_type for s in load_system_shapes().shapes if s.prices}
    assert gpu & system == set()
    assert gpu <= {s.instance_type for s in load_catalog().shapes}


def test_a_cost_rule_without_a_region_reads_the_same_row_as_the_plan():
    # policies/library/pricing.py asks without a region; the resolver asks with the stack's. In the shape's home
    # region both must be the one prices.yaml row.
    for shape in load_catalog().shapes:
        without_region = hourly_price(shape.instance_type)[0]
        in_home = hourly_price(shape.instance_type, shape.home_region)[0]
        assert without_region == in_home == shape.price.usd_per_hour, shape.instance_type
