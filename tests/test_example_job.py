"""examples/first-training-job: the manifest fits the stack it targets and the JobSet schema; train.py resumes
from its newest checkpoint after an interruption (two gloo processes on the CPU)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from catalog.fabric import default_image
from conftest import resources, shipped_plan, validate_crd

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "first-training-job"


def test_manifest_is_a_valid_jobset_for_research_a100():
    job = yaml.safe_load((EXAMPLE / "jobset.yaml").read_text())
    schema = json.loads((ROOT / "tests/data/crds/jobset-0.12.0/JobSet.json").read_text())
    validate_crd(job, schema)
    plan = shipped_plan("research-a100")
    [group] = plan.resolved.node_groups
    # a team namespace (its jobs are queued) with its own trainer identity and claim
    assert job["metadata"]["namespace"] in plan.resolved.spec.kubernetes.teams
    assert job["metadata"]["namespace"] in plan.outputs["trainer_role_arns"]
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "default"
    [local_queue] = [
        q
        for q in resources(plan, "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue")
        if q["metadata"]["namespace"] == job["metadata"]["namespace"]
    ]
    assert local_queue["metadata"]["name"] == "default"
    pod = job["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    [container] = pod["containers"]
    assert pod["serviceAccountName"] == "trainer" and container["image"] == default_image("aws")
    limits = container["resources"]["limits"]
    assert limits["nvidia.com/gpu"] == str(group.shape.gpu.count)
    assert limits["vpc.amazonaws.com/efa"] == str(group.rdma_interfaces)
    [claim] = [
        c
        for c in resources(plan, "kubernetes:core/v1:PersistentVolumeClaim")
        if c["metadata"]["namespace"] == job["metadata"]["namespace"]
    ]
    assert {"name": "data", "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]}} in pod["volumes"]
    assert f"--nproc-per-node={group.shape.gpu.count}" in container["command"][-1]


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            str(EXAMPLE / "train.py"),
            "--checkpoint-uri",
            f"file://{tmp_path}/ckpt",
            "--data-dir",
            str(tmp_path / "no-data"),
            "--checkpoint-every",
            "10",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )


# A worker that gloo's TCP transport aborts (SIGABRT from a C++ exception thrown on its I/O thread, as in
# pytorch/pytorch#188266) is a crash of the launcher's plumbing under load, not of train.py: a Python error in the
# script exits 1 and fails at once. Such a crash reruns the whole scenario in a fresh folder, at most twice.
CRASHES_RERUN = 2


def died_of_a_signal(result: subprocess.CompletedProcess) -> bool:
    return result.returncode != 0 and "received by PID" in result.stderr and "Signal " in result.stderr


def interrupted_then_resumed(
    folder: Path,
) -> tuple[subprocess.CompletedProcess, list[str], subprocess.CompletedProcess | None]:
    """The interrupted attempt, the checkpoints it left, and the attempt after it (None if the first failed)."""
    folder.mkdir()
    first = run(folder, "--steps", "40", "--stop-after", "25")
    if first.returncode != 0:
        return first, [], None
    left = sorted(p.name for p in (folder / "ckpt").iterdir())
    return first, left, run(folder, "--steps", "40")


def test_training_resumes_from_the_newest_checkpoint_after_an_interruption(tmp_path):
    for attempt in range(1 + CRASHES_RERUN):
        folder = tmp_path / f"attempt-{attempt}"
        first, left, second = interrupted_then_resumed(folder)
        failed = first if second is None else second
        if failed.returncode == 0 or not died_of_a_signal(failed):
            break
    assert first.returncode == 0, first.stderr[:3000]
    assert left == ["step-00000010.pt", "step-00000020.pt"]
    assert second.returncode == 0, second.stderr[:3000]
    assert "resumed from step-00000020.pt at step 20" in second.stdout
    assert "step 30:" in second.stdout and "step 10:" not in second.stdout
    assert (folder / "ckpt" / "step-00000040.pt").exists()
