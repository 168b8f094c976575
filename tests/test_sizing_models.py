"""Known model shapes (issue 26 item 2) and GPUs per replica that never grow with GPU memory (item 4)."""

import itertools

import pytest

from blueprints.cli import main
from blueprints.errors import BlueprintError
from blueprints.sizing import flops as fl
from blueprints.sizing.memory import breakdown, gpus_per_replica, transformer_shape
from blueprints.sizing.workload import build_workload
from catalog import load_catalog
from catalog.model_shapes import model_shapes


def test_every_model_has_a_source_and_a_consistent_shape():
    sources, models = model_shapes()
    assert {
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3-70b",
        "llama-3.1-405b",
        "mistral-7b",
        "mixtral-8x7b",
        "bert-base",
        "bert-large",
        "gpt-3-175b",
    } <= set(models)
    for m in models.values():
        assert m.source in sources and m.hidden_size % m.heads == 0 and m.heads % m.kv_heads == 0


def test_the_model_shape_replaces_the_derived_one():
    # Issue 26: derived, BERT-base became 9 x 1024 and Llama 2 70B 71 x 9088 without GQA.
    assert transformer_shape(build_workload(params=110e6, tokens=1e9)) != (768, 12, 12)
    assert transformer_shape(build_workload(model="bert-base", tokens=1e9)) == (768, 12, 12)
    assert transformer_shape(build_workload(model="llama-2-70b", tokens=1e9)) == (8192, 80, 64)


def test_grouped_query_attention_shrinks_the_kv_cache_eightfold():
    # Llama 2 70B: 64 query heads share 8 KV heads (Touvron et al. 2023, section 2.2).
    gqa = breakdown(build_workload(model="llama-2-70b", mode="inference", tokens=1e9, seq_len=4096))
    mha = breakdown(
        build_workload(params=69e9, layers=80, hidden_size=8192, heads=64, mode="inference", tokens=1e9, seq_len=4096)
    )
    assert mha.part("kv_cache").bytes == 8 * gqa.part("kv_cache").bytes
    # 2 x 80 layers x 8 x 128 x 4096 tokens x 2 B = 1.34 GB per 4K-token sequence
    assert gqa.part("kv_cache").bytes == 2 * 80 * 1024 * 4096 * 2


def test_mixture_of_experts_counts_active_params_for_flops_and_total_for_memory():
    w = build_workload(model="mixtral-8x7b", tokens=1e12)
    assert fl.total_flops(w) == 6 * 12.9e9 * 1e12
    assert breakdown(w).part("optimizer_states").bytes == 46.7e9 * 12
    assert "active params" in fl.rule(w)


def test_seeds_175b_weights_are_350_gb():
    # Seed article: GPT-3 175B in FP16 = 350 GB of weights.
    mem = breakdown(build_workload(model="gpt-3-175b", mode="inference", precision="fp16", tokens=1e9))
    assert mem.part("weights").gb == 350


def test_zero_bytes_per_param():
    # Rajbhandari et al. 2020, section 3.1: mixed-precision Adam = 2 + 2 + 12 = 16 bytes per parameter.
    mem = breakdown(build_workload(params=1e9, tokens=1e9, sharding="dp"))
    per_param = sum(mem.part(p).bytes for p in ("weights", "gradients", "optimizer_states")) / 1e9
    assert per_param == 16


@pytest.mark.parametrize("model", sorted(model_shapes()[1]))
def test_gpus_per_replica_never_grow_with_gpu_memory(model):
    memories = sorted({s.gpu.memory_gib for s in load_catalog().shapes})
    for sharding, recompute in itertools.product(("zero1", "zero2", "zero3"), ("none", "selective", "full")):
        mem = breakdown(build_workload(model=model, tokens=1e12, sharding=sharding, recompute=recompute))
        needs = [gpus_per_replica(mem, gib) for gib in memories]
        for smaller, larger in zip(needs, needs[1:]):
            assert smaller is None or larger <= smaller, (model, sharding, recompute, memories, needs)


def test_model_and_params_conflict_and_unknown_model_are_one_line(capsys):
    with pytest.raises(BlueprintError, match="allowed: llama-2-7b"):
        build_workload(model="llama-9", tokens=1e9)
    assert main(["size", "--model", "llama-2-7b", "--params", "7B", "--tokens", "1T"]) == 2
    assert "--model or --params" in capsys.readouterr().err
    assert main(["size", "--params", "7B", "--heads", "32", "--kv-heads", "5", "--tokens", "1T"]) == 2
