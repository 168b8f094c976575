"""Every Alibaba Cloud catalog row against Alibaba's own API data (tests/data/alicloud, see SOURCE.md there).

Regions: a shape's pay-as-you-go `regions` equal the regions the data sells it in, exactly. Prices: the catalog's
pay-as-you-go and preemptible rows equal the data's figure (pay-as-you-go) and the mean of the region's zones
(preemptible) within 0.0001 USD/h (the catalog rounds to 4 decimals). Rows that deliberately differ are listed in
PAGE_ROWS with the reason; anything else that differs fails.
"""

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from catalog import load_catalog
from catalog.prices import load_prices

DATA = Path(__file__).parent / "data" / "alicloud" / "vms-catalog-shapes.csv"
TOLERANCE = 0.0001  # USD per hour: the catalog keeps 4 decimals of the data's 8

# Alibaba price-page figures (ali-pricing, 2025-11-01) kept where the API data has no pay-as-you-go offer for the
# type in that region (it is sold there on request): nothing in the data to compare them with.
PAGE_ROWS = {
    ("ecs.gn7i-c32g1.32xlarge", "cn-hangzhou"),
    ("ecs.gn7e-c16g1.4xlarge", "cn-hangzhou"),
    ("ecs.gn7e-c16g1.8xlarge", "cn-hangzhou"),
    ("ecs.gn7e-c16g1.16xlarge", "cn-hangzhou"),
    ("ecs.gn7e-c16g1.32xlarge", "cn-hangzhou"),
    ("ecs.ebmgn7e.32xlarge", "cn-hangzhou"),
    ("ecs.ebmgn7ex.32xlarge", "cn-wulanchabu"),
    ("ecs.gn8is-8x.32xlarge", "ap-southeast-1"),
    ("ecs.gn8v-8x.48xlarge", "cn-wulanchabu"),
}


def api():
    data = defaultdict(dict)
    for row in csv.DictReader(DATA.open()):
        spots = [float(s) for s in row["SpotPrices"].split()]
        data[row["InstanceType"]][row["Region"]] = (float(row["Price"]), sum(spots) / len(spots))
    return data


ALI = [s.instance_type for s in load_catalog().for_cloud("alicloud")]


@pytest.mark.parametrize("instance_type", ALI)
def test_pay_as_you_go_regions_are_the_apis(instance_type):
    shape = load_catalog().get(instance_type)
    assert sorted(shape.regions) == sorted(api().get(instance_type, {})), instance_type
    # A region is either sold pay-as-you-go or on request, never both.
    assert not set(shape.regions) & set(shape.on_request_regions)


@pytest.mark.parametrize("instance_type", ALI)
def test_every_region_the_api_sells_has_both_prices_and_they_match(instance_type):
    table = load_prices()
    for region, (payg, spot) in api().get(instance_type, {}).items():
        on_demand = table.exact(instance_type, region, "on-demand")
        preemptible = table.exact(instance_type, region, "spot")
        assert on_demand is not None and preemptible is not None, (instance_type, region)
        assert on_demand.usd_per_hour == pytest.approx(payg, abs=TOLERANCE), (instance_type, region)
        assert preemptible.usd_per_hour == pytest.approx(spot, abs=TOLERANCE), (instance_type, region)
        assert on_demand.source == preemptible.source == "ali-api-vms"


def test_no_alibaba_price_row_is_outside_the_data_unless_it_says_why():
    data = api()
    for row in load_prices().prices:
        if not row.instance_type.startswith("ecs."):
            continue
        if row.region in data.get(row.instance_type, {}):
            assert row.source == "ali-api-vms", row
            continue
        assert (row.instance_type, row.region) in PAGE_ROWS and row.option == "on-demand", row
        assert row.source == "ali-pricing" and "no pay-as-you-go offer" in (row.note or ""), row
        assert row.region in load_catalog().get(row.instance_type).on_request_regions, row


@pytest.mark.parametrize("instance_type", ALI)
def test_headline_price_is_an_api_figure(instance_type):
    shape = load_catalog().get(instance_type)
    regions = api().get(instance_type)
    if not regions:
        assert shape.price.source in ("ali-pricing", None) and not shape.regions
        return
    assert shape.price.usd_per_hour == pytest.approx(regions[shape.price.region][0], abs=TOLERANCE)


def test_issue_29_t4_price_is_alibabas_not_the_old_page_figure():
    # DescribePrice says 1.943592 USD/h for gn6i-c8g1.2xlarge in cn-hangzhou; the catalog had 0.78 from the page.
    row = load_prices().exact("ecs.gn6i-c8g1.2xlarge", "cn-hangzhou")
    assert row.usd_per_hour == pytest.approx(1.9436) and row.source == "ali-api-vms"


# ---- The resolver sells only what the region sells (issue 29 item 2) ----


def _resolved(base, **changes):
    from test_resolver import resolved

    return resolved(base, **changes)


def test_shipped_alibaba_stacks_name_the_on_request_shape_in_the_plan():
    from test_resolver import notes

    for stack, shape in (
        ("research-a100-aliyun", "ecs.gn7e-c16g1.16xlarge"),
        ("enterprise-aliyun", "ecs.gn8v-8x.48xlarge"),
    ):
        plan = _resolved(stack)
        assert plan.node_groups[0].shape.instance_type == shape
        assert plan.spec.region not in plan.node_groups[0].shape.regions
        assert f"{shape} is sold in {plan.spec.region} on request only" in notes(plan), stack
    # startup's gn6i is sold pay-as-you-go in cn-hangzhou: no such note.
    assert "on request only" not in notes(_resolved("startup-t4-aliyun"))


def test_a_shape_sold_pay_as_you_go_beats_a_cheaper_one_sold_only_on_request():
    # 4 x A10 in cn-shenzhen: gn7i-c32g1.32xlarge is sold there pay-as-you-go ($7.36/h); gn7i-4x.8xlarge only on
    # request (its nearest price, $4.91/h in us-east-1, is lower). Cheapest-first alone would pick the latter.
    plan = _resolved(
        "startup-t4-aliyun", region="cn-shenzhen", nodeGroups__gpu__gpuModel="A10", nodeGroups__gpu__gpusPerNode=4
    )
    assert plan.node_groups[0].shape.instance_type == "ecs.gn7i-c32g1.32xlarge"


def test_a_shape_is_never_picked_where_it_is_neither_sold_nor_on_request():
    from blueprints.errors import BlueprintError

    # gn7e-c16g1.16xlarge: pay-as-you-go only in ap-northeast-1, on request in four mainland regions; not Shenzhen.
    with pytest.raises(BlueprintError, match="not sold in cn-shenzhen"):
        _resolved("research-a100-aliyun", region="cn-shenzhen", nodeGroups__gpu__instanceType="ecs.gn7e-c16g1.16xlarge")
    # T4 shapes in cn-heyuan: the data sells none there, and no page lists one there.
    with pytest.raises(BlueprintError, match="cn-heyuan"):
        _resolved("startup-t4-aliyun", region="cn-heyuan")
