"""Plan time of a stack with many tags beside the same stack without: whole-process medians, interleaved run by run.

Issue #36 found 1,000 tags taking 14 s and 10,000 more than 60 s. Every resource carries every tag, so a plan's
work is resources x tags all the way through (the SDK serializes each resource's tags, the mocks record them), and
pulumi-policy 1.21.0's AnalyzeStack (pulumi_policy/policy.py, the loop over `self.__policies`) deserializes every
resource's properties again for each stack policy: policies x resources x tags, the only product of sizes, and
upstream's (the Pulumi CLI runs the same code). Linear in the tags; a profile of 1,000 tags put ~40% of the time
there. What bounds it
is the cloud's own limit, checked where the tags are written (blueprints/cloudtext.py): AWS allows 50 per resource,
so a stack may add 45 of its own beside the 5 the blueprint puts on its fullest resource; more is refused before any
resource is declared. Rows: no tags, the most a stack may have, and 1,000 and 10,000 tags (refused, exit 2).

Prints figures; asserts nothing (shared machines are noisy).

    python benchmarks/tags_time.py [runs] [--stack startup-t4]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blueprints.cloudtext import _TAG_COUNTS  # noqa: E402
from blueprints.stackconfig import FULL_CONFIG_KEY, STACKS_DIR  # noqa: E402


def plan_seconds(folder: Path, stack: str) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "blueprints", "plan", "--stack", stack, "--stacks-dir", str(folder), "--format", "json"],
        cwd=ROOT,
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=5)
    parser.add_argument("--stack", default="startup-t4", help="a shipped stack to copy (default startup-t4)")
    args = parser.parse_args()
    document = yaml.safe_load((STACKS_DIR / f"Pulumi.{args.stack}.yaml").read_text())
    limit, _, added = _TAG_COUNTS[document["config"][FULL_CONFIG_KEY]["cloud"]]
    counts = {"none": 0, f"{limit - len(added)} (the most allowed)": limit - len(added), "1000": 1000, "10000": 10000}
    with tempfile.TemporaryDirectory(prefix="tags-time-") as scratch:
        folder = Path(scratch)
        for index, count in enumerate(counts.values()):
            document["config"][FULL_CONFIG_KEY]["tags"] = {f"tag-{i}": f"value-{i}" for i in range(count)}
            (folder / f"Pulumi.t{index}.yaml").write_text(yaml.safe_dump(document))
        times: dict[int, list[float]] = {i: [] for i in range(len(counts))}
        codes: dict[int, int] = {}
        for _ in range(args.runs):
            for index in times:
                seconds, codes[index] = plan_seconds(folder, f"t{index}")
                times[index].append(seconds)
    base = statistics.median(times[0])
    print(f"{args.stack}: {'tags':<22} {'median s':>9} {'vs none':>8} {'exit':>5}  (n={args.runs}, interleaved)")
    for index, label in enumerate(counts):
        median = statistics.median(times[index])
        print(f"{'':<{len(args.stack) + 2}}{label:<22} {median:>9.2f} {median / base:>8.2f} {codes[index]:>5}")


if __name__ == "__main__":
    main()
