"""Each cloud's facts live in catalog/clouds.yaml (issue 24 item 4): the profile loads, every cloud the spec accepts
has one, and the code reads it instead of branching on the cloud's name."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from blueprints.errors import BlueprintError
from blueprints.resolver import resolve
from blueprints.spec import Cloud, ClusterSpec
from catalog.clouds import CloudProfile, cloud_names, load_clouds, profile, role_of, types_of

ROOT = Path(__file__).resolve().parents[1]

# A literal cloud name compared with something: the shape of a fact chosen by a branch.
BRANCH = re.compile(
    r"""(==|!=)\s*["'](aws|alicloud)["']|["'](aws|alicloud)["']\s*(==|!=)"""
    r"""|in\s*\(\s*["'](aws|alicloud)["']\s*,"""
)

# Branches that choose behaviour, not a fact, with why they stay.
ALLOWED = {
    # i24-seam's file: which cloud's GpuCluster class to build (an import, not a fact).
    "blueprints/compose.py",
    # HIPAA's eligible-services list is AWS's Business Associate Addendum: the rule is about AWS resources only.
    "policies/library/stack/hipaa_eligible_services.py",
}


def _branch_sites() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for top in ("blueprints", "policies"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if BRANCH.search(line.split("#")[0]):
                    found.setdefault(rel, []).append(f"{n}: {line.strip()}")
    return found


def test_profiles_load_and_name_their_sources():
    clouds = load_clouds()
    assert set(clouds.clouds) == {"aws", "alicloud"}
    for p in clouds.clouds.values():
        assert isinstance(p, CloudProfile)
        for source in (p.region.source, p.zone.source, p.rdma.source, p.placement.source, p.kms.source):
            assert clouds.sources[source].startswith("https://")


def test_every_cloud_the_spec_accepts_has_a_profile_and_no_more():
    assert set(typing.get_args(Cloud)) == set(cloud_names())


def test_no_cloud_name_branch_outside_the_named_exceptions():
    sites = _branch_sites()
    assert set(sites) <= ALLOWED, {k: v for k, v in sites.items() if k not in ALLOWED}


def test_the_branch_finder_finds_a_branch():
    assert BRANCH.search('kind = "EFA" if spec.cloud == "aws" else "eRDMA"')
    assert BRANCH.search("if package != 'aws':")
    assert BRANCH.search('cloud not in ("aws", "alicloud")')
    assert not BRANCH.search("profile(spec.cloud).rdma.name")


def test_patterns_are_the_ones_the_spec_enforced():
    aws, ali = profile("aws"), profile("alicloud")
    assert aws.region.matches("eu-central-1") and not aws.region.matches("cn-hangzhou")
    assert ali.region.matches("cn-hangzhou") and ali.region.matches("ap-southeast-1")
    assert aws.zone.pattern("us-east-1").match("us-east-1a") and not aws.zone.pattern("us-east-1").match("us-east-1-a")
    assert ali.zone.pattern("cn-hangzhou").match("cn-hangzhou-h")
    assert aws.zone.default("us-east-1") == "us-east-1a" and ali.zone.default("cn-hangzhou") is None
    assert aws.admin_principal.matches("arn:aws:iam::123456789012:role/admin")
    assert ali.admin_principal.matches("role:123456789012345") and not ali.admin_principal.matches("arn:aws:x")
    assert aws.instance_type.matches("p5.48xlarge") and ali.instance_type.matches("ecs.gn7i-c8g1.2xlarge")
    assert not aws.instance_type.matches("ecs.gn7i-c8g1.2xlarge")


def _with_profile(monkeypatch, cloud: str, **changes) -> None:
    """Swap one cloud's profile for a changed copy: the code under test must follow it."""
    clouds = load_clouds()
    changed = clouds.clouds[cloud].model_copy(update=changes)
    replaced = clouds.model_copy(update={"clouds": {**clouds.clouds, cloud: changed}})
    monkeypatch.setattr("catalog.clouds.load_clouds", lambda *a: replaced)


def _spec(**over) -> ClusterSpec:
    base = {
        "cloud": "aws",
        "region": "us-east-1",
        "environment": "development",
        "budget": {"monthlyLimitUsd": 10000, "contacts": ["a@example.com"]},
        "nodeGroups": {"gpu": {"gpuModel": "A10G", "gpusPerNode": 1, "maxNodes": 2}},
    }
    return ClusterSpec.model_validate({**base, **over})


def test_spec_reads_kms_rotation_limits_from_the_profile(monkeypatch):
    spec = {"encryption": {"keyRotationDays": 100}}
    _spec(**spec)  # AWS allows 90-2560
    limits = profile("aws").kms.model_copy(update={"rotation_days": (200, 300)})
    _with_profile(monkeypatch, "aws", kms=limits)
    with pytest.raises(ValueError, match="rotates every 200 to 300 days"):
        _spec(**spec)


def test_spec_reads_file_systems_from_the_profile(monkeypatch):
    _with_profile(monkeypatch, "aws", file_systems=("cpfs",))
    with pytest.raises(ValueError, match="not offered on aws; use one of \\['cpfs', 'none'\\]"):
        _spec(storage={"parallelFs": {"type": "lustre", "sizeGib": 1200}})


def test_resolver_reads_zone_names_from_the_profile(monkeypatch):
    spec = _spec(networking={"zone": "us-east-1a"})
    resolve(spec)
    _with_profile(monkeypatch, "aws", zone=profile("aws").zone.model_copy(update={"separator": "-"}))
    with pytest.raises(BlueprintError, match="named like us-east-1-a"):
        resolve(spec)


def test_resolver_reads_placement_limits_from_the_profile(monkeypatch):
    from blueprints.resolver import _deployment_set_limit

    spec = _spec(nodeGroups={"gpu": {"gpuModel": "A10G", "gpusPerNode": 1, "maxNodes": 30, "capacity": "spot"}})
    assert _deployment_set_limit(spec, spec.node_groups["gpu"]) is None  # a cluster placement group holds spot
    stricter = profile("aws").placement.model_copy(update={"holds_spot": False, "max_instances": 20})
    _with_profile(monkeypatch, "aws", placement=stricter)
    assert _deployment_set_limit(spec, spec.node_groups["gpu"]) == "an EC2 placement group holds no spot instances"


def test_capacity_blocks_conflict_follows_the_profile(monkeypatch):
    from blueprints.conflicts import spec_conflicts

    group = {
        "gpuModel": "H100",
        "gpusPerNode": 8,
        "minNodes": 1,
        "desiredNodes": 1,
        "maxNodes": 1,
        "capacity": "capacity-block",
        "zone": "us-east-1a",
        "capacityReservationId": "cr-0123456789abcdef0",
    }
    spec = _spec(nodeGroups={"gpu": group})
    assert not [p for p in spec_conflicts(spec) if "capacity blocks" in p]
    _with_profile(monkeypatch, "aws", capacity_blocks=False)
    assert [p for p in spec_conflicts(spec) if "not sold on aws" in p]


def test_offline_type_table_is_one_per_role():
    assert types_of("node_group") == ("aws:eks/nodeGroup:NodeGroup", "alicloud:cs/nodePool:NodePool")
    assert role_of("alicloud:nas/fileSystem:FileSystem") == "file_system"
    assert role_of("kubernetes:helm.sh/v3:Release") is None
    tokens = [t for p in load_clouds().clouds.values() for t in p.resource_types.values()]
    assert len(tokens) == len(set(tokens))


# A resource type token: package:module/name:Type (a function token's last part starts with "get": not a resource).
TOKEN = re.compile(r"""["'](aws|alicloud):[A-Za-z0-9]+/[A-Za-z0-9.]+:(?!get)[A-Za-z0-9]+["']""")


def test_offline_modules_read_resource_types_from_the_one_table():
    spelled = {}
    for path in sorted((ROOT / "blueprints" / "offline").glob("*.py")):
        hits = [m.group(0) for m in TOKEN.finditer(path.read_text(encoding="utf-8"))]
        if hits:
            spelled[path.name] = hits
    assert spelled == {}
    assert TOKEN.search('"aws:eks/nodeGroup:NodeGroup"') and not TOKEN.search('"aws:index/getPartition:getPartition"')


def test_cost_reads_service_price_keys_from_the_profile(monkeypatch):
    from blueprints.offline.cost import estimate
    from conftest import shipped_plan

    plan = shipped_plan("research-a100")
    spec, regs = plan.resolved.spec, plan.registrations

    def object_storage() -> float:
        return sum(i.usd_per_hour for i in estimate(spec, regs).items if "storage.objectStorage" in i.description)

    before = object_storage()
    assert before > 0
    keys = profile("aws").service_prices.model_copy(update={"object_storage": "ebs_gp3"})  # 0.08 instead of 0.023
    _with_profile(monkeypatch, "aws", service_prices=keys)
    assert object_storage() == pytest.approx(before * 0.08 / 0.023, rel=0.01)


def test_stackconfig_default_file_system_is_the_profiles_first(monkeypatch):
    from blueprints.stackconfig import with_preset

    raw = {"preset": "research", "cloud": "aws", "storage": {"parallelFs": {"type": "default"}}}
    assert with_preset(raw, "test")["storage"]["parallelFs"]["type"] == "lustre"
    _with_profile(monkeypatch, "aws", file_systems=("cpfs", "lustre"))
    assert with_preset(raw, "test")["storage"]["parallelFs"]["type"] == "cpfs"


def test_a_profile_with_an_unknown_source_or_a_foreign_type_token_is_refused():
    from pydantic import ValidationError

    from catalog.clouds import CLOUDS_FILE, Clouds
    from catalog.yamlfile import load_yaml

    raw = load_yaml(CLOUDS_FILE)
    raw["clouds"]["aws"]["rdma"]["source"] = "nowhere"
    with pytest.raises(ValidationError, match="unknown source"):
        Clouds.model_validate(raw)
    raw = load_yaml(CLOUDS_FILE)
    raw["clouds"]["aws"]["resource_types"]["bucket"] = "alicloud:oss/bucket:Bucket"
    with pytest.raises(ValidationError, match="are not aws type tokens"):
        Clouds.model_validate(raw)
