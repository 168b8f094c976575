"""Candidates across clouds: nodes, fabric, time, cost per purchase option, ranked consistently with the catalog."""

import math

import pytest

from blueprints.errors import BlueprintError
from blueprints.sizing import flops as fl
from blueprints.sizing.candidates import advise
from blueprints.sizing.commitments import TERM_HOURS, best_commitment, break_even_utilization
from blueprints.sizing.memory import breakdown, gpus_per_replica
from blueprints.sizing.workload import build_workload
from catalog import load_catalog
from catalog.prices import load_prices

SEVEN_B = dict(params=7e9, tokens=1e12, target_hours=30 * 24)


@pytest.fixture(scope="module")
def advice():
    return advise(build_workload(**SEVEN_B))


def test_7b_on_1t_tokens_lists_both_clouds_with_every_purchase_option(advice):
    clouds = {c.shape.cloud for c in advice.candidates}
    assert clouds == {"aws", "alicloud"}
    for c in advice.candidates:
        assert [o.option for o in c.options] == ["on-demand", "spot", "commit-1y", "commit-3y", "capacity-block"]
    priced = {o.option for c in advice.candidates for o in c.options if o.cost_to_finish_usd is not None}
    assert {"on-demand", "spot", "commit-1y", "capacity-block"} <= priced


def test_costs_follow_from_catalog_prices_nodes_and_hours(advice):
    table = load_prices()
    w = advice.workload
    for c in advice.candidates:
        peak = fl.peak_tflops(c.shape.gpu.model, w.precision)
        if peak is None:  # no datasheet figure: no time, so no cost to finish
            assert c.hours is None and all(o.cost_to_finish_usd is None for o in c.options)
            continue
        assert c.hours == pytest.approx(fl.hours(advice.flops, c.gpus, peak, w.mfu), abs=0.01)
        for o in c.options:
            if o.cost_to_finish_usd is None:
                continue
            row = table.exact(c.shape.instance_type, o.quote.region, o.option)
            assert row is not None and row.usd_per_hour == o.quote.usd_per_hour
            assert o.quote.as_of == row.as_of and o.quote.source == table.sources[row.source]
            assert o.cost_to_finish_usd == pytest.approx(c.nodes * o.billed_hours * row.usd_per_hour, rel=1e-5)


def test_ranked_by_cost_to_finish_with_cheapest_and_fastest_marked(advice):
    costs = [c.best().cost_to_finish_usd for c in advice.candidates if c.best()]
    assert costs == sorted(costs)
    assert "cheapest" in advice.candidates[0].marks and advice.cheapest is advice.candidates[0]
    fastest = [c for c in advice.candidates if "fastest" in c.marks]
    assert len(fastest) == 1
    assert fastest[0].hours == min(c.hours for c in advice.candidates if c.hours is not None)


def test_nodes_meet_the_deadline_and_hold_a_replica(advice):
    timed = [c for c in advice.candidates if c.hours is not None]
    assert len(timed) > len(advice.candidates) / 2
    for c in timed:
        assert c.hours <= 30 * 24 + 0.01
    for c in advice.candidates:
        assert c.gpus >= c.gpus_per_replica
        assert c.nodes % math.ceil(c.gpus_per_replica / c.shape.gpu.count) == 0
        if c.nodes > 1:
            assert c.fabric in ("EFA", "eRDMA") and c.shape.rdma.kind != "none"


def test_multi_node_without_fabric_is_refused_with_the_reason(advice):
    no_fabric = [c for c in advice.infeasible if c.shape.rdma.kind == "none" and c.nodes > 1]
    assert no_fabric and all("no RDMA fabric" in c.why_not for c in no_fabric)


def test_spot_adds_the_settable_interruption_overhead():
    a = advise(build_workload(**SEVEN_B, spot_overhead=0.25, regions=("us-east-1",), clouds=("aws",)))
    c = next(c for c in a.candidates if c.shape.instance_type == "p5en.48xlarge")
    spot, od = c.option("spot"), c.option("on-demand")
    assert spot.billed_hours == pytest.approx(od.billed_hours * 1.25, abs=0.01)


def test_commitments_bill_the_whole_term_and_state_break_even(advice):
    for c in advice.candidates:
        for name in ("commit-1y", "commit-3y"):
            o = c.option(name)
            if o.cost_to_finish_usd is None:
                continue
            assert o.billed_hours == max(c.hours, TERM_HOURS[name])
            od = c.option("on-demand").quote.usd_per_hour
            assert o.break_even_utilization == pytest.approx(o.quote.usd_per_hour / od, abs=0.001)


def test_capacity_blocks_only_where_sold_and_in_whole_days(advice):
    for c in advice.candidates:
        o = c.option("capacity-block")
        if c.shape.cloud == "alicloud":
            assert o.cost_to_finish_usd is None and "not sold" in o.note
        elif o.cost_to_finish_usd is not None:
            assert o.billed_hours % 24 == 0 and o.billed_hours >= c.hours


def test_gpus_per_replica_agree_with_memory_model(advice):
    mem = breakdown(advice.workload)
    for c in advice.candidates:
        assert c.gpus_per_replica == gpus_per_replica(mem, c.shape.gpu.memory_gib)


def test_every_catalog_shape_is_considered():
    a = advise(build_workload(params=110e6, tokens=1e9))
    seen = {c.shape.instance_type for c in a.candidates + a.infeasible}
    # Issue #37: shapes sold only on request (Alibaba's gn8v-8x.48xlarge) are considered too, marked, never cheapest.
    assert seen == {s.instance_type for s in load_catalog().shapes if s.regions or s.on_request_regions}
    asked = [c for c in a.candidates if c.on_request]
    assert asked and all("on request" in c.marks and "cheapest" not in c.marks for c in asked)


def test_break_even_and_best_commitment():
    assert break_even_utilization(6.0, 10.0) == 0.6
    # 2 instances busy all year, a third half the time: commit 2 (the third's 50% < 60% break-even).
    usage = [2.5 * 730] * 12
    advice = best_commitment(usage, on_demand=10.0, commit=6.0)
    assert advice.instances == 2
    assert advice.saving_usd == pytest.approx(12 * 2 * 730 * (10.0 - 6.0))
    assert best_commitment([100.0] * 12, 10.0, 6.0).instances == 0


def test_a_region_with_no_fitting_shape_is_one_clear_error():
    with pytest.raises(BlueprintError) as error:
        # cn-nanjing sells only 1-GPU T4 shapes, no eRDMA: 175B needs many nodes, and they need a fabric.
        advise(build_workload(params=175e9, tokens=1e12, regions=("cn-nanjing",), clouds=("alicloud",)))
    assert error.value.where == "--region" and "no shape in cn-nanjing fits" in str(error.value)
    assert "no RDMA fabric" in str(error.value)


def test_an_unknown_region_lists_the_known_ones():
    with pytest.raises(BlueprintError) as error:
        advise(build_workload(params=7e9, tokens=1e9, regions=("mars-1",)))
    assert "mars-1" in str(error.value) and "us-east-1" in str(error.value)


def test_alibaba_candidates_are_priced_in_their_own_region():
    # Since issue 29 every region an Alibaba shape is sold in pay-as-you-go has its own API price (ali-api-vms):
    # no candidate borrows another region's, and each has a preemptible (spot) figure too.
    a = advise(build_workload(params=110e6, tokens=5e9, seq_len=512, micro_batch=8, clouds=("alicloud",)))
    ali = [c for c in a.candidates if c.shape.cloud == "alicloud" and not c.on_request]  # on request: no API price
    assert ali
    for c in ali:
        assert c.option("on-demand").quote.exact and c.option("on-demand").quote.region == c.region
        assert c.option("spot").quote is not None and c.option("spot").quote.region == c.region
