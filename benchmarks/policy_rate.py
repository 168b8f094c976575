"""Rules evaluated per second on the enterprise stack, through the packs' analyzer processes.

A rule evaluation is one resource policy judging one resource (Analyze) or one stack policy judging
the stack (AnalyzeStack). Pack start-up is reported apart: the CLI pays it once per preview.
Prints figures; asserts nothing. Usage: python benchmarks/policy_rate.py [runs] [stack]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blueprints.offline.pack_config import stack_policy_config  # noqa: E402
from blueprints.offline.plan import make_plan  # noqa: E402
from blueprints.offline.policy import PackSession, proto  # noqa: E402


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    stack = sys.argv[2] if len(sys.argv) > 2 else "enterprise-h100"
    plan = make_plan(stack, packs=[])
    packs = list(plan.resolved.spec.compliance.frameworks)
    overrides = stack_policy_config(plan.resolved.spec)
    registrations = plan.registrations

    start = time.perf_counter()
    sessions = [PackSession(name) for name in packs]
    for session in sessions:
        session.analysis  # noqa: B018 (connects)
    startup = time.perf_counter() - start

    evaluations = 0
    for session in sessions:
        kinds = [p.policy_type for p in session.analysis.info.policies]
        resource_policies = sum(1 for k in kinds if k == proto.POLICY_TYPE_RESOURCE)
        evaluations += resource_policies * len(registrations) + (len(kinds) - resource_policies)

    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        for session in sessions:
            session.judge(stack, registrations, overrides)
        times.append(time.perf_counter() - begin)
    for session in sessions:
        session.close()

    median = statistics.median(times)
    print(f"stack {stack}: {len(registrations)} resources, packs {', '.join(packs)}")
    print(f"rule evaluations per pass: {evaluations}")
    print(
        f"pass time: median {median * 1000:.0f} ms, min {min(times) * 1000:.0f} ms, "
        f"max {max(times) * 1000:.0f} ms (n={runs})"
    )
    print(f"rules evaluated per second: {evaluations / median:,.0f} (median pass)")
    print(f"pack start-up (all packs, in parallel): {startup:.2f} s")


if __name__ == "__main__":
    main()
