"""Catalog facts checked against independent, maintained data rather than our own expectations."""

import json
from pathlib import Path

import botocore.session
import cfnlint.data.schemas.extensions.aws_ec2_instance as cfn_ec2
import pytest

from catalog import load_catalog

CATALOG = load_catalog()
AWS_SHAPES = CATALOG.for_cloud("aws")
EC2_INSTANCE_TYPES = set(botocore.session.get_session().get_service_model("ec2").shape_for("InstanceType").enum)
CFN_REGIONAL = json.loads((Path(cfn_ec2.__file__).parent / "instancetype_enum.json").read_text())


@pytest.mark.parametrize("shape", AWS_SHAPES, ids=lambda s: s.instance_type)
def test_aws_instance_type_is_in_botocores_ec2_model(shape):
    assert shape.instance_type in EC2_INSTANCE_TYPES


@pytest.mark.parametrize("shape", AWS_SHAPES, ids=lambda s: s.instance_type)
def test_aws_regions_are_where_cfn_lint_says_the_type_is_sold(shape):
    missing = [r for r in shape.regions if shape.instance_type not in CFN_REGIONAL.get(r, {}).get("enum", [])]
    assert missing == []


@pytest.mark.parametrize("shape", CATALOG.shapes, ids=lambda s: s.instance_type)
def test_every_fact_names_a_source_and_every_price_a_date(shape):
    for key in shape.sources.model_dump().values():
        assert key in CATALOG.sources
    assert shape.price.usd_per_hour is not None or shape.price.note
    assert shape.price.usd_per_hour is None or (shape.price.as_of and shape.price.source)


def test_the_efa_counts_design_md_fixes():
    efa = {s.instance_type: s.rdma.interfaces for s in AWS_SHAPES if s.rdma.kind == "efa"}
    assert efa["p5.48xlarge"] == 32 and efa["p5e.48xlarge"] == 32 and efa["p5en.48xlarge"] == 16
    assert efa["p4d.24xlarge"] == 4 and efa["p4de.24xlarge"] == 4
    assert efa["g5.8xlarge"] == efa["g6.8xlarge"] == efa["g4dn.8xlarge"] == 1
    assert "g4dn.xlarge" not in efa and "g5.xlarge" not in efa
    assert efa["p5.4xlarge"] == 1 and efa["p6-b200.48xlarge"] == 8
    assert efa["g6e.24xlarge"] == 2 and efa["g6e.48xlarge"] == 4


def test_no_aws_shape_has_four_a100_80gb_and_gn7e_has_no_erdma():
    assert not [s for s in AWS_SHAPES if s.gpu.model == "A100-80GB" and s.gpu.count == 4]
    gn7e = [s for s in CATALOG.shapes if s.instance_type.startswith("ecs.gn7e")]
    assert sorted(s.gpu.count for s in gn7e) == [1, 2, 4, 8]
    assert all(s.rdma.kind == "none" for s in gn7e)


def test_kubernetes_versions_cite_their_lifecycle_pages():
    import yaml

    from blueprints.spec import ClusterSpec
    from catalog.kubernetes_versions import VERSIONS_FILE

    table = yaml.safe_load(VERSIONS_FILE.read_text())
    offered = set(ClusterSpec.model_fields["kubernetes_version"].annotation.__args__)
    assert set(table["aws"]) == offered  # every version the spec offers has EKS dates
    for cloud in ("aws", "alicloud"):
        for version, entry in table[cloud].items():
            assert entry["source"] in table["sources"], (cloud, version)
            assert entry["extended_ends"] is None or entry["extended_ends"] > entry["standard_ends"]
