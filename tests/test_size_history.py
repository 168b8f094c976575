"""`size --usage-history`: a 12-month forecast per shape (statsmodels) and the commitment it supports."""

import builtins
import json

import pytest

from blueprints.cli import main
from blueprints.errors import BlueprintError
from blueprints.sizing import history
from blueprints.sizing.commitments import HOURS_PER_MONTH, saving

pytest.importorskip("statsmodels")


def write(tmp_path, rows, header="month,instance_type,gpu_hours"):
    path = tmp_path / "usage.csv"
    path.write_text("\n".join([header] + rows) + "\n")
    return path


def months(start_year, start_month, count):
    out, y, m = [], start_year, start_month
    for _ in range(count):
        out.append(f"{y}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def test_a_steady_trend_is_carried_forward(tmp_path):
    # 8 x p4de.24xlarge-sized growth: +800 GPU-hours a month from 8,000.
    rows = [f"{m},p4de.24xlarge,{8000 + 800 * i}" for i, m in enumerate(months(2025, 11, 12))]
    [result] = history.plan_commitments(write(tmp_path, rows))
    values = [v for _, v in result.forecast]
    assert len(values) == 12 and result.forecast[0][0] == "2026-11"
    assert values[0] > 8000 + 800 * 11 - 400  # keeps growing from the last month (17,600)
    assert values == sorted(values)  # a damped trend still rises
    assert "statsmodels" in result.method


def test_commitment_is_the_level_that_saves_most_over_the_forecast(tmp_path):
    rows = [f"{m},p4de.24xlarge,{20000 + (i % 3) * 500}" for i, m in enumerate(months(2025, 1, 24))]
    [result] = history.plan_commitments(write(tmp_path, rows))
    per_instance = [v / 8 for _, v in result.forecast]
    a = result.advice
    savings = {n: sum(saving(n, per_instance, a.on_demand_usd_per_hour, a.commit_usd_per_hour)) for n in range(8)}
    assert a.instances == max(savings, key=savings.get) and a.instances >= 3
    assert a.saving_usd == pytest.approx(savings[a.instances], abs=0.05) and a.saving_usd > 0
    assert "seasonal" in result.method or "season" in result.method


def test_low_use_gets_no_commitment(tmp_path):
    rows = [f"{m},g4dn.xlarge,{h}" for m, h in zip(months(2026, 1, 6), (100, 300, 50, 200, 120, 90))]
    [result] = history.plan_commitments(write(tmp_path, rows))
    assert result.advice.instances == 0 and result.advice.saving_usd == 0
    assert max(v for _, v in result.forecast) < 0.63 * HOURS_PER_MONTH  # below the break-even utilization


@pytest.mark.parametrize(
    "rows, header, fragments",
    [
        (
            ["2026-01,p4de.24xlarge,100", "2026-03,p4de.24xlarge,100", "2026-04,p4de.24xlarge,100"],
            None,
            ("usage.csv", "2026-02 is missing", "consecutive months"),
        ),
        (
            ["2026-01,p4de.24xlarge,100", "2026-02,p4de.24xlarge,-5", "2026-03,p4de.24xlarge,100"],
            None,
            ("row 3 gpu_hours", "negative", ">= 0"),
        ),
        (["2026-01,p4de.24xlarge,100"], "month,shape,gpu_hours", ("missing column 'instance_type'",)),
        (["2026-01,p9.huge,100"], None, ("row 2 instance_type", "'p9.huge' is not in the catalog")),
        (["2026-13,p4de.24xlarge,100"], None, ("row 2 month", "YYYY-MM")),
        (["2026-01,p4de.24xlarge,lots"], None, ("gpu_hours", "not a number")),
        (["2026-01,p4de.24xlarge,1", "2026-02,p4de.24xlarge,1"], None, ("at least 3 needed",)),
    ],
)
def test_bad_history_is_one_line_naming_file_and_field(tmp_path, capsys, rows, header, fragments):
    path = write(tmp_path, rows, header or "month,instance_type,gpu_hours")
    assert main(["size", "--usage-history", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0]
    for fragment in fragments:
        assert fragment in err[0]


def test_missing_statsmodels_names_the_install_command(tmp_path, monkeypatch):
    real = builtins.__import__

    def no_statsmodels(name, *args, **kwargs):
        if name.startswith("statsmodels"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_statsmodels)
    rows = [f"{m},p4de.24xlarge,{1000 + i}" for i, m in enumerate(months(2026, 1, 6))]
    with pytest.raises(BlueprintError, match="pip install -r requirements-advisor.txt"):
        history.plan_commitments(write(tmp_path, rows))


def test_json_output_cites_prices(tmp_path, capsys):
    rows = [f"{m},p4de.24xlarge,{17000}" for m in months(2026, 1, 6)]
    assert main(["size", "--usage-history", str(write(tmp_path, rows)), "--format", "json"]) == 0
    [shape] = json.loads(capsys.readouterr().out)["shapes"]
    # 17,000 / 8 = 2,125 instance-hours a month: two instances busy all month, a third 91% of the time, above
    # the 63% break-even (17.40 / 27.45), so committing three saves most.
    assert shape["commitment"]["instances"] == 3
    assert "commit-1y" in shape["commitment"]["source"] and "as of" in shape["commitment"]["source"]
