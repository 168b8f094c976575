"""Training edges and vision work (issue 26 items 3 and 4): published GPU-hours, the seeds' ResNet-50 case,
GPU-hours and small jobs shown honestly, the default deadline, and nonsense inputs answered in one line."""

import json
import subprocess
import sys

import pytest

from blueprints.cli import main
from blueprints.sizing import flops as fl
from blueprints.sizing.candidates import advise
from blueprints.sizing.render import advice_json, render_text
from blueprints.sizing.workload import build_workload
from blueprints.stackconfig import ROOT

# Touvron et al. 2023 (Llama 2), Table 2: GPU-hours on A100-80GB for 2T tokens.
LLAMA2_GPU_HOURS = {"llama-2-7b": 184_320, "llama-2-13b": 368_640, "llama-2-70b": 1_720_320}


@pytest.mark.parametrize("model", LLAMA2_GPU_HOURS)
def test_llama2_gpu_hours_within_15_percent(model):
    data = advice_json(advise(build_workload(model=model, tokens=2e12, clouds=("aws",), regions=("us-east-1",))))
    ratio = data["compute"]["gpuHoursAtMfu"]["A100-80GB"] / LLAMA2_GPU_HOURS[model]
    assert 0.85 <= ratio <= 1.15


def test_gpu_hours_are_printed_per_candidate():
    advice = advise(build_workload(model="llama-2-7b", tokens=2e12, clouds=("aws",), regions=("us-east-1",)))
    row = advice_json(advice)["candidates"][0]
    assert row["gpuHours"] == pytest.approx(row["hours"] * row["gpus"], rel=1e-3)
    assert "GPU-hours" in render_text(advice)


# The seeds' example (seed 001): ResNet-50, 8 x V100 (125 TFLOPS FP16), 90 epochs, "about 12 hours".
# Published: NVIDIA DeepLearningExamples PyTorch ResNet50 v1.5 README @291f0d02e815b148fa5c2b81bf07aa3552142895,
# DGX-1 16GB (8 x V100): mixed precision ~5 hours for 90 epochs (FP32 ~12 hours: the seed's figure is the FP32
# time). The advisor's FP16 estimate must land within 0.7-1.3 of the published FP16 time: its MFU (20%) comes from
# the same table's throughput, and the published time also holds evaluation and start-up.
def test_resnet50_on_8_v100_against_nvidias_published_time():
    w = build_workload(workload="resnet50", precision="fp16")
    assert fl.total_flops(w) == pytest.approx(3 * 8.2e9 * 1_281_167 * 90)
    hours = fl.hours(fl.total_flops(w), 8, fl.peak_tflops("V100", "fp16"), w.mfu)
    assert 0.7 <= hours / 5.0 <= 1.3
    assert hours < 12  # the seed's 12 h is the FP32 run, not FP16


def test_vision_by_flops_per_sample_on_the_command_line(capsys):
    assert (
        main(
            [
                "size",
                "--params",
                "25.6M",
                "--flops-per-sample",
                "8.2G",
                "--samples",
                "1.28M",
                "--epochs",
                "90",
                "--cloud",
                "aws",
                "--region",
                "us-east-1",
                "--format",
                "json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["compute"]["flops"] == pytest.approx(3 * 8.2e9 * 1.28e6 * 90)
    assert "forward FLOPs per sample" in data["compute"]["rule"]
    assert main(["size", "--params", "25.6M", "--flops-per-sample", "8.2G", "--cloud", "aws"]) == 2
    assert "--samples and --epochs" in capsys.readouterr().err


def test_small_jobs_show_minutes_and_cents():
    advice = advise(build_workload(model="bert-base", tokens=1e7, seq_len=512, clouds=("aws",), regions=("us-east-1",)))
    text = render_text(advice)
    assert " min " in text and "$0." in text
    assert advice.cheapest.hours < 1 and advice.cheapest.best().cost_to_finish_usd > 0


def test_without_a_deadline_plans_are_sized_to_30_days_and_long_ones_marked():
    advice = advise(build_workload(params=70e9, tokens=2e12, clouds=("aws",), regions=("us-east-1",)))
    assert all(c.hours is None or c.hours <= 30 * 24 for c in advice.candidates)
    assert "nodes sized to finish within 30 days" in render_text(advice)
    slow = advise(
        build_workload(params=70e9, tokens=2e12, target_hours=400 * 24, clouds=("aws",), regions=("us-east-1",))
    )
    assert any("over 90 days" in c.marks for c in slow.candidates if c.hours and c.hours > 90 * 24)
    assert all("over 90 days" not in c.marks for c in slow.candidates if c.hours and c.hours <= 90 * 24)


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--params", "1e400", "--tokens", "1T"], "--params: '1e400' is not a finite number"),
        (["--params", "7B", "--tokens", "1e30"], "--tokens"),
        (["--params", "1e20", "--tokens", "1T"], "--params"),
    ],
)
def test_absurd_inputs_are_one_line_exit_2(argv, fragment):
    run = subprocess.run(
        [sys.executable, "-m", "blueprints", "size", *argv], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and fragment in run.stderr and "Traceback" not in run.stderr


def test_size_help_has_a_description_examples_that_run_and_exit_codes(capsys, tmp_path):
    import shlex

    from blueprints.cli import SIZE_EPILOG

    with pytest.raises(SystemExit) as done:
        main(["size", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "sizing and cost advisor" in out and "exit codes:" in out and "serving" in out
    examples = SIZE_EPILOG.split("exit codes:")[0].replace("\\\n", " ").splitlines()[1:]
    commands = [shlex.split(line)[3:] for line in examples if line.strip()]
    assert len(commands) == 5
    for argv in commands:
        if "--write-stack" in argv:
            argv += ["--stacks-dir", str(tmp_path)]
        assert main(argv) == 0, argv
        capsys.readouterr()
