"""Multi-node fabric validation: an all-reduce across nodes must run over the expected transport and reach
the shape's bus bandwidth; a silent fall-back to TCP sockets fails it.

Run under torchrun in every pod of the validation JobSet (one process per GPU, at least two nodes). NCCL
writes its own INFO log (NCCL_DEBUG=INFO, NCCL_DEBUG_FILE); rank 0 reads which network NCCL chose from
it, measures the all-reduce bus bandwidth as nccl-tests defines it, writes a JSON report (the acceptance
report format, kind "fabric") and, in a cluster, a ConfigMap users can read. Standalone on purpose: it
imports nothing from the project. On the CPU (tests), gloo stands in for NCCL and ``--nccl-log`` gives
the log to judge.

Exit codes: 0 pass, 1 fail (wrong transport or too slow), 2 bad input, 3 cannot run.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
import time
from typing import Any, Optional

REPORT_FORMAT_VERSION = 1
EXIT_PASS, EXIT_FAIL, EXIT_BAD_INPUT, EXIT_UNRUNNABLE = 0, 1, 2, 3
SIZES = {"tiny": (4 << 20, 3), "full": (1 << 30, 20)}  # all-reduce bytes, timed repeats (after warm-up)

# What NCCL prints at INFO level once it has picked its network plugin / transport.
# aws-ofi-nccl (EFA): "NET/OFI Selected Provider is efa" and "Using network AWS Libfabric" (or "Libfabric").
# InfiniBand verbs, which eRDMA devices speak: "NET/IB : Using [0]erdma_0:1/RoCE" and "Using network IB".
# The TCP fall-back: "NET/Socket : Using [0]eth0:10.0.0.5<0>" and "Using network Socket".
TRANSPORTS = (
    ("efa", re.compile(r"NET/OFI Selected [Pp]rovider is efa|Using network (AWS )?Libfabric")),
    ("ib", re.compile(r"NET/IB ?: Using \[\d+\]\S+|Using network IB")),
    ("socket", re.compile(r"NET/Socket ?: Using|Using network Socket")),
)
ERDMA_DEVICE = re.compile(r"NET/IB ?: Using \[\d+\](erdma\S*)")


class BadInput(Exception):
    pass


def transport_from_log(text: str) -> tuple[Optional[str], str]:
    """(transport NCCL used, the line that says so); a socket line anywhere means NCCL fell back to TCP."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        for name, pattern in TRANSPORTS:
            if name not in found and pattern.search(line):
                found[name] = line.strip()
    if "socket" in found and not ({"efa", "ib"} & found.keys()):
        return "socket", found["socket"]
    for name in ("efa", "ib"):
        if name in found:
            return name, found[name]
    return None, ""


def judge(expected: str, found: Optional[str], evidence: str, busbw: Optional[float],
          min_busbw: Optional[float], nodes: int) -> dict[str, Any]:
    """Every criterion as a check, in the acceptance report's shape."""
    checks = [{
        "name": "nodes", "status": "pass" if nodes >= 2 else "fail", "value": nodes, "unit": "nodes",
        "detail": "" if nodes >= 2 else "fabric validation needs at least two nodes"}]
    transport_ok = found == expected
    detail = evidence or "NCCL logged no network selection (is NCCL_DEBUG=INFO set?)"
    if expected == "ib" and found == "ib" and not ERDMA_DEVICE.search(evidence) and "erdma" not in evidence:
        detail += " (an IB device that is not eRDMA)"
    checks.append({"name": "transport", "status": "pass" if transport_ok else "fail", "value": found or "none",
                   "expected": expected, "detail": detail})
    if busbw is None:
        checks.append({"name": "allreduce_busbw", "status": "fail", "value": None, "unit": "GB/s",
                       "detail": "not measured"})
    elif min_busbw is None:
        checks.append({"name": "allreduce_busbw", "status": "info", "value": round(busbw, 3), "unit": "GB/s",
                       "detail": "no published figure for this shape: measured, not judged"})
    else:
        checks.append({"name": "allreduce_busbw", "status": "pass" if busbw >= min_busbw else "fail",
                       "value": round(busbw, 3), "unit": "GB/s", "threshold": min_busbw,
                       "ratio": round(busbw / min_busbw, 3) if min_busbw else None})
    return {"passed": all(c["status"] != "fail" for c in checks), "checks": checks}


def measure_busbw(backend: str, nbytes: int, repeats: int) -> tuple[float, int, int]:
    """(bus bandwidth GB/s, world size, nodes) of an all-reduce over every process of the job."""
    import torch
    import torch.distributed as dist

    world = dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", 0))
    device = f"cuda:{local}" if backend == "nccl" else "cpu"
    if backend == "nccl":
        torch.cuda.set_device(local)
    tensor = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    sync = torch.cuda.synchronize if backend == "nccl" else (lambda: None)
    for _ in range(2):  # warm-up: connections and buffers are set up on the first calls
        dist.all_reduce(tensor)
    sync()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(repeats):
        dist.all_reduce(tensor)
    sync()
    seconds = (time.perf_counter() - start) / repeats
    algbw = nbytes / seconds / 1e9
    nodes = world // int(os.environ.get("LOCAL_WORLD_SIZE", world))  # torchrun: processes per node
    return algbw * 2 * (world - 1) / world, world, nodes


def read_nccl_logs(pattern: str) -> str:
    return "\n".join(open(path, encoding="utf-8", errors="replace").read() for path in sorted(glob.glob(pattern)))


def write_configmap(name: str, report: dict[str, Any]) -> str:
    """Record the result in a ConfigMap of this pod's namespace (in-cluster only)."""
    import ssl
    import urllib.error
    import urllib.request

    token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token"
    if not os.path.exists(token_file):
        return "not recorded: not running in a cluster"
    namespace = open("/var/run/secrets/kubernetes.io/serviceaccount/namespace", encoding="utf-8").read().strip()
    api = f"https://{os.environ['KUBERNETES_SERVICE_HOST']}:{os.environ['KUBERNETES_SERVICE_PORT']}"
    body = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"gpu-blueprints/fabric": "passed" if report["passed"] else "failed"}},
            "data": {"report.json": json.dumps(report, indent=2)}}
    headers = {"Authorization": "Bearer " + open(token_file, encoding="utf-8").read().strip(),
               "Content-Type": "application/json"}
    context = ssl.create_default_context(cafile="/var/run/secrets/kubernetes.io/serviceaccount/ca.crt")
    url = f"{api}/api/v1/namespaces/{namespace}/configmaps"
    try:
        request = urllib.request.Request(f"{url}/{name}", data=json.dumps(body).encode(), method="PUT", headers=headers)
        urllib.request.urlopen(request, context=context, timeout=30)
    except urllib.error.HTTPError as error:
        if error.code != 404:
            raise
        request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
        urllib.request.urlopen(request, context=context, timeout=30)
    return f"recorded in ConfigMap {namespace}/{name}"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group", required=True, help="node group under test (names the report and ConfigMap)")
    parser.add_argument("--expect-transport", required=True, choices=("efa", "ib", "socket"))
    parser.add_argument("--min-busbw-gbps", type=float, help="bus bandwidth a healthy fabric reaches, GB/s")
    parser.add_argument("--backend", choices=("nccl", "gloo"), default="nccl")
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument("--nccl-log", default=os.environ.get("NCCL_LOG_GLOB", "/tmp/nccl/*.log"),
                        help="glob of NCCL's INFO logs (NCCL_DEBUG_FILE) to read the transport from")
    parser.add_argument("--report", help="write the JSON report here (rank 0)")
    parser.add_argument("--record", action="store_true", help="write the report to ConfigMap fabric-<group>")
    try:
        args = parser.parse_args(argv)
        if args.min_busbw_gbps is not None and args.min_busbw_gbps <= 0:
            raise BadInput("--min-busbw-gbps must be a positive GB/s figure")
    except SystemExit as exit_:
        return EXIT_BAD_INPUT if exit_.code else EXIT_PASS
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        import torch  # noqa: F401
    except ImportError:
        print("error: PyTorch is not installed", file=sys.stderr)
        return EXIT_UNRUNNABLE
    if "RANK" not in os.environ:
        print("error: run under torchrun (RANK, WORLD_SIZE, MASTER_ADDR are not set)", file=sys.stderr)
        return EXIT_UNRUNNABLE
    import torch
    import torch.distributed as dist

    started = time.perf_counter()
    nbytes, repeats = SIZES[args.size]
    dist.init_process_group(args.backend)
    try:
        busbw, world, nodes = measure_busbw(args.backend, nbytes, repeats)
        verdict = report_on_rank0(args, busbw, world, nodes, nbytes, started) if dist.get_rank() == 0 else False
        # Every process exits with rank 0's verdict, so the job (and each pod) fails or passes as one.
        flag = torch.tensor([1 if verdict else 0], device=f"cuda:{os.environ.get('LOCAL_RANK', 0)}"
                            if args.backend == "nccl" else "cpu")
        dist.broadcast(flag, src=0)
    finally:
        dist.destroy_process_group()
    return EXIT_PASS if int(flag.item()) else EXIT_FAIL


def report_on_rank0(args: argparse.Namespace, busbw: float, world: int, nodes: int, nbytes: int,
                    started: float) -> bool:
    """Judge NCCL's log and the measured bandwidth; print, write and record the report."""
    found, evidence = transport_from_log(read_nccl_logs(args.nccl_log))
    verdict = judge(args.expect_transport, found, evidence, busbw, args.min_busbw_gbps, nodes)
    report = {"formatVersion": REPORT_FORMAT_VERSION, "kind": "fabric", "group": args.group, "nodes": nodes,
              "processes": world, "backend": args.backend, "messageBytes": nbytes,
              "durationSeconds": round(time.perf_counter() - started, 2), **verdict}
    lines = [f"fabric validation of {args.group} ({nodes} nodes, {world} processes): "
             f"{'PASS' if report['passed'] else 'FAIL'}"]
    lines += [f"  [{c['status']:>4}] {c['name']:<16} {c.get('value')} {c.get('unit', '')}  {c.get('detail', '')}".rstrip()
              for c in report["checks"]]
    print("\n".join(lines), file=sys.stderr)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
    if args.record:
        print(write_configmap(f"fabric-{args.group}", report), file=sys.stderr)
    return bool(report["passed"])


if __name__ == "__main__":
    sys.exit(main())
