"""The sizing advisor's time for one query across every catalog shape and region: median of N runs.

Times `advise()` in process (the CLI adds Python start-up, about the same for every command). The query is
the README's: 7B parameters on 1T tokens within 30 days, both clouds, all regions; then a serving query (Llama 3
70B in fp8 at 5 requests/s with latency targets and a spare replica) over every shape and region. Target: under 1 s.
Prints figures; asserts nothing (shared machines are noisy).

    python benchmarks/size_time.py [runs]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from blueprints.sizing.candidates import advise  # noqa: E402
from blueprints.sizing.serving import advise_serving  # noqa: E402
from blueprints.sizing.workload import build_workload  # noqa: E402
from catalog import load_catalog  # noqa: E402
from catalog.prices import load_prices  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=20)
    args = parser.parse_args()
    workload = build_workload(params=7e9, tokens=1e12, target_hours=30 * 24)
    start = time.perf_counter()
    load_catalog(), load_prices()
    first_load = time.perf_counter() - start
    times, advice = [], None
    for _ in range(args.runs):
        start = time.perf_counter()
        advice = advise(workload)
        times.append(time.perf_counter() - start)
    shapes = len(load_catalog().shapes)
    pairs = len(advice.candidates) + len(advice.infeasible)
    print(
        f"catalog: {shapes} shapes, {pairs} shape-region pairs, {len(load_prices().prices)} prices "
        f"(loaded once in {first_load * 1000:.0f} ms)"
    )
    print(
        f"advise (7B, 1T tokens, 30 days, all clouds and regions): median {statistics.median(times) * 1000:.1f} ms, "
        f"max {max(times) * 1000:.1f} ms over {args.runs} runs (target < 1000 ms)"
    )
    serving = build_workload(
        model="llama-3-70b",
        mode="inference",
        precision="fp8",
        request_rate=5,
        input_tokens=1000,
        output_tokens=300,
        ttft_ms=1000,
        tpot_ms=50,
        spare_replicas=1,
    )
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        served = advise_serving(serving)
        times.append(time.perf_counter() - start)
    pairs = len(served.candidates) + len(served.infeasible)
    print(
        f"advise_serving (Llama 3 70B fp8, 5 req/s, TTFT 1 s, TPOT 50 ms, 1 spare; {pairs} shape-region pairs): "
        f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms over {args.runs} runs "
        f"(target < 1000 ms)"
    )


if __name__ == "__main__":
    main()
