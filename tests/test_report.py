"""volva report: figures, report.html and report.pdf from a real run; one-line errors."""
from __future__ import annotations

import re
import shutil

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from volva.cli import app

runner = CliRunner()

PNGS = ["strategy_summary.png", "head_to_head.png", "seat_advantage.png", "glory_sources.png", "stat_paths.png",
        "card_forest.png", "drafted_gods.png", "convergence.png"]


def _assert_one_line_error(res, *needles):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output
    for n in needles:
        assert n in lines[0], lines[0]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "r"
    res = runner.invoke(app, ["run", "--players", "4", "--lineup", "greedy,greedy,random,greedy",
                              "--games", "3000", "--seed", "7", "--batch-size", "1000", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


def _check_report(rep, pngs):
    for f in pngs:
        p = rep / f
        assert p.is_file() and p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f
        assert p.stat().st_size > 10_000, f  # not an empty canvas
    pdf = rep / "report.pdf"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    assert len(re.findall(rb"/Type\s*/Page\b", pdf.read_bytes())) == len(pngs)
    html = (rep / "report.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == len(pngs)
    assert "<img" in html and 'src="' not in html.replace("src='data:", "")  # nothing linked externally
    return html


@pytest.mark.slow
def test_report_on_real_run(real_run, tmp_path):
    rep = tmp_path / "rep"
    res = runner.invoke(app, ["report", str(real_run), "--out", str(rep)])
    assert res.exit_code == 0, res.output
    html = _check_report(rep, PNGS)
    assert not (rep / "god_heatmap.png").exists()
    assert "did not use the Gods of Ásgard module" in html
    for fact in ("3,000 of 3,000 games", "greedy, greedy, random, greedy", "tie_break=rage", "numba",
                 "<dt>seed</dt><dd>7</dd>", "How the bots played"):
        assert fact in html, fact
    listed = [line for line in res.stdout.splitlines() if line.strip()]
    csvs = ["cards.csv", "card_uses.csv", "strategy.csv", "seat.csv", "seat_pooled.csv", "head_to_head.csv",
            "drafted_gods.csv",
            "glory_sources.csv", "game_shape.csv", "game_shape_per_game.csv"]
    assert sorted(p.rsplit("/", 1)[-1] for p in listed) == sorted(PNGS + csvs + ["report.html", "report.pdf"])
    cards = pd.read_csv(rep / "cards.csv")
    assert {"ata", "win_rate_drafted", "win_rate_played", "win_rate_kept", "glory_played", "iwd"} <= set(cards)
    assert (cards["n_kept"].fillna(0) <= cards["n_drafted"]).all()  # only drafted cards are kept
    # issue 16: the CSV carries the test, and BH/Holm run over the tested rows only (one family per
    # table): statsmodels on the CSV's own p-values gives its p_adj and p_holm
    from statsmodels.stats.multitest import multipletests
    t = cards[cards["tested"]]
    assert 0 < len(t) < len(cards) and cards.loc[~cards["tested"], "p_adj"].isna().all()
    assert np.allclose(t["p_adj"], multipletests(t["p_value"], method="fdr_bh")[1], rtol=0, atol=1e-12)
    assert np.allclose(t["p_holm"], multipletests(t["p_value"], method="holm")[1], rtol=0, atol=1e-12)
    assert np.allclose(t["z"], t["iwd"] / t["se"]) and not cards.loc[cards["small"], "tested"].any()


@pytest.mark.slow
def test_report_with_gods(tmp_path):
    run = tmp_path / "g"
    res = runner.invoke(app, ["run", "--players", "3", "--games", "600", "--seed", "2", "--module", "gods-of-asgard",
                              "--out", str(run)])
    assert res.exit_code == 0, res.output
    rep = tmp_path / "rep"
    res = runner.invoke(app, ["report", str(run), "--out", str(rep)])
    assert res.exit_code == 0, res.output
    html = _check_report(rep, [p for p in PNGS if p != "head_to_head.png"] + ["god_heatmap.png"])
    assert "Per pair and strategy" in html


def _copy_run(real_run, tmp_path, stats=False):
    """A copy of the run; without ``stats`` the stats/ folder is dropped, so the report reads the
    row files (as for a run written before stats existed)."""
    d = tmp_path / "copy"
    shutil.copytree(real_run, d)
    if not stats:
        shutil.rmtree(d / "stats")
    return d


@pytest.mark.slow
def test_report_from_rows_equals_report_from_stats(real_run, tmp_path):
    """The row files, read one row group at a time, give exactly the stats written during the run."""
    from volva.analysis.suffstats import Stats
    from volva.reports.report import _read_run_json, load_run_stats
    d = _copy_run(real_run, tmp_path)
    st = load_run_stats(d, _read_run_json(d))
    assert st.equals(Stats.load(real_run))
    # and each card's type, god and value (cards.csv lost those columns: a helper session)
    assert st.cards and st.cards == Stats.load(real_run).cards


@pytest.mark.slow
@pytest.mark.parametrize("table", ["clans", "draft", "h2h"])
def test_corrupt_or_foreign_stats_file(real_run, tmp_path, table):
    d = _copy_run(real_run, tmp_path, stats=True)
    f = d / "stats" / f"{table}.parquet"
    data = f.read_bytes()
    f.write_bytes(data[: len(data) // 2])
    _assert_one_line_error(runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")]), f"{table}.parquet")
    pq.write_table(pa.table({"x": [1, 2, 3]}), f)
    _assert_one_line_error(runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")]),
                           f"{table}.parquet", "missing columns")
    (d / "stats" / "meta.json").write_text("[1, 2]")
    _assert_one_line_error(runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")]), "meta.json")


def test_stats_only_run_without_stats_names_the_stats_folder(real_run, tmp_path):
    """A --no-keep-rows run whose stats/ is not saved (yet, or lost) has no row files to fall back
    on: the error names stats/, not clans.parquet (found by a helper session)."""
    import json
    d = _copy_run(real_run, tmp_path)
    meta = json.loads((d / "run.json").read_text())
    (d / "run.json").write_text(json.dumps(dict(meta, keep_rows=False, status="running")))
    for f in ("clans.parquet", "picks.parquet", "plays.parquet"):
        (d / f).unlink(missing_ok=True)
    _assert_one_line_error(runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")]),
                           f"{d / 'stats'}: not found", "keeps no row files", "status: running")


@pytest.mark.slow
def test_stats_table_of_another_run_or_wrong_types(real_run, tmp_path):
    """A table copied from another run, or rewritten with text columns, is refused, not mixed in."""
    import json
    d = _copy_run(real_run, tmp_path, stats=True)
    other = tmp_path / "other"
    res = runner.invoke(app, ["run", "--players", "4", "--games", "200", "--seed", "3", "--out", str(other),
                              "--no-keep-rows"])
    assert res.exit_code == 0, res.output
    shutil.copy(other / "stats" / "draft.parquet", d / "stats" / "draft.parquet")
    _assert_one_line_error(runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")]),
                           "draft.parquet", "does not match")
    t = pq.read_table(real_run / "stats" / "draft.parquet").to_pandas().astype(str)
    t.to_parquet(d / "stats" / "draft.parquet", index=False)
    _assert_one_line_error(runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")]),
                           "draft.parquet", "expected integers")
    meta = json.loads((real_run / "stats" / "meta.json").read_text())
    assert set(meta["sha256"]) >= {"clans", "draft", "use", "h2h"}


def test_missing_run_dir(tmp_path):
    _assert_one_line_error(runner.invoke(app, ["report", str(tmp_path / "nope"), "--out", str(tmp_path / "r")]),
                           "nope", "not found")


@pytest.mark.slow
def test_text_file_named_clans_parquet(real_run, tmp_path):
    d = _copy_run(real_run, tmp_path)
    (d / "clans.parquet").write_text("game_id,seat\n0,0\n")
    res = runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")])
    _assert_one_line_error(res, "clans.parquet")


@pytest.mark.slow
def test_foreign_parquet(real_run, tmp_path):
    d = _copy_run(real_run, tmp_path)
    pq.write_table(pa.table({"x": [1, 2, 3], "y": ["a", "b", "c"]}), d / "picks.parquet")
    res = runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")])
    _assert_one_line_error(res, "picks.parquet", "missing columns")


@pytest.mark.slow
def test_truncated_parquet_and_missing_files(real_run, tmp_path):
    d = _copy_run(real_run, tmp_path)
    data = (d / "clans.parquet").read_bytes()
    (d / "clans.parquet").write_bytes(data[: len(data) // 2])
    _assert_one_line_error(runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")]), "clans.parquet")
    shutil.copy(real_run / "clans.parquet", d / "clans.parquet")
    (d / "picks.parquet").unlink()
    _assert_one_line_error(runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")]),
                           "picks.parquet", "not found")
    (d / "run.json").write_text("{not json")
    _assert_one_line_error(runner.invoke(app, ["report", str(d), "--out", str(tmp_path / "r")]), "run.json")


def test_out_is_a_file(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    _assert_one_line_error(runner.invoke(app, ["report", str(tmp_path), "--out", str(f)]), "not a directory")
