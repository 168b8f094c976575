"""Every AWS shape's figures against independent data (tests/data/instance_types/, origin in SOURCE.md).

Checked: GPU count, GPU memory in GiB, vCPU, RAM, local NVMe, published and baseline network, EFA count.
A figure no recorded source covers is named in UNCHECKED with the reason; the test fails if a figure is neither
checked nor listed, or if a listed figure becomes checkable.
"""

import json
from pathlib import Path

import pytest

from blueprints.catalog import load_catalog
from blueprints.resolver import resolve
from blueprints.spec import ClusterSpec

DATA = json.loads((Path(__file__).parent / "data/instance_types/aws-gpu-instance-types.json").read_text())
VANTAGE = DATA["vantage"]
BASELINE_MBPS = DATA["karpenter_bandwidth_megabits"]
CARDS = DATA["karpenter_network_cards"]
DESCRIBE = DATA["karpenter_describe_instance_types"]
AWS = load_catalog().for_cloud("aws")

# Figures no recorded source states, each with why. Keys: (instance type or GPU model, field).
UNCHECKED = {
    **{(m, "gpu.memory_gib"): "no DescribeInstanceTypes MiB figure recorded for this GPU (vantage prints GB labels)"
       for m in ("L4", "L40S", "A100-40GB", "A100-80GB", "H200", "B200", "B300")},
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


def test_gpu_memory_gib_is_checked_or_listed_unchecked():
    checked = {load_catalog().get(t).gpu.model for t in DESCRIBE}
    models = {s.gpu.model for s in AWS}
    unchecked = {m for (m, field) in UNCHECKED if field == "gpu.memory_gib"}
    assert models == checked | unchecked and not checked & unchecked
    # One GiB figure per model across the catalog, and never the vendor's GB label where the two differ.
    for m in models:
        assert len({s.gpu.memory_gib for s in AWS if s.gpu.model == m}) == 1
    a10g = load_catalog().get("g5.xlarge").gpu
    assert (a10g.memory_gb, a10g.memory_gib) == (24, 22.35)


def test_efa_support_is_listed_where_no_source_states_it():
    assert EFA_SUPPORT_UNCHECKED == sorted(s.instance_type for s in AWS if s.instance_type not in DESCRIBE)
    assert len(EFA_SUPPORT_UNCHECKED) == len(AWS) - 3


def test_one_h100_resolves_to_p5_4xlarge():
    from test_resolver import resolved

    plan = resolved("enterprise-h100", nodeGroups__gpu__gpusPerNode=1, nodeGroups__gpu__minVcpus=None,
                    nodeGroups__gpu__minMemoryGib=None)
    group = plan.node_groups[0]
    assert group.shape.instance_type == "p5.4xlarge"
    assert (group.shape.gpu.count, group.shape.rdma.kind, group.shape.rdma.interfaces) == (1, "efa", 1)


def test_a_burst_figure_does_not_meet_a_baseline_requirement():
    from test_resolver import notes, resolved

    plan = resolved("startup-t4", nodeGroups__gpu__gpuModel="A10G", nodeGroups__gpu__minVcpus=None,
                    nodeGroups__gpu__minMemoryGib=None, nodeGroups__gpu__minNetworkGbps=10)
    assert plan.node_groups[0].shape.instance_type == "g5.xlarge"
    assert "10 Gbps requested; g5.xlarge sustains 2.5 Gbps (up to 10 burst)" in notes(plan)
