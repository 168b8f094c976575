"""Every AWS shape's figures against independent data (tests/data/instance_types/, origin in SOURCE.md).

Checked: GPU count, GPU memory in GiB, vCPU, RAM, local NVMe, published and baseline network, EFA count.
A figure no recorded source covers is named in UNCHECKED with the reason; the test fails if a figure is neither
checked nor listed, or if a listed figure becomes checkable.
"""

import json
from pathlib import Path

import pytest

from catalog import load_catalog

DATA = json.loads((Path(__file__).parent / "data/instance_types/aws-gpu-instance-types.json").read_text())
VANTAGE = DATA["vantage"]
BASELINE_MBPS = DATA["karpenter_bandwidth_megabits"]
CARDS = DATA["karpenter_network_cards"]
DESCRIBE = DATA["karpenter_describe_instance_types"]
# Per-GPU MiB (DescribeInstanceTypes GpuInfo) as Karpenter's generated instance-types page prints it; see SOURCE.md.
GPU_MIB = json.loads((Path(__file__).parent / "data/instance_types/karpenter-gpu-memory-mib.json").read_text())
AWS = load_catalog().for_cloud("aws")

# Figures no recorded source states, each with why. Keys: (instance type or GPU model, field).
UNCHECKED = {
    ("p5e.48xlarge", "local_nvme_gb"): "vantage lists no instance storage for p5e.48xlarge",
    ("p6-b300.48xlarge", "local_nvme_gb"): "vantage lists no instance storage for p6-b300.48xlarge (catalog: 0)",
    ("p6-b300.48xlarge", "rdma.interfaces"): "17 network cards (Karpenter vpclimits); the EFA count (16) is inferred",
}
# EFA support yes/no is only in the describe fixture; elsewhere the count is checked against the network cards.
EFA_SUPPORT_UNCHECKED = sorted(s.instance_type for s in AWS if s.instance_type not in DESCRIBE)


def test_every_aws_shape_is_in_the_recorded_data():
    assert sorted(s.instance_type for s in AWS if s.instance_type not in VANTAGE) == []


@pytest.mark.parametrize("shape", AWS, ids=lambda s: s.instance_type)
def test_counts_and_sizes_match_the_vantage_data(shape):
    v = VANTAGE[shape.instance_type]
    assert shape.vcpus == v["vCPU"]
    assert shape.memory_gib == v["memory"]
    assert shape.gpu.count == v["GPU"]
    # vantage prints the per-instance total of the vendor GB labels: our memory_gb is that label per GPU.
    assert shape.gpu.count * shape.gpu.memory_gb == pytest.approx(v["GPU_memory"])
    if (shape.instance_type, "local_nvme_gb") in UNCHECKED:
        assert v["storage"] is None
    else:
        assert shape.local_nvme_gb == v["storage"]["devices"] * v["storage"]["size"]
        assert v["storage"]["size_unit"] == "GB"


@pytest.mark.parametrize("shape", AWS, ids=lambda s: s.instance_type)
def test_network_published_and_baseline_figures(shape):
    published = VANTAGE[shape.instance_type]["network_performance"]  # "Up to 25 Gigabit", "4x 100 Gigabit"
    words = published.replace("Up to ", "").split()
    gbps = int(words[-2]) * (int(words[0][:-1]) if words[0].endswith("x") else 1)
    assert shape.network_gbps == gbps
    assert shape.network_baseline_gbps * 1000 == BASELINE_MBPS[shape.instance_type]
    assert shape.network_baseline_gbps <= shape.network_gbps


@pytest.mark.parametrize("shape", AWS, ids=lambda s: s.instance_type)
def test_efa_count_is_one_per_network_card(shape):
    if (shape.instance_type, "rdma.interfaces") in UNCHECKED:
        pytest.xfail(UNCHECKED[(shape.instance_type, "rdma.interfaces")])
    if shape.rdma.kind == "efa":
        assert shape.rdma.interfaces == CARDS[shape.instance_type]
    else:
        assert shape.rdma.interfaces == 0


@pytest.mark.parametrize("instance_type", sorted(DESCRIBE))
def test_describe_instance_types_fixture(instance_type):
    d, shape = DESCRIBE[instance_type], load_catalog().get(instance_type)
    assert shape.vcpus == d["DefaultVCpus"]
    assert shape.memory_gib * 1024 == d["MemoryInfo.SizeInMiB"]
    assert shape.gpu.model == d["Gpus[0].Name"] and shape.gpu.count == d["Gpus[0].Count"]
    assert shape.gpu.memory_gib == round(d["Gpus[0].MemoryInfo.SizeInMiB"] / 1024, 2)
    assert shape.local_nvme_gb == d["InstanceStorageInfo.TotalSizeInGB"]
    assert shape.rdma.interfaces == d["EfaInfo.MaximumEfaInterfaces"]


@pytest.mark.parametrize("shape", AWS, ids=lambda s: s.instance_type)
def test_gpu_memory_gib_is_the_apis_mib_figure(shape):
    # Every AWS GPU's GiB is DescribeInstanceTypes' MiB / 1024 (p6-b300: 275,040 MiB = 268.59 GiB, not the
    # 262.5 GB per GPU AWS's page prints; p6-b200: 183,359 MiB = 179.06 GiB).
    assert shape.gpu.memory_gib == round(GPU_MIB[shape.instance_type] / 1024, 2)


def test_gpu_memory_gib_keeps_the_vendor_label_apart():
    models = {s.gpu.model for s in AWS}
    # One GiB figure per model across the catalog, and never the vendor's GB label where the two differ.
    for m in models:
        assert len({s.gpu.memory_gib for s in AWS if s.gpu.model == m}) == 1
    a10g = load_catalog().get("g5.xlarge").gpu
    assert (a10g.memory_gb, a10g.memory_gib) == (24, 22.35)
    b300 = load_catalog().get("p6-b300.48xlarge").gpu
    assert (b300.memory_gb, b300.memory_gib) == (262.5, 268.59)


def test_every_unchecked_figure_is_really_uncovered_by_the_recorded_data():
    """The list must shrink when the data grows: each entry names something no recorded source states."""
    for (key, field), reason in UNCHECKED.items():
        assert reason
        if field == "local_nvme_gb":
            assert VANTAGE[key]["storage"] is None
        elif field == "rdma.interfaces":
            assert key not in DESCRIBE and load_catalog().get(key).rdma.interfaces != CARDS[key]
        else:
            raise AssertionError(field)
    # EFA support (yes/no) is stated only by the describe fixture; elsewhere only the count per card is checked.
    assert len(EFA_SUPPORT_UNCHECKED) == len(AWS) - len(DESCRIBE)
    print("unchecked:", sorted(UNCHECKED), "EFA support unchecked:", EFA_SUPPORT_UNCHECKED)


def test_one_h100_resolves_to_p5_4xlarge():
    from test_resolver import resolved

    plan = resolved(
        "enterprise-h100",
        nodeGroups__gpu__gpusPerNode=1,
        nodeGroups__gpu__minVcpus=None,
        nodeGroups__gpu__minMemoryGib=None,
    )
    group = plan.node_groups[0]
    assert group.shape.instance_type == "p5.4xlarge"
    assert (group.shape.gpu.count, group.shape.rdma.kind, group.shape.rdma.interfaces) == (1, "efa", 1)


def test_a_burst_figure_does_not_meet_a_baseline_requirement():
    from test_resolver import notes, resolved

    plan = resolved(
        "startup-t4",
        nodeGroups__gpu__gpuModel="A10G",
        nodeGroups__gpu__minVcpus=None,
        nodeGroups__gpu__minMemoryGib=None,
        nodeGroups__gpu__minNetworkGbps=10,
    )
    assert plan.node_groups[0].shape.instance_type == "g5.xlarge"
    assert "10 Gbps requested; g5.xlarge sustains 2.5 Gbps (up to 10 burst)" in notes(plan)


# Alibaba Cloud figures as its GPU instance family page prints them (ali-gpu-families, read 2026-11-23):
# (vCPUs, memory GiB, GPUs, network baseline Gbit/s). No machine-readable copy is recorded, so these are the
# transcription the catalog must agree with, not an independent dataset.
ALI_PAGE = {
    "ecs.gn6i-c4g1.xlarge": (4, 15, 1, 4),
    "ecs.gn6i-c8g1.2xlarge": (8, 31, 1, 5),
    "ecs.gn6i-c16g1.4xlarge": (16, 62, 1, 6),
    "ecs.gn6i-c24g1.6xlarge": (24, 93, 1, 7.5),
    "ecs.gn6i-c40g1.10xlarge": (40, 155, 1, 10),
    "ecs.gn6i-c24g1.12xlarge": (48, 186, 2, 15),
    "ecs.gn6i-c24g1.24xlarge": (96, 372, 4, 30),
    "ecs.gn8is.2xlarge": (8, 64, 1, 8),
    "ecs.gn8is.4xlarge": (16, 128, 1, 16),
    "ecs.gn8is-2x.8xlarge": (32, 256, 2, 32),
    "ecs.gn8is-4x.16xlarge": (64, 512, 4, 64),
    "ecs.gn8is-8x.32xlarge": (128, 1024, 8, 100),
    "ecs.gn8v.4xlarge": (16, 96, 1, 12),
    "ecs.gn8v-8x.48xlarge": (192, 1024, 8, 100),
}


@pytest.mark.parametrize("instance_type", sorted(ALI_PAGE))
def test_alibaba_sizes_match_the_family_page(instance_type):
    shape = load_catalog().get(instance_type)
    vcpus, memory, gpus, gbps = ALI_PAGE[instance_type]
    assert (shape.vcpus, shape.memory_gib, shape.gpu.count, shape.network_baseline_gbps) == (vcpus, memory, gpus, gbps)


def test_gn8v_says_it_is_sold_on_request_and_the_plan_repeats_it():
    from test_resolver import notes, resolved

    # gn8is lost its note: Alibaba's DescribeZones data sells it pay-as-you-go in 14 regions (ali-api-vms).
    for s in load_catalog().for_cloud("alicloud"):
        on_request = s.instance_type.startswith("ecs.gn8v")
        assert bool(s.sales_note) == on_request, s.instance_type
    plan = resolved("enterprise-aliyun")
    assert plan.node_groups[0].shape.instance_type.startswith("ecs.gn8v")
    assert "sold on request" in notes(plan)


def test_h20_and_l20_have_figures_the_acceptance_check_can_judge():
    from catalog.gpu_models import acceptance_expectation

    h20 = acceptance_expectation(load_catalog().get("ecs.gn8v-8x.48xlarge"))
    l20 = acceptance_expectation(load_catalog().get("ecs.gn8is.2xlarge"))
    assert (h20["memory_gbps"], h20["gpu_link_gbps"]) == (4000, 450)
    assert (l20["memory_gbps"], l20["bf16_tflops"]) == (864, 119)


def test_cpfs_scale_out_step_is_per_region_and_the_plan_says_it():
    from catalog.file_systems import cpfs_scale_out_step_gib
    from test_resolver import notes, resolved

    assert cpfs_scale_out_step_gib("cn-wulanchabu") == 2400 and cpfs_scale_out_step_gib("cn-hangzhou") == 1200
    assert "CPFS in cn-wulanchabu scales out in steps of 2400 GiB" in notes(resolved("enterprise-aliyun"))
    assert "CPFS in cn-hangzhou scales out in steps of 1200 GiB" in notes(resolved("research-a100-aliyun"))
