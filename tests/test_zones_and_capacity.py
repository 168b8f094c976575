"""Issue #15: capacity blocks and ODCRs as EKS documents them, fabric and placement per node group, and zones that
come from the spec, so a data source listing zones in another order moves nothing."""

from pathlib import Path

import pytest

from blueprints.cli import main
from blueprints.offline import engine
from blueprints.offline.mocks import OfflineMocks
from blueprints.offline.plan import make_plan
from conftest import data_plan, gpu_groups, resources, shipped_cluster, shipped_plan, write_stack

DATA = Path(__file__).parent / "data" / "stacks"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
PG = "aws:ec2/placementGroup:PlacementGroup"
SUBNET = "aws:ec2/subnet:Subnet"


def by_name(plan, type_):
    return {r.name: r.inputs for r in plan.registrations if r.type == type_}


def subnet_zone(plan, subnet_id):
    subnets = {r.id: r.inputs["availabilityZone"] for r in plan.registrations if r.type == SUBNET}
    return subnets[subnet_id]


def test_capacity_block_group_launches_into_its_block_in_its_zone():
    plan = data_plan("capacity-block")
    template = by_name(plan, LT)["capacity-block-gpu"]
    assert template["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert template["instanceType"] == "p5.48xlarge"  # EKS takes a block's instance type from the template only
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}
    }
    assert "placement" not in template  # AWS places a block's instances itself
    assert not resources(plan, PG)
    (group,) = gpu_groups(plan)
    assert group["capacityType"] == "CAPACITY_BLOCK"
    assert "instanceTypes" not in group
    # The block starts later: the group waits at zero until the scheduled scale-up at the block's start.
    assert group["scalingConfig"] == {"minSize": 0, "desiredSize": 0, "maxSize": 2}
    (subnet,) = group["subnetIds"]
    assert subnet_zone(plan, subnet) == "us-east-1b"
    # The file system sits beside the RDMA group, in the block's zone.
    (lustre,) = resources(plan, "aws:fsx/lustreFileSystem:LustreFileSystem")
    assert subnet_zone(plan, lustre["subnetIds"]) == "us-east-1b"  # one subnet (pulumi-aws types it as a string)


def test_capacity_block_scales_up_at_its_start_and_leaves_the_scale_down_to_eks():
    (schedule,) = resources(data_plan("capacity-block"), "aws:autoscaling/schedule:Schedule")
    assert schedule["startTime"] == "2026-12-01T11:30:00Z"
    assert (schedule["minSize"], schedule["maxSize"], schedule["desiredCapacity"]) == (2, 2, 2)


def test_odcr_group_targets_its_resource_group_without_a_placement_group():
    plan = data_plan("odcr")
    template = by_name(plan, LT)["odcr-gpu"]
    group = "arn:aws:resource-groups:us-east-1:123456789012:group/gpu-reservations"
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationResourceGroupArn": group}
    }
    assert "instanceMarketOptions" not in template and "placement" not in template
    assert not resources(plan, PG)
    (group,) = gpu_groups(plan)
    assert group["capacityType"] == "ON_DEMAND"
    assert [subnet_zone(plan, s) for s in group["subnetIds"]] == ["us-east-1c"]


def test_inference_beside_training_gets_no_efa_and_no_placement_group():
    plan = data_plan("inference-training")
    templates = by_name(plan, LT)
    training, inference = templates["inference-training-gpu"], templates["inference-training-inference"]
    assert len(training["networkInterfaces"]) == 4 and training["placement"]["groupName"] == "inference-training-efa"
    assert "networkInterfaces" not in inference and "placement" not in inference
    groups = {g["labels"]["gpu-blueprints/node-group"]: g for g in gpu_groups(plan)}
    assert groups["inference"]["instanceTypes"] == ["g5.xlarge"]
    assert "vpc.amazonaws.com/efa.present" not in groups["inference"]["labels"]
    assert len(groups["inference"]["subnetIds"]) == 3 and len(groups["gpu"]["subnetIds"]) == 1
    (pg,) = resources(plan, PG)
    assert pg["strategy"] == "cluster"


def test_each_rdma_group_gets_its_own_placement_group(tmp_path):
    cluster = shipped_cluster("research-a100")
    cluster["nodeGroups"] = {
        "gpu": {"gpuModel": "A100-80GB", "gpusPerNode": 8},
        "second": {"gpuModel": "A100-80GB", "gpusPerNode": 8},
    }
    write_stack(tmp_path, "two", cluster)
    plan = make_plan("two", tmp_path)
    placement = {r.name for r in plan.registrations if r.type == PG}
    assert placement == {"two-efa", "two-efa-second"}
    templates = by_name(plan, LT)
    assert templates["two-gpu"]["placement"]["groupName"] == "two-efa"
    assert templates["two-second"]["placement"]["groupName"] == "two-efa-second"


class ReorderedMocks(OfflineMocks):
    """The same zones and offerings, listed in another order (as a data source may answer on another day)."""

    def __init__(self, region):
        super().__init__(region)
        self.zones = list(reversed(self.zones))
        self.offered_zones = list(reversed(self.offered_zones))


STABLE_TYPES = (SUBNET, LT, "aws:eks/nodeGroup:NodeGroup", "aws:fsx/lustreFileSystem:LustreFileSystem", PG)


@pytest.mark.parametrize(
    "stack, folder",
    [("research-a100", None), ("enterprise-h100", None), ("capacity-block", DATA), ("inference-training", DATA)],
)
def test_zone_order_from_the_data_source_moves_no_node_group_and_no_file_system(monkeypatch, stack, folder):
    args = (stack, folder) if folder else (stack,)
    before = shipped_plan(*args)  # planned with the usual mocks, once for the run
    monkeypatch.setattr(engine, "OfflineMocks", ReorderedMocks)
    after = make_plan(*args)
    for type_ in STABLE_TYPES:
        assert by_name(after, type_) == by_name(before, type_), type_
    assert by_name(after, "aws:eks/nodeGroup:NodeGroup")  # the comparison compared something


def test_rdma_group_and_file_system_share_the_spec_zone():
    plan = shipped_plan("research-a100")
    (group,) = gpu_groups(plan)
    (lustre,) = resources(plan, "aws:fsx/lustreFileSystem:LustreFileSystem")
    assert [subnet_zone(plan, s) for s in group["subnetIds"]] == ["us-east-1a"]
    assert subnet_zone(plan, lustre["subnetIds"]) == "us-east-1a"


def run_cli(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().err


def bad(tmp_path, **group):
    cluster = shipped_cluster("research-a100")
    cluster["nodeGroups"] = {"gpu": {"gpuModel": "A100-80GB", "gpusPerNode": 8, **group}}
    write_stack(tmp_path, "bad", cluster)
    return ["plan", "--stack", "bad", "--stacks-dir", str(tmp_path)]


BLOCK = dict(
    capacity="capacity-block", capacityReservationId="cr-0123456789abcdef0", minNodes=1, desiredNodes=1, maxNodes=1
)


@pytest.mark.parametrize(
    "group, fragments",
    [
        (BLOCK, ("cluster.nodeGroups.gpu.zone", "capacity 'capacity-block' needs the reservation's zone")),
        (
            dict(capacity="reservation", capacityReservationId="cr-0123456789abcdef0"),
            ("cluster.nodeGroups.gpu.zone", "capacity 'reservation' needs the reservation's zone"),
        ),
        (dict(BLOCK, zone="us-west-2a"), ("cluster.nodeGroups.gpu.zone", "'us-west-2a' is not a zone of us-east-1")),
        # The region's data source lists no such zone.
        (dict(BLOCK, zone="us-east-1z"), ("cluster.nodeGroups.gpu.zone", "us-east-1z is not an available zone")),
        # The instance type offerings (the mocks sell every shape in zones a-c) do not include zone d.
        (
            dict(BLOCK, zone="us-east-1d"),
            (
                "cluster.nodeGroups.gpu.zone",
                "p4de.24xlarge is not offered in us-east-1d",
                "us-east-1a, us-east-1b, us-east-1c",
            ),
        ),
        (dict(BLOCK, zone="us-east-1b", maxNodes=2), ("cluster.nodeGroups.gpu", "minNodes = desiredNodes = maxNodes")),
    ],
)
def test_bad_zone_or_reservation_is_one_line_naming_the_field(capsys, tmp_path, group, fragments):
    code, err = run_cli(capsys, *bad(tmp_path, **group))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and "Pulumi.bad.yaml" in lines[0], err
    for fragment in fragments:
        assert fragment in lines[0]


def test_cluster_zone_that_does_not_sell_the_shape_names_networking_zone(capsys, tmp_path):
    cluster = shipped_cluster("research-a100")
    cluster["networking"] = {"rdma": True, "zone": "us-east-1d"}
    write_stack(tmp_path, "bad", cluster)
    code, err = run_cli(capsys, "plan", "--stack", "bad", "--stacks-dir", str(tmp_path))
    assert code == 2 and "cluster.networking.zone: p4de.24xlarge is not offered in us-east-1d" in err


def test_alibaba_erdma_pool_launches_into_its_own_low_latency_deployment_set():
    plan = shipped_plan("enterprise-aliyun")
    (deployment_set,) = resources(plan, "alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet")
    assert deployment_set["strategy"] == "LowLatency"
    ids = {r.name: r.id for r in plan.registrations if r.type == "alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet"}
    (pool,) = gpu_groups(plan)
    assert pool["deploymentSetId"] == ids["enterprise-aliyun-gpu"]
    assert len(pool["vswitchIds"]) == 1


class ReorderedAlicloudMocks(OfflineMocks):
    def __init__(self, region):
        super().__init__(region)
        self.alicloud_zones = list(reversed(self.alicloud_zones))


def test_alibaba_zone_order_moves_no_pool_and_no_file_system(monkeypatch):
    stable = (
        "alicloud:vpc/switch:Switch",
        "alicloud:cs/nodePool:NodePool",
        "alicloud:nas/fileSystem:FileSystem",
        "alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet",
    )
    before = shipped_plan("enterprise-aliyun")
    monkeypatch.setattr(engine, "OfflineMocks", ReorderedAlicloudMocks)
    after = make_plan("enterprise-aliyun")
    for type_ in stable:
        assert by_name(after, type_) == by_name(before, type_), type_
    assert by_name(after, "alicloud:nas/fileSystem:FileSystem")  # the comparison compared something
    assert "set networking.zone to pin it" in "\n".join(before.resolved.notes)


def test_subnet_zones_are_the_pinned_ones_filled_up_by_name_whatever_the_listing_order():
    from components.zones import ZoneError, subnet_zones

    listed = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"]
    assert subnet_zones(listed, {"gpu": "us-east-1d"}) == ["us-east-1a", "us-east-1b", "us-east-1d"]
    assert subnet_zones(list(reversed(listed)), {"gpu": "us-east-1d"}) == ["us-east-1a", "us-east-1b", "us-east-1d"]
    assert subnet_zones(listed[::2] + listed[1::2], {}) == ["us-east-1a", "us-east-1b", "us-east-1c"]
    with pytest.raises(ZoneError) as error:
        subnet_zones(listed, {"gpu": "us-east-1f"})
    assert error.value.group == "gpu"
