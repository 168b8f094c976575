"""Hypothesis over alias bombs and deep nesting, run as its own process under a memory limit.

tests/test_hostile_input.py starts this with RLIMIT_AS set, so a loader that expanded aliases would
die of MemoryError here instead of swapping the CI runner. It checks that every document is either
refused with a YamlLimitError or loads into something whose JSON stays small.
"""

import json
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

LIMIT = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from blueprints import safeyaml  # noqa: E402


@st.composite
def bombs(draw):
    """A "billion laughs" of random width and depth, under the cluster key or an unrelated one."""
    width, depth = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    key = draw(st.sampled_from(["gpu-cluster-blueprints:cluster", "aws:region", "unrelated:thing"]))
    lines = ["config:", f"  {key}:", '    l0: &l0 ["lol"]']
    for level in range(1, depth + 1):
        lines.append(f"    l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n", width**depth


@settings(max_examples=150, deadline=None, database=None)
@given(bombs())
def alias_bombs_are_refused_or_small(case):
    text, leaves = case
    try:
        document, _ = safeyaml.load(text)
    except safeyaml.YamlLimitError as error:
        assert "expands to more than" in str(error)
        assert leaves > safeyaml.MAX_NODES // 13  # refused only when the expansion is big
        return
    assert len(json.dumps(document)) < 20 * safeyaml.MAX_NODES


@settings(max_examples=40, deadline=None, database=None)
@given(st.integers(1, 20_000), st.sampled_from(["[", "{a: ", "- "]))
def deep_nesting_is_refused_early(depth, opener):
    if opener == "- ":  # block style: each item indented under the last (text grows as depth squared)
        depth = min(depth, 400)
        text = "".join("  " * i + "-\n" for i in range(depth)) + "  " * depth + "1\n"
    else:
        text = opener * depth + "1" + ("]" if opener == "[" else "}") * depth
    try:
        safeyaml.load(text)
    except safeyaml.YamlLimitError as error:
        assert depth > safeyaml.MAX_DEPTH - 1 and "nested deeper" in str(error)
    else:
        assert depth <= safeyaml.MAX_DEPTH


if __name__ == "__main__":
    alias_bombs_are_refused_or_small()
    deep_nesting_is_refused_early()
    print("ok")
