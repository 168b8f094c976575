"""Issue #27, item 3: settings that contradict each other are refused with the field and the fix, all at once.

Each case runs the CLI's main in this process (tests/conftest.py run_cli) and checks that a refused plan leaves
nothing at its --output path; the case about bounded work runs the real CLI in a child process with a timeout and
RLIMIT_AS (as tests/test_hostile_input.py does).
"""

import json
import subprocess

from blueprints.stackconfig import ROOT
from conftest import blueprints_argv, run_cli, shipped_cluster, write_stack

TIMEOUT = 60
MEMORY_LIMIT = 1024**3
A100 = {
    "gpuModel": "A100-80GB",
    "gpusPerNode": 4,
    "minNetworkGbps": 100,
    "minNodes": 0,
    "desiredNodes": 1,
    "maxNodes": 2,
}


def plan(tmp_path, base, change, *extra, child_process=False):
    cluster = shipped_cluster(base)
    change(cluster)
    write_stack(tmp_path, "bad", cluster)
    out = tmp_path / "plan.out"
    argv = ("plan", "--stack", "bad", "--stacks-dir", str(tmp_path), "--output", str(out), *extra)
    if not child_process:
        return run_cli(*argv), out
    argv = blueprints_argv(*argv, memory_limit=MEMORY_LIMIT)
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT), out


def refused(tmp_path, base, change, child_process=False) -> list[str]:
    result, out = plan(tmp_path, base, change, child_process=child_process)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and not out.exists()
    prefix = f"error: {tmp_path.name}/Pulumi.bad.yaml: "
    lines = result.stderr.strip().splitlines()
    assert all(line.startswith(prefix) for line in lines), lines
    return [line[len(prefix) :] for line in lines]


def test_spot_with_a_capacity_reservation_id_is_refused(tmp_path):
    lines = refused(
        tmp_path,
        "research-a100",
        lambda c: c.update(
            nodeGroups={"gpu": {**A100, "capacity": "spot", "capacityReservationId": "cr-0123456789abcdef0"}}
        ),
    )
    assert lines == [
        "cluster.nodeGroups.gpu.capacityReservationId: spot capacity never uses a reservation, so "
        "'cr-0123456789abcdef0' would be ignored; set capacity: reservation (an ODCR) or "
        "capacity-block, or remove capacityReservationId"
    ]


def test_capacity_block_on_alibaba_cloud_is_refused(tmp_path):
    lines = refused(
        tmp_path,
        "startup-t4-aliyun",
        lambda c: c.update(
            nodeGroups={
                "gpu": {
                    "capacity": "capacity-block",
                    "capacityReservationId": "cb-1",
                    "minNodes": 1,
                    "desiredNodes": 1,
                    "maxNodes": 1,
                }
            }
        ),
    )
    assert lines == [
        "cluster.nodeGroups.gpu.capacity: capacity blocks are an Amazon EC2 offering, not sold on "
        "alicloud; use on-demand, spot or reservation (subscription)"
    ]


def quota_findings(out):
    return [f for f in json.loads(out.read_text())["readiness"] if f["check"] == "team-quota-beyond-cluster"]


def test_a_team_quota_beyond_the_cluster_is_a_warning_with_the_most_it_can_have(tmp_path):
    # A user may mean it (a preset's quota on a smaller cluster), so a finding, not a refusal. research-a100
    # resolves its A100 group to p4d.24xlarge (8 GPUs) with maxNodes 2: 16 GPUs at most.
    result, out = plan(
        tmp_path,
        "research-a100",
        lambda c: c.update(kubernetes={"teams": {"ml": {"gpus": 100000}}}),
        "--format",
        "json",
        "--policy-pack",
        "none",
    )
    assert result.returncode == 0, result.stderr
    [finding] = quota_findings(out)
    assert finding == {
        "check": "team-quota-beyond-cluster",
        "level": "warning",
        "resource": "cluster.kubernetes.teams.ml.gpus",
        "message": "team ml may use 100000 GPUs, but the cluster has at most 16 (its GPU groups at "
        "maxNodes): the quota can never be used in full",
        "fix": "set kubernetes.teams.ml.gpus to at most 16, or raise the GPU groups' maxNodes",
    }
    result, out = plan(
        tmp_path,
        "research-a100",
        lambda c: c.update(kubernetes={"teams": {"ml": {"gpus": 16}}}),
        "--format",
        "json",
        "--policy-pack",
        "none",
    )
    assert result.returncode == 0 and quota_findings(out) == []  # the cluster's whole capacity is a valid quota


def test_the_resolver_reports_every_error_at_once(tmp_path):
    lines = refused(
        tmp_path,
        "research-a100",
        lambda c: c.update(
            nodeGroups={
                "gpu": A100,
                "spotty": {**A100, "capacity": "spot", "capacityReservationId": "cr-1"},
                "typo": {**A100, "gpuModel": "MI300X"},
                "wide": {**A100, "gpusPerNode": 12},
            }
        ),
    )
    assert len(lines) == 3, lines
    assert lines[0].startswith("cluster.nodeGroups.spotty.capacityReservationId: spot capacity never uses")
    assert lines[1].startswith("cluster.nodeGroups.typo.gpuModel: unknown GPU model 'MI300X' on aws")
    assert lines[2].startswith("cluster.nodeGroups.wide.gpusPerNode: no aws shape has 12 x A100-80GB")


def test_hundreds_of_node_groups_are_refused_before_any_work(tmp_path):
    lines = refused(
        tmp_path,
        "research-a100",
        lambda c: c.update(nodeGroups={f"g{i}": A100 for i in range(301)}),
        child_process=True,
    )
    assert lines == [
        "cluster.nodeGroups: 302 GPU node groups; at most 150 (EKS allows 30 managed node groups per "
        "cluster by default): merge groups of one shape and raise their maxNodes, or split the cluster"
    ]


def test_more_node_groups_than_the_eks_default_quota_is_a_warning_with_the_fix(tmp_path):
    result, out = plan(
        tmp_path,
        "research-a100",
        lambda c: c.update(nodeGroups={f"g{i}": A100 for i in range(30)}),
        "--format",
        "json",
        "--policy-pack",
        "none",
    )
    assert result.returncode in (0, 1), result.stderr
    findings = [f for f in json.loads(out.read_text())["readiness"] if f["check"] == "eks-node-group-quota"]
    assert len(findings) == 1 and findings[0]["level"] == "warning"
    assert findings[0]["message"].startswith("the plan creates 32 EKS managed node groups (the system group included)")
    assert "Service Quotas" in findings[0]["fix"]
    result, out = plan(
        tmp_path,
        "research-a100",
        lambda c: c.update(nodeGroups={f"g{i}": A100 for i in range(28)}),
        "--format",
        "json",
        "--policy-pack",
        "none",
    )
    assert not [f for f in json.loads(out.read_text())["readiness"] if f["check"] == "eks-node-group-quota"]
