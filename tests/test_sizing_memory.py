"""The advisor's memory and compute formulas against published figures (each test cites its source)."""

import math

import pytest

from blueprints.sizing import flops as fl
from blueprints.sizing.memory import GB, HEADROOM, breakdown, gpus_per_replica, usable_bytes
from blueprints.sizing.workload import build_workload, parse_count


def workload(**fields):
    fields.setdefault("tokens", 1e9)
    return build_workload(**fields)


def test_seed_gpt3_175b_fp16_weights_are_350_gb():
    # Seed 003 (3.1 显存配置策略): "训练1750亿参数的GPT-3,需至少350GB显存(FP16精度)".
    w = workload(params=parse_count("175B", "--params"), mode="inference", precision="fp16", seq_len=1, micro_batch=1)
    assert breakdown(w).part("weights").gb == pytest.approx(350.0)


def test_seed_gpt3_weights_need_five_a100_80gb_not_four():
    # The seed says 4 x A100 80GB hold 350 GB; 4 x 80 GiB = 343.6 GB, so the weights alone need a fifth GPU
    # even before headroom. The advisor counts with the seed's own 20% buffer.
    w = workload(params=175e9, mode="inference", precision="fp16", seq_len=1, micro_batch=1, sharding="dp")
    mem = breakdown(w)
    assert 4 * 80 * 2**30 < mem.part("weights").bytes
    assert gpus_per_replica(mem, 80) == math.ceil(mem.total_bytes / (80 * 2**30 * (1 - HEADROOM)))
    assert gpus_per_replica(mem, 80) >= 5


def test_zero_paper_mixed_precision_adam_is_16_bytes_per_parameter():
    # Rajbhandari et al. 2020 (ZeRO), section 3.1: fp16 weights 2 + fp16 gradients 2 + K=12 optimizer states
    # (fp32 weights, momentum, variance) = 16 bytes per parameter; 7.5B parameters -> 120 GB.
    w = workload(params=7.5e9, precision="fp16", optimizer="adam", sharding="dp")
    mem = breakdown(w)
    states = sum(mem.part(n).bytes for n in ("weights", "gradients", "optimizer_states"))
    assert [mem.part(n).bytes / 7.5e9 for n in ("weights", "gradients", "optimizer_states")] == [2, 2, 12]
    assert states / GB == pytest.approx(120.0)


@pytest.mark.parametrize(
    "sharding, per_gpu_states_gb",
    [
        # ZeRO paper, Figure 1, for Psi = 7.5B, K = 12, Nd = 64: baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB,
        # P_os+g+p 1.88 GB per GPU.
        ("dp", 120.0),
        ("zero1", 31.4),
        ("zero2", 16.6),
        ("zero3", 1.88),
        ("fsdp", 1.88),
    ],
)
def test_zero_stages_match_the_papers_figure_1(sharding, per_gpu_states_gb):
    w = workload(params=7.5e9, precision="fp16", optimizer="adam", sharding=sharding, recompute="full", seq_len=1)
    mem = breakdown(w)
    activations = mem.part("activations").bytes
    assert (mem.per_gpu_bytes(64) - activations) / GB == pytest.approx(per_gpu_states_gb, rel=0.01)


def test_bert_base_fits_one_16_gb_gpu():
    # Seed 001 (1.1 内存需求): BERT-base's 110M parameters, activations ~4 GB and 20% buffer -> a >=16 GB GPU.
    w = workload(
        params=parse_count("110M", "--params"),
        precision="fp16",
        seq_len=512,
        micro_batch=8,
        hidden_size=768,
        layers=12,
        heads=12,
        sharding="dp",
    )
    mem = breakdown(w)
    assert mem.total_bytes <= 16e9 * (1 - HEADROOM)
    assert gpus_per_replica(mem, 16) == 1


def test_activation_formulas_follow_korthikanti():
    # Korthikanti et al. 2022, section 4: per layer s*b*h*(34 + 5*a*s/h) bytes; 34*s*b*h with selective recompute.
    common = dict(params=1e9, hidden_size=2048, layers=24, heads=16, seq_len=2048, micro_batch=2)
    none = breakdown(workload(recompute="none", **common)).part("activations").bytes
    selective = breakdown(workload(recompute="selective", **common)).part("activations").bytes
    s, b, h, a, layers = 2048, 2, 2048, 16, 24
    assert none == pytest.approx(layers * s * b * h * (34 + 5 * a * s / h))
    assert selective == pytest.approx(layers * 34 * s * b * h)


def test_kv_cache_grows_with_context_and_batch():
    base = dict(params=7e9, mode="inference", precision="bf16", hidden_size=4096, layers=32)
    one = breakdown(workload(seq_len=4096, micro_batch=1, **base)).part("kv_cache").bytes
    more = breakdown(workload(seq_len=8192, micro_batch=4, **base)).part("kv_cache").bytes
    assert one == 2 * 32 * 4096 * 4096 * 1 * 2
    assert more == 8 * one


def test_gpt3_training_flops_match_the_paper():
    # Brown et al. 2020, "Language Models are Few-Shot Learners", Table D.1: GPT-3 175B trained on 300B tokens
    # took 3.14e23 FLOPs; the 6ND rule (Kaplan et al. 2020) gives 3.15e23.
    w = workload(params=175e9, tokens=300e9)
    assert fl.total_flops(w) == pytest.approx(3.14e23, rel=0.01)


def test_inference_flops_are_a_third_of_training():
    train, serve = workload(params=7e9, tokens=1e12), workload(params=7e9, tokens=1e12, mode="inference")
    assert fl.total_flops(serve) * 3 == pytest.approx(fl.total_flops(train))


def test_time_scales_with_gpus_and_mfu():
    flops = 6 * 7e9 * 1e12
    one = fl.hours(flops, 8, 989, 0.4)
    assert one == pytest.approx(flops / (8 * 989e12 * 0.4) / 3600)
    assert fl.hours(flops, 16, 989, 0.4) == pytest.approx(one / 2)
    assert fl.hours(flops, 8, 989, 0.2) == pytest.approx(one * 2)


def test_usable_memory_keeps_the_seed_buffer():
    assert usable_bytes(80) == pytest.approx(80 * 2**30 * 0.8)
