"""Memory at start (issue #35 item 4 and class check e): vLLM streams its weights through the Run:ai Model Streamer's
host buffer, 40 GB by default (runai-model-streamer 0.15 RUNAI_STREAMER_MEMORY_LIMIT), so a replica limited to less
is OOM-killed while loading. The plan's readiness reports any model server whose memory limit does not cover what
its process takes at start (blocking), and serving.models bounds the buffer to what the limit leaves."""

from __future__ import annotations

import fnmatch
import json
import re
import shlex

import pytest
import yaml

from blueprints.offline import readiness_start_memory
from blueprints.offline.readiness_serving import DEPLOYMENT
from blueprints.stackconfig import FULL_CONFIG_KEY, ROOT, STACKS_DIR
from catalog.serving_engine import serving_engine
from conftest import make_plan, shipped_plan
from test_serving import STACK, _container, _mutated

GIB = 2**30
TEST_STACKS = ROOT / "tests" / "data" / "stacks"


def _model_args(plan):
    [server] = [
        r.inputs for r in plan.registrations if r.type == DEPLOYMENT and r.inputs["metadata"]["name"] == "mistral-7b"
    ]
    return _container(server)


def test_the_streamer_buffer_is_bounded_to_what_the_memory_limit_leaves():
    container = _model_args(shipped_plan(STACK))
    args = container["args"]
    assert args[args.index("--load-format") + 1] == "runai_streamer"
    extra = json.loads(args[args.index("--model-loader-extra-config") + 1])
    limit = readiness_start_memory.quantity_bytes(container["resources"]["limits"]["memory"])
    # g6.xlarge: 16 GiB, half of it for the replica; the engine process takes its estimate, the buffer the rest.
    assert limit == 8 * GIB
    assert extra == {"memory_limit": int(limit - serving_engine().engine_process.gib * GIB)}


def _without_bound(type_, inputs):
    if type_ == DEPLOYMENT and inputs["metadata"].get("name") == "mistral-7b":
        args = _container(inputs)["args"]
        at = args.index("--model-loader-extra-config")
        del args[at : at + 2]


def test_the_streamers_default_buffer_is_a_blocking_finding():
    """Today's startup-serving: no memory_limit, so the streamer buffers all 13.5 GiB of Mistral 7B at fp16 (min of
    its 40 GB default and the files) beside the engine, in an 8 GiB container."""
    [found] = readiness_start_memory.check(_mutated(_without_bound))
    assert found.check == "serving-memory-at-start" and found.level == "blocking"
    assert "Run:ai streamer buffer (the streamer's default) 13.5 GiB" in found.message
    assert "limited to 8.0 GiB" in found.message and "memory_limit" in found.fix


def _set(env=None, extra=None, flags=()):
    def change(type_, inputs):
        if type_ == DEPLOYMENT and inputs["metadata"].get("name") == "mistral-7b":
            container = _container(inputs)
            args = container["args"]
            if extra is not None:
                args[args.index("--model-loader-extra-config") + 1] = extra
            args += list(flags)
            if env is not None:
                at = args.index("--model-loader-extra-config")
                del args[at : at + 2]
                container["env"].append({"name": "RUNAI_STREAMER_MEMORY_LIMIT", "value": env})

    return change


@pytest.mark.parametrize(
    "change, fragment",
    [
        (_set(extra='{"memory_limit": -1}'), "Run:ai streamer buffer (--model-loader-extra-config memory_limit) 13.5"),
        (_set(env="-1"), "Run:ai streamer buffer (RUNAI_STREAMER_MEMORY_LIMIT) 13.5 GiB"),
        (_set(env="6442450944"), "Run:ai streamer buffer (RUNAI_STREAMER_MEMORY_LIMIT) 6.0 GiB"),
        (_set(flags=["--cpu-offload-gb", "2"]), "--cpu-offload-gb 2 2.0 GiB"),
        (_set(flags=["--kv-offloading-size", "3"]), "--kv-offloading-size 3 3.0 GiB"),
    ],
)
def test_every_documented_allocation_counts(change, fragment):
    [found] = readiness_start_memory.check(_mutated(change))
    assert fragment in found.message, found.message


def test_swap_space_and_the_smallest_buffer_fit():
    """--swap-space is not allocated by vLLM 0.12's V1 engine; memory_limit 0 holds only the largest tensor (the
    32000 x 4096 embedding at fp16, 250 MiB)."""
    assert readiness_start_memory.check(_mutated(_set(extra='{"memory_limit": 0}', flags=["--swap-space", "16"]))) == []
    assert readiness_start_memory.check(_mutated(_set(extra='{"memory_limit": 0}'))) == []


def _serving_stacks():
    for folder in (STACKS_DIR, TEST_STACKS):
        for path in sorted(folder.glob("Pulumi.*.yaml")):
            cluster = yaml.safe_load(path.read_text())["config"][FULL_CONFIG_KEY]
            if (cluster.get("serving") or {}).get("models"):
                yield pytest.param(folder, path.stem.removeprefix("Pulumi."), id=path.stem)


@pytest.mark.parametrize("folder, stack", list(_serving_stacks()))
def test_no_shipped_or_test_stack_starts_out_of_memory(folder, stack):
    plan = shipped_plan(stack) if folder == STACKS_DIR else make_plan(stack, folder)
    assert readiness_start_memory.check(plan.registrations) == []


def test_the_example_downloads_one_copy_of_the_weights():
    """Mistral-7B-Instruct-v0.3 holds its weights twice: model-0000N-of-00003.safetensors (Hugging Face layout) and
    consolidated.safetensors (Mistral's layout); the streamer streams every *.safetensors under the prefix. The
    CLI keeps a file matching an --include pattern and no --exclude pattern (fnmatch, as huggingface_hub's
    filter_repo_objects)."""
    text = (ROOT / "examples" / "first-model-endpoint" / "README.md").read_text()
    command = re.search(r"^hf download .*?(?<!\\)\n", text, re.S | re.M)[0].replace("\\\n", " ")
    words = shlex.split(command)

    def patterns(option):
        at = words.index(option) + 1 if option in words else len(words)
        taken = []
        while at < len(words) and not words[at].startswith("--"):
            taken.append(words[at])
            at += 1
        return taken

    include, exclude = patterns("--include"), patterns("--exclude")

    def fetched(name):
        return any(fnmatch.fnmatch(name, p) for p in include) and not any(fnmatch.fnmatch(name, p) for p in exclude)

    assert not fetched("consolidated.safetensors")
    for name in ("model-00001-of-00003.safetensors", "model.safetensors.index.json", "config.json", "tokenizer.json"):
        assert fetched(name), name
