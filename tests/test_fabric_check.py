"""acceptance/fabric_check.py on the CPU: two torchrun agents over c10d on this machine stand in for two nodes,
gloo stands in for NCCL, and sample NCCL INFO logs (tests/data/nccl) say which transport NCCL chose."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "acceptance" / "fabric_check.py"
LOGS = ROOT / "tests" / "data" / "nccl"

sys.path.insert(0, str(ROOT / "acceptance"))
import fabric_check  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def two_nodes(tmp_path: Path, *args: str) -> tuple[list[int], dict]:
    """Start two torchrun agents (one process each) that rendezvous like two nodes would."""
    port, report = free_port(), tmp_path / "report.json"
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nnodes",
        "2",
        "--nproc-per-node",
        "1",
        "--rdzv-backend",
        "c10d",
        "--rdzv-endpoint",
        f"127.0.0.1:{port}",
        "--rdzv-id",
        "fabric-test",
        str(SCRIPT),
        "--group",
        "gpu",
        "--backend",
        "gloo",
        "--size",
        "tiny",
        "--report",
        str(report),
        *args,
    ]
    agents = [
        subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    codes = [agent.wait(timeout=180) for agent in agents]
    return codes, json.loads(report.read_text()) if report.exists() else {}


def test_efa_log_and_enough_bandwidth_pass(tmp_path):
    codes, report = two_nodes(
        tmp_path, "--expect-transport", "efa", "--min-busbw-gbps", "0.001", "--nccl-log", str(LOGS / "efa.log")
    )
    assert codes == [0, 0]
    assert report["passed"] is True and report["kind"] == "fabric" and report["nodes"] == 2
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["transport"]["value"] == "efa" and "Selected Provider is efa" in checks["transport"]["detail"]
    assert checks["allreduce_busbw"]["status"] == "pass" and checks["allreduce_busbw"]["value"] > 0


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory):
    """One two-node run that fails both ways at once (each run starts PyTorch four times): NCCL's log shows
    sockets where EFA was expected, and the bandwidth floor is far above what gloo on one machine reaches."""
    return two_nodes(
        tmp_path_factory.mktemp("fabric"),
        "--expect-transport",
        "efa",
        "--min-busbw-gbps",
        "100000",
        "--nccl-log",
        str(LOGS / "socket.log"),
    )


def test_tcp_where_efa_was_expected_fails(failing_run):
    codes, report = failing_run
    assert 1 in codes and report["passed"] is False
    [transport] = [c for c in report["checks"] if c["name"] == "transport"]
    assert transport["status"] == "fail" and transport["value"] == "socket" and "NET/Socket" in transport["detail"]


def test_bandwidth_below_the_shapes_threshold_fails(failing_run):
    codes, report = failing_run
    assert 1 in codes and report["passed"] is False
    [busbw] = [c for c in report["checks"] if c["name"] == "allreduce_busbw"]
    assert busbw["status"] == "fail" and busbw["threshold"] == 100000 and busbw["ratio"] < 1


@pytest.mark.parametrize("log, expected", [("efa.log", "efa"), ("erdma.log", "ib"), ("socket.log", "socket")])
def test_transport_is_read_from_ncclss_own_log(log, expected):
    found, evidence = fabric_check.transport_from_log((LOGS / log).read_text())
    assert found == expected and evidence


def test_a_log_without_a_network_line_is_no_transport():
    assert fabric_check.transport_from_log("NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n") == (None, "")


def test_erdma_expectation_passes_on_the_erdma_log_only():
    ok = fabric_check.judge("ib", *fabric_check.transport_from_log((LOGS / "erdma.log").read_text()), 20.0, 10.0, 2)
    tcp = fabric_check.judge("ib", *fabric_check.transport_from_log((LOGS / "socket.log").read_text()), 20.0, 10.0, 2)
    assert ok["passed"] is True and tcp["passed"] is False


def test_one_node_is_not_a_fabric_test():
    verdict = fabric_check.judge("efa", "efa", "Using network AWS Libfabric", 50.0, 10.0, 1)
    assert verdict["passed"] is False and verdict["checks"][0]["detail"].startswith("fabric validation needs")


@pytest.mark.parametrize(
    "args, code",
    [
        (["--group", "g", "--expect-transport", "tcp"], 2),
        (["--group", "g", "--expect-transport", "efa", "--min-busbw-gbps", "-1"], 2),
        (["--group", "g", "--expect-transport", "efa", "--backend", "gloo"], 3),
    ],
)
def test_bad_input_and_unrunnable(args, code):
    run = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)
    assert run.returncode == code and run.stdout == "" and "Traceback" not in run.stderr
