"""System node shape prices against the independent rows kept in tests/data/system_prices (see SOURCE.md there).

A catalog row sourced from SkyPilot's AWS catalog must equal that data's on-demand `Price` for the type and region
within 0.0001 USD/h (the catalog keeps 4 decimals); the Karpenter-sourced us-east-1 row must agree with it too.
"""

import csv
from pathlib import Path

import pytest

from blueprints.resolver import _system_group
from blueprints.stackconfig import load_stack_spec
from catalog.system_shapes import load_system_shapes

DATA = Path(__file__).parent / "data" / "system_prices" / "skypilot-aws-m6i-xlarge.csv"
TOLERANCE = 0.0001  # USD per hour


def skypilot():
    """{(type, region): on-demand price}; every zone row of a region must carry the same price."""
    prices: dict[tuple[str, str], set[float]] = {}
    for row in csv.DictReader(DATA.open()):
        prices.setdefault((row["InstanceType"], row["Region"]), set()).add(float(row["Price"]))
    assert all(len(v) == 1 for v in prices.values()), prices
    return {k: v.pop() for k, v in prices.items()}


SHAPES = load_system_shapes()
ROWS = [(s.instance_type, p) for s in SHAPES.shapes for p in s.prices]


def test_every_price_row_names_a_known_source():
    for shape in SHAPES.shapes:
        for p in shape.prices:
            assert (p.source or shape.sources.price) in SHAPES.sources, (shape.instance_type, p)


@pytest.mark.parametrize(
    "instance_type,price", [r for r in ROWS if r[1].source == "skypilot-aws-vms"], ids=lambda x: getattr(x, "region", x)
)
def test_skypilot_sourced_rows_equal_the_kept_data(instance_type, price):
    assert price.usd_per_hour == pytest.approx(skypilot()[(instance_type, price.region)], abs=TOLERANCE)


def test_the_data_backs_eu_central_1_and_agrees_with_karpenter_in_us_east_1():
    shape = SHAPES.get("m6i.xlarge")
    eu, us = shape.price_in("eu-central-1"), shape.price_in("us-east-1")
    assert eu is not None and eu.source == "skypilot-aws-vms"
    assert us.usd_per_hour == pytest.approx(skypilot()[("m6i.xlarge", "us-east-1")], abs=TOLERANCE)


def test_the_eu_stacks_system_group_is_priced_and_cites_skypilot():
    spec = load_stack_spec("research-a100-eu")
    group, notes = _system_group(spec)
    assert notes == []
    assert group.usd_per_hour == pytest.approx(0.23, abs=TOLERANCE)
    assert "skypilot-catalog" in group.price_source and "eu-central-1" in group.price_source
