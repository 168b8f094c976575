"""Issue #40 item 4: ACK's equivalent choice of autoscaler. An ACK cluster's node pools are scaled by ACK's
cluster-autoscaler (node auto scaling, the default) or, with `autoscaling.engine: instant-elasticity`, by ACK
GOATScaler (node instant scaling), which the provider selects with AutoscalingConfig `scalerType: goatscaler`
(pulumi-alicloud 4.0.0 pulumi_alicloud/cs/autoscaling_config.py: "Valid values: `cluster-autoscaler`,
`goatscaler`"). The node pools stay as they are, so the switch replaces no nodes."""

from __future__ import annotations

import pytest

from blueprints.offline.conformance import MET, assess
from blueprints.offline.diff import diff_plans
from conftest import resources, shipped_cluster, write_stack

CONFIG = "alicloud:cs/autoscalingConfig:AutoscalingConfig"
POOL = "alicloud:cs/nodePool:NodePool"


def _engine(engine: str):
    return lambda c: c.setdefault("autoscaling", {}).update(engine=engine)


def test_instant_elasticity_selects_goatscaler_on_the_same_node_pools(plan_variant):
    default = plan_variant("research-a100-aliyun", lambda c: None)
    instant = plan_variant("research-a100-aliyun", _engine("instant-elasticity"))
    [config] = resources(instant, CONFIG)
    assert config["scalerType"] == "goatscaler"
    assert config["expander"] == "least-waste"  # the only expander GOATScaler takes (the provider's docs)
    assert [c["scalerType"] for c in resources(default, CONFIG)] == ["cluster-autoscaler"]
    # GOATScaler scales node pools in standard (release) mode, the pools' default: none asks for swift (recycle)
    assert all(p.get("scalingPolicy", "release") == "release" for p in resources(instant, POOL))
    assert resources(instant, POOL) == resources(default, POOL)

    [diff] = diff_plans({"research-a100-aliyun": default.to_json()}, {"research-a100-aliyun": instant.to_json()})
    [changed] = diff.changed
    assert changed.type == CONFIG and not changed.replaced
    assert changed.inputs == [("scalerType", "cluster-autoscaler", "goatscaler")]
    assert not diff.added and not diff.removed and not diff.node_replacements
    # the conformance evidence names the autoscaler that runs
    [judged] = [
        v
        for v in assess(instant.registrations, instant.resolved.spec.kubernetes_version).verdicts
        if v.id == "cluster_autoscaling"
    ]
    assert judged.status == MET and judged.detail.startswith("ACK GOATScaler (node instant scaling) scales GPU groups")


@pytest.mark.parametrize(
    "base, engine, fragments",
    [
        (
            "research-a100",
            "instant-elasticity",
            ("instant-elasticity does not run on", "cluster-autoscaler, karpenter"),
        ),
        ("research-a100-aliyun", "karpenter", ("karpenter does not run on", "cluster-autoscaler, instant-elasticity")),
    ],
)
def test_an_engine_of_the_other_cloud_is_one_line_exit_2(tmp_path, capsys, base, engine, fragments):
    from blueprints.cli import main

    cluster = shipped_cluster(base)
    _engine(engine)(cluster)
    write_stack(tmp_path, "bad", cluster)
    code = main(["plan", "--stack", "bad", "--stacks-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0]
    for fragment in fragments:
        assert fragment in err[0]
