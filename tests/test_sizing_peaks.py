"""GPU peaks (issue 26 item 4): every catalog GPU has a sourced dense figure per precision or a stated reason."""

import pytest

from blueprints.sizing import flops as fl
from blueprints.sizing.candidates import advise
from blueprints.sizing.render import advice_json, render_text
from blueprints.sizing.workload import PRECISIONS, build_workload
from catalog import load_catalog
from catalog.gpu_models import gpu_models


@pytest.mark.parametrize("model", sorted(gpu_models()[1]))
def test_every_precision_has_a_figure_or_a_reason(model):
    sources, models = gpu_models()
    facts = models[model]
    assert facts.source in sources and facts.memory_gbps
    for precision in PRECISIONS:
        peak, why = fl.peak_and_reason(model, precision)
        assert (peak is not None and peak > 0 and why == "") or (peak is None and why)


def test_the_gpus_the_issue_named_now_have_dense_datasheet_figures():
    # HGX B200 datasheet: 36 PF FP16/BF16 and 72 PF FP8 per 8 GPUs "with sparsity" -> 2250 / 4500 dense per GPU.
    assert fl.peak_tflops("B200", "bf16") == 2250 and fl.peak_tflops("B200", "fp8") == 4500
    assert fl.peak_tflops("B300", "bf16") == 2250
    assert fl.peak_tflops("H20", "bf16") == 148 and fl.peak_tflops("A10G", "fp16") == 70
    # H100 SXM datasheet: FP8 3,958 TFLOPS with sparsity -> 1979 dense; fp8 no longer borrows the bf16 figure.
    assert fl.peak_tflops("H100", "fp8") == 1979
    assert fl.peak_tflops("T4", "fp16") == 65
    assert fl.peak_and_reason("T4", "bf16") == (None, "Turing tensor cores have no BF16")
    assert fl.peak_and_reason("A100-80GB", "fp8")[1] == "Ampere tensor cores have no FP8"


def test_every_catalog_shape_is_timed_at_bf16_except_where_the_gpu_has_no_bf16():
    advice = advise(build_workload(params=1e9, tokens=1e10, seq_len=2048))
    untimed = {c.shape.gpu.model for c in advice.candidates if c.hours is None}
    assert untimed == {"T4"}
    data = advice_json(advice)
    assert data["compute"]["noPeakFigure"] == {"T4": "Turing tensor cores have no BF16"}
    assert "T4 bf16: no figure (Turing tensor cores have no BF16)" in render_text(advice)
    assert {s.gpu.model for s in load_catalog().shapes} - {"T4"} <= {
        c.shape.gpu.model for c in advice.candidates if c.hours is not None
    }


def test_precision_changes_the_peak_used():
    h = {
        p: advise(build_workload(params=7e9, tokens=1e12, precision=p, clouds=("aws",))).fastest.hours
        for p in ("bf16", "fp8")
    }
    assert h["fp8"] < h["bf16"]
