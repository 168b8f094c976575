"""The resolver picks the cheapest real shape and names every way it differs from the request."""

import pytest

from blueprints.errors import BlueprintError
from blueprints.offline.cost import estimate
from blueprints.resolver import resolve
from blueprints.stackconfig import parse_cluster
from catalog.prices import load_prices
from conftest import shipped_cluster, shipped_plan


def resolved(base: str, **changes):
    cluster = shipped_cluster(base)
    for path, value in changes.items():
        node = cluster
        keys = path.split("__")
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = value
    return resolve(parse_cluster(cluster, "test"))


def notes(plan) -> str:
    return "\n".join(plan.notes)


def test_more_gpus_than_asked_names_the_smallest_real_shape():
    plan = resolved("research-a100")
    assert plan.node_groups[0].shape.instance_type == "p4de.24xlarge"
    assert "4 x A100-80GB requested per node; aws's smallest such shape in us-east-1 is p4de.24xlarge with 8" in notes(
        plan
    )


def test_alibaba_has_the_exact_research_shape():
    plan = resolved("research-a100-aliyun")
    assert plan.node_groups[0].shape.instance_type == "ecs.gn7e-c16g1.16xlarge"
    assert "requested per node" not in notes(plan)


def test_network_and_nvme_shortfalls_are_notes():
    plan = resolved("startup-t4-aliyun")
    assert "10 Gbps requested; ecs.gn6i-c8g1.2xlarge sustains 5 Gbps" in notes(plan)
    assert "500 GB local NVMe requested; ecs.gn6i-c8g1.2xlarge has 0 GB" in notes(plan)


def test_cheapest_shape_that_meets_every_hard_requirement():
    plan = resolved("startup-t4")
    assert plan.node_groups[0].shape.instance_type == "g4dn.2xlarge"  # g4dn.xlarge has 4 vCPUs / 16 GiB


def test_rdma_capable_shape_with_rdma_off_is_noted():
    plan = resolved("research-a100", networking__rdma=False)
    assert plan.node_groups[0].rdma_interfaces == 0
    assert "supports EFA but networking.rdma is off" in notes(plan)


def test_capacity_block_skips_the_placement_group():
    plan = resolved(
        "enterprise-h100",
        nodeGroups__gpu__capacity="capacity-block",
        nodeGroups__gpu__capacityReservationId="cr-0123456789abcdef0",
        nodeGroups__gpu__zone="us-east-1b",
        nodeGroups__gpu__minNodes=2,
        nodeGroups__gpu__desiredNodes=2,
        nodeGroups__gpu__maxNodes=2,
    )
    group = plan.node_groups[0]
    assert group.rdma_interfaces == 32 and not group.placement_group
    assert group.zone == "us-east-1b"
    assert "capacity blocks place instances themselves" in notes(plan)


def test_capacity_block_needs_a_fixed_size():
    with pytest.raises(BlueprintError, match="minNodes = desiredNodes = maxNodes"):
        resolved(
            "enterprise-h100",
            nodeGroups__gpu__capacity="capacity-block",
            nodeGroups__gpu__capacityReservationId="cr-0123456789abcdef0",
            nodeGroups__gpu__zone="us-east-1b",
        )


def test_odcr_gets_no_placement_group_unless_the_group_asks():
    odcr = dict(
        nodeGroups__gpu__capacity="reservation",
        nodeGroups__gpu__capacityReservationId="cr-0123456789abcdef0",
        nodeGroups__gpu__zone="us-east-1c",
    )
    plan = resolved("enterprise-h100", **odcr)
    assert not plan.node_groups[0].placement_group
    assert "an ODCR is not in a placement group unless placement: cluster asks" in notes(plan)
    assert resolved("enterprise-h100", nodeGroups__gpu__placement="cluster", **odcr).node_groups[0].placement_group


def test_rdma_zone_defaults_to_zone_a_from_the_spec_and_the_plan_says_so():
    plan = resolved("research-a100")
    assert plan.zone == "us-east-1a" and plan.node_groups[0].zone == "us-east-1a"
    assert "zone: node group gpu and the file system go in us-east-1a, the default zone for us-east-1" in notes(plan)
    pinned = resolved("research-a100", networking__zone="us-east-1c")
    assert pinned.zone == pinned.node_groups[0].zone == "us-east-1c"
    assert "default zone" not in notes(pinned)


def test_a_group_without_rdma_gets_the_cheapest_shape_and_no_zone_or_placement():
    plan = resolved("research-a100", nodeGroups__inference={"gpuModel": "A10G", "gpusPerNode": 1, "rdma": False})
    training, inference = plan.node_groups
    assert training.rdma_interfaces == 4 and training.placement_group
    # g5.xlarge (no EFA) is the cheapest single A10G; with RDMA the cheapest would be g5.8xlarge.
    assert inference.shape.instance_type == "g5.xlarge"
    assert inference.rdma_interfaces == 0 and not inference.placement_group and inference.zone is None
    with_rdma = resolved("research-a100", nodeGroups__inference={"gpuModel": "A10G", "gpusPerNode": 1})
    assert with_rdma.node_groups[1].shape.instance_type == "g5.8xlarge"


def test_alibaba_spot_rdma_pool_gets_no_deployment_set():
    plan = resolved("enterprise-aliyun", nodeGroups__gpu__capacity="spot")
    assert plan.node_groups[0].rdma_interfaces and not plan.node_groups[0].placement_group
    assert "no low-latency deployment set" in notes(plan) and "holds no spot instances" in notes(plan)


def test_alibaba_spot_pool_is_priced_at_alibabas_preemptible_rate():
    # Alibaba's DescribePrice SpotAsPriceGo figure (ali-api-vms), not the pay-as-you-go one standing in for it.
    group = resolved("startup-t4-aliyun", nodeGroups__gpu__capacity="spot").node_groups[0]
    on_demand = resolved("startup-t4-aliyun").node_groups[0]
    assert group.shape.instance_type == on_demand.shape.instance_type == "ecs.gn6i-c8g1.2xlarge"
    assert group.usd_per_hour == pytest.approx(0.6105) and on_demand.usd_per_hour == pytest.approx(1.9436)
    assert "an upper bound" not in notes(resolved("startup-t4-aliyun", nodeGroups__gpu__capacity="spot"))


def test_spot_price_without_a_source_is_called_an_upper_bound():
    # gn8v-8x.48xlarge has no preemptible price anywhere in the data: on-demand stands in, called an upper bound.
    assert "an upper bound" in notes(resolved("enterprise-aliyun", nodeGroups__gpu__capacity="spot"))


def test_spot_group_with_a_catalog_spot_price_uses_it_without_the_upper_bound_note():
    plan = resolved("startup-t4", nodeGroups__gpu__capacity="spot")
    group = plan.node_groups[0]
    row = load_prices().exact(group.shape.instance_type, "us-east-1", "spot")
    assert row is not None and group.usd_per_hour == row.usd_per_hour and "(us-east-1, spot)" in group.price_source
    assert "an upper bound" not in notes(plan)


def test_unpriced_shape_is_named_and_a_stack_price_fixes_it():
    plan = resolved(
        "enterprise-h100",
        region="us-east-2",
        nodeGroups__gpu__gpuModel="H200",
        nodeGroups__gpu__instanceType="p5e.48xlarge",
    )
    assert plan.node_groups[0].usd_per_hour is None
    assert "p5e.48xlarge has no list price" in notes(plan)
    priced = resolved(
        "enterprise-h100",
        region="us-east-2",
        nodeGroups__gpu__gpuModel="H200",
        nodeGroups__gpu__instanceType="p5e.48xlarge",
        prices={"p5e.48xlarge": 60.0},
    )
    assert priced.node_groups[0].usd_per_hour == 60.0 and priced.node_groups[0].price_source.startswith("stack")


def test_price_guidance_difference_is_noted():
    assert "sizing guidance expects about $120.00/h" in notes(resolved("enterprise-h100"))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"nodeGroups__gpu__gpuModel": "V100"}, "unknown GPU model 'V100' on aws; models:"),
        ({"nodeGroups__gpu__gpusPerNode": 16}, "no aws shape has 16 x A100-80GB; shapes have 8"),
        ({"region": "sa-east-1"}, "no A100-80GB shape with EFA is sold in sa-east-1"),
        (
            {"nodeGroups__gpu__instanceType": "p4de.24xlarge", "region": "eu-west-1"},
            "p4de.24xlarge is not sold in eu-west-1",
        ),
        ({"nodeGroups__gpu__instanceType": "g5.xlarge"}, "g5.xlarge has 1 x A10G, not 4 x A100-80GB"),
    ],
)
def test_requests_no_shape_meets_are_one_clear_error(changes, message):
    with pytest.raises(BlueprintError) as error:
        resolved("research-a100", **changes)
    assert message in str(error.value)


def test_rdma_on_gn7e_names_the_shapes_that_have_it():
    with pytest.raises(BlueprintError) as error:
        resolved("research-a100-aliyun", networking__rdma=True)
    text = str(error.value)
    assert "no A100-80GB shape with eRDMA is sold in cn-hangzhou" in text
    assert "ecs.ebmgn7ex.32xlarge" in text and "ecs.gn8v-8x.48xlarge" in text


NOV_2026 = __import__("datetime").date(2026, 11, 22)


def _with_version(stack: str, version: str):
    cluster = shipped_cluster(stack)
    cluster["kubernetesVersion"] = version
    return parse_cluster(cluster, "test")


def test_kubernetes_in_standard_support_is_quiet():
    plan = resolve(_with_version("research-a100", "1.35"), today=NOV_2026)
    assert plan.kubernetes.support == "standard" and plan.kubernetes.ends.isoformat() == "2027-03-27"
    assert not any("Kubernetes" in n for n in plan.notes)


def test_eks_extended_support_is_a_note_and_costs_more():
    plan = resolve(_with_version("research-a100", "1.33"), today=NOV_2026)
    assert plan.kubernetes.support == "extended"
    assert any("EKS extended support until 2027-07-29" in n and "1.35" in n for n in plan.notes)
    # The cost estimate prices the control plane from the resolver's verdict.
    registrations = shipped_plan("research-a100").registrations
    spec = plan.spec
    [standard] = [i for i in estimate(spec, registrations).items if i.component == "control-plane"]
    [extended] = [i for i in estimate(spec, registrations, "extended").items if i.component == "control-plane"]
    assert (standard.usd_per_hour, extended.usd_per_hour) == (0.10, 0.60)
    assert extended.description == "EKS control plane, extended support"


def test_a_version_the_cloud_no_longer_creates_is_an_error():
    with pytest.raises(BlueprintError, match=r"ACK support for Kubernetes 1.33 ended on 2026-05-31; use one of 1.35"):
        resolve(_with_version("enterprise-aliyun", "1.33"), today=NOV_2026)
    with pytest.raises(BlueprintError, match=r"EKS support for Kubernetes 1.32 ended on 2027-03-23"):
        resolve(_with_version("research-a100", "1.32"), today=__import__("datetime").date(2027, 4, 1))
    with pytest.raises(BlueprintError, match="ACK does not offer Kubernetes 1.32"):
        resolve(_with_version("enterprise-aliyun", "1.32"), today=NOV_2026)


def test_old_list_prices_are_called_out_and_overrides_silence_them():
    # The price used is us-east-1's row in prices.yaml (Karpenter's price list, 2026-07-20).
    late = __import__("datetime").date(2027, 3, 1)
    stale = resolve(_with_version("research-a100", "1.35"), today=late)
    [note] = [n for n in stale.notes if "list price is from" in n]
    assert note.startswith("p4de.24xlarge list price is from 2026-07-20 (224 days ago)")
    fresh = resolve(_with_version("research-a100", "1.35"), today=__import__("datetime").date(2026, 8, 1))
    assert not [n for n in fresh.notes if "list price is from" in n]
    cluster = shipped_cluster("research-a100")
    cluster["prices"] = {"p4de.24xlarge": 22.0}
    assert not [n for n in resolve(parse_cluster(cluster, "test"), today=late).notes if "list price is from" in n]


def test_a_stack_removes_or_renames_a_preset_node_group_with_null():
    """`gpu: null` takes the preset's group away (issue #15): the group does not come back, and a group added
    under another name is the only one; the plan's node groups follow."""
    from blueprints.stackconfig import parse_cluster

    raw = {
        "preset": "research",
        "cloud": "aws",
        "region": "us-east-1",
        "nodeGroups": {"gpu": None, "training": {"gpuModel": "A100-80GB", "gpusPerNode": 8, "maxNodes": 2}},
    }
    plan = resolve(parse_cluster(raw, "stacks/Pulumi.renamed.yaml"))
    assert [g.name for g in plan.node_groups] == ["training"]
    assert plan.node_groups[0].shape.gpu.count == 8


def test_null_gives_a_preset_field_back_to_the_spec_default():
    from blueprints.stackconfig import parse_cluster

    preset = parse_cluster({"preset": "research", "cloud": "aws", "region": "us-east-1"}, "s")
    cleared = parse_cluster(
        {"preset": "research", "cloud": "aws", "region": "us-east-1", "kubernetes": {"teams": None}}, "s"
    )
    assert preset.kubernetes.teams and not cleared.kubernetes.teams
