"""volva tournament / analysis.tournament: combinations, seat rotation on shared seeds, ranking with
Wilson intervals, head-to-head matrix, CLI output and CSVs."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from volva.analysis.tournament import RANKING_COLUMNS, head_to_head, pairs, ranking, round_games, run_tournament
from volva.cli import app

runner = CliRunner()
NAMES = ["greedy", "balanced", "quester"]
GAMES = 300


def _one_line_error(res, *needles):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output
    for n in needles:
        assert n in lines[0], (n, lines[0])


@pytest.fixture(scope="module")
def clans2():
    """A real 3-strategy, 2-player tournament: 3 pairs x 300 games."""
    from volva.simulator.engines import load_ruleset
    return run_tournament(load_ruleset(), NAMES, 2, GAMES, seed=11)


# --- real games ------------------------------------------------------------------

@pytest.mark.slow
def test_every_pair_present_with_balanced_seats(clans2):
    assert clans2["game_id"].nunique() == 3 * GAMES and len(clans2) == 3 * GAMES * 2
    lineups = set(clans2["lineup"])
    assert lineups == {",".join(c) for c in itertools.combinations(NAMES, 2)}
    for lineup, df in clans2.groupby("lineup"):
        assert df["game_id"].nunique() == GAMES
        seats = df.groupby(["strategy", "seat"]).size()
        assert len(seats) == 4 and (seats == GAMES // 2).all(), seats
        # shared seeds: both rotations play the same seeds
        s0 = set(df.loc[(df.seat == 0) & (df.strategy == lineup.split(",")[0]), "seed"])
        s1 = set(df.loc[(df.seat == 1) & (df.strategy == lineup.split(",")[0]), "seed"])
        assert s0 == s1 and len(s0) == GAMES // 2
    # one winner share per game
    assert np.allclose(clans2.groupby("game_id")["win_share"].sum(), 1.0)


@pytest.mark.slow
def test_head_to_head_two_players_sums_to_one(clans2):
    mat = head_to_head(clans2)
    assert sorted(mat.index) == sorted(NAMES) and list(mat.columns) == list(mat.index)
    for a, b in itertools.combinations(NAMES, 2):
        assert 0 <= mat.loc[a, b] <= 1
        assert mat.loc[a, b] + mat.loc[b, a] == pytest.approx(1.0)
    assert mat.isna().to_numpy().diagonal().all()
    p = pairs(clans2)
    assert len(p) == 6 and (p["games"] == GAMES).all()
    assert ((p["ci_low"] <= p["win_rate"]) & (p["win_rate"] <= p["ci_high"])).all()


@pytest.mark.slow
def test_ranking_columns_and_intervals(clans2):
    r = ranking(clans2)
    assert list(r.columns) == RANKING_COLUMNS
    assert sorted(r["strategy"]) == sorted(NAMES)
    assert (r["games"] == 2 * GAMES).all()  # each strategy plays 2 of the 3 pairs
    assert r["win_rate"].is_monotonic_decreasing
    assert ((r["ci_low"] <= r["win_rate"]) & (r["win_rate"] <= r["ci_high"])).all()
    assert ((r["ci_high"] - r["ci_low"]) < 0.15).all() and (r["ci_low"] >= 0).all() and (r["ci_high"] <= 1).all()
    assert r["expected"].eq(0.5).all() and r["mean_glory"].gt(0).all()
    # 2 players: total wins = total games
    assert r["win_shares"].sum() == pytest.approx(3 * GAMES)
    # ranking win rate = games-weighted mean of the head-to-head rates
    p = pairs(clans2)
    for _, row in r.iterrows():
        q = p[p.strategy == row.strategy]
        assert row.win_rate == pytest.approx((q.win_rate * q.games).sum() / q.games.sum())


@pytest.mark.slow
def test_deterministic():
    from volva.simulator.engines import load_ruleset
    rs = load_ruleset()
    a = run_tournament(rs, ["greedy", "random", "balanced"], 2, 10, seed=4)
    b = run_tournament(rs, ["greedy", "random", "balanced"], 2, 10, seed=4)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.slow
def test_cli_output_and_csvs(tmp_path):
    out = tmp_path / "t"
    res = runner.invoke(app, ["tournament", "--strategies", ",".join(NAMES), "--players", "2", "--games", "51",
                              "--seed", "3", "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "Ranking" in text and "Head to head" in text and "—" in text
    for n in NAMES:
        assert n in text
    assert "3 combinations x 52 games" in text  # 51 rounded up to a multiple of 2
    assert "rounded up to 52" in res.stderr
    rank = pd.read_csv(out / "tournament.csv")
    assert list(rank.columns) == RANKING_COLUMNS and len(rank) == 3 and (rank["games"] == 104).all()
    import json
    meta = json.loads((out / "tournament.json").read_text())  # what played, for a reader of the tables
    assert meta["ruleset"] == "blood-rage" and meta["seed"] == 3 and meta["games_per_combination"] == 52
    assert sorted(meta["strategies"]) == sorted(NAMES) and meta["options"] == []
    h2h = pd.read_csv(out / "head_to_head.csv", index_col="strategy")
    assert list(h2h.index) == list(rank["strategy"]) and list(h2h.columns) == list(rank["strategy"])
    assert np.isnan(np.diag(h2h.to_numpy())).all()
    for a, b in itertools.combinations(NAMES, 2):
        assert h2h.loc[a, b] + h2h.loc[b, a] == pytest.approx(1.0, abs=1e-5)
    # the printed ranking shows every CSV win rate and interval
    for _, r in rank.iterrows():
        assert f"{r.win_rate:.4f}" in text and f"{r.ci_low:.4f}–{r.ci_high:.4f}" in text
    # ratings: greedy is the anchor; with 2 players a pair's Elo gap is the logit of its head to head
    rat = pd.read_csv(out / "ratings.csv").set_index("strategy")
    assert "Ratings" in text and rat.loc["greedy", "elo"] == 0 and rat["anchor"].sum() == 1
    assert rat.drop(index="greedy")["ci_low"].lt(rat.drop(index="greedy")["elo"]).all()


# --- plumbing with synthetic games -----------------------------------------------

def test_four_players_five_strategies(fake_play_batch):
    from volva.simulator.engines import load_ruleset
    names = ["greedy", "random", "balanced", "quester", "tyr-brute"]
    clans = run_tournament(load_ruleset(), names, 4, 10, seed=1)  # 10 -> 12 games per combination
    assert round_games(10, 4) == 12
    assert clans["lineup"].nunique() == 5 and clans["game_id"].nunique() == 5 * 12
    for _, df in clans.groupby("lineup"):
        seats = df.groupby(["strategy", "seat"]).size()
        assert len(seats) == 16 and (seats == 3).all()
    r = ranking(clans)
    assert (r["games"] == 4 * 12).all()  # each strategy sits in 4 of the 5 combinations
    assert r["expected"].eq(0.25).all()
    p = pairs(clans)
    assert len(p) == 20 and (p["games"] == 3 * 12).all()  # a pair meets in C(3, 2) = 3 combinations
    mat = head_to_head(clans)
    assert mat.shape == (5, 5) and mat.isna().sum().sum() == 5


@pytest.mark.parametrize("args, needles", [
    (["--strategies", "greedy,random,balanced", "--players", "6"], ["--players 6", "2..5"]),
    (["--strategies", "greedy,random,balanced", "--players", "1"], ["--players 1", "2..5"]),
    (["--strategies", "greedy,random,balanced", "--players", "4"], ["3 strategies for 4 players"]),
    (["--strategies", "greedy", "--players", "2"], ["1 strategy for 2 players"]),
    (["--strategies", "greedy,bogus,balanced", "--players", "2"], ["unknown strategy 'bogus'", "greedy"]),
    (["--strategies", "greedy,greedy,balanced", "--players", "2"], ["more than once", "greedy"]),
    (["--strategies", "greedy,,balanced", "--players", "2"], ["empty name"]),
    (["--strategies", "greedy,random", "--players", "2", "--games", "0"], ["--games 0"]),
])
def test_cli_errors(tmp_path, fake_play_batch, args, needles):
    out = tmp_path / "t"
    _one_line_error(runner.invoke(app, ["tournament", "--games", "10", *args, "--out", str(out)]),
                    *needles)
    assert fake_play_batch == []
    assert not out.exists()


def test_cli_with_fake_games_writes_csvs(tmp_path, fake_play_batch):
    out = tmp_path / "t"
    res = runner.invoke(app, ["tournament", "--strategies", "greedy,random,balanced,quester", "--players", "3",
                              "--games", "9", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert sum(fake_play_batch) == 4 * 9  # C(4,3) combinations x 9 games, split over 3 rotations
    assert (out / "tournament.csv").is_file() and (out / "head_to_head.csv").is_file()


def test_tournament_rows_are_the_clans_frame_outcome_columns():
    """A tournament keeps each clan's result only (TOURNAMENT_COLUMNS): the same values and
    dtypes as the clans rows ``volva run`` writes for the same games."""
    from volva.analysis import records as R
    from volva.analysis.tournament import TOURNAMENT_COLUMNS, match_batch
    from volva.simulator import engines
    from volva.strategies.builtin import resolve
    rs = engines.load_ruleset()
    lineup = ["greedy", "random", "balanced"]
    got = match_batch(rs, 9, 30, lineup, [resolve(n) for n in lineup], 1, 0, 30)
    assert list(got.columns) == TOURNAMENT_COLUMNS and (got["match"] == 1).all()
    assert (got["lineup"] == "greedy,random,balanced").all()
    want = []
    for r, gids, seeds in engines.game_plan(9, np.arange(30, dtype=np.int64), 3, True):
        b = engines.play_batch(rs, engines.rotated([resolve(n) for n in lineup], r), seeds)
        want.append(R.clans_frame(b, gids + 30, seeds, rs.name, engines.rotated(lineup, r), rs.god_names))
    want = pd.concat(want, ignore_index=True)
    assert want["glory"].gt(0).any() and want["win_share"].gt(0).any()
    pd.testing.assert_frame_equal(got[TOURNAMENT_COLUMNS[2:]], want[TOURNAMENT_COLUMNS[2:]], check_exact=True)


def _pairs_by_merge(clans):
    """pairs() by a self-merge on game_id (the version it replaced): the reference."""
    from volva.analysis.intervals import rate_from_rows
    left = clans[["game_id", "seed", "strategy", "win_share"]].assign(strategy=lambda d: d["strategy"].astype(str))
    right = clans[["game_id", "strategy"]].assign(strategy=lambda d: d["strategy"].astype(str)) \
        .rename(columns={"strategy": "opponent"})
    m = left.merge(right, on="game_id")
    m = m[m["strategy"] != m["opponent"]]
    out = m.groupby(["strategy", "opponent"], sort=True).agg(games=("game_id", "nunique"),
                                                             wins=("win_share", "sum")).reset_index()
    r = rate_from_rows(m, ["strategy", "opponent"])
    out["win_rate"] = out["wins"] / out["games"]
    for c in ("se", "ci_low", "ci_high"):
        out[c] = r[c].to_numpy()
    return out


@pytest.mark.slow
def test_pairs_equal_the_merge_version(clans2):
    """pairs() (seat pairs by reshaping each game's seats) gives the merge version's table exactly,
    on real 2-player games and on 4-player games of five strategies."""
    from volva.simulator.engines import load_ruleset
    four = run_tournament(load_ruleset(), ["greedy", "random", "balanced", "quester", "tyr-brute"], 4, 40, seed=2)
    for clans in (clans2, four):
        got = pairs(clans)
        assert (got["games"] > 0).all() and len(got) == clans["strategy"].nunique() * (clans["strategy"].nunique() - 1)
        pd.testing.assert_frame_equal(got, _pairs_by_merge(clans), check_exact=True)


@pytest.mark.slow
def test_valhalla_dice_tournament_at_six_players():
    """The dice game's own player range (2..6) holds for a tournament (a helper session: 6 players
    raised 'allowed: 2..5' from the base game's range, a traceback)."""
    from volva.simulator.engines import load_ruleset
    from volva.strategies.lineup import resolve_for
    names = ["greedy", "raider", "turtle", "hoarder", "set-collector", "jarl-savvy"]
    dice = load_ruleset("valhalla-dice")
    clans = run_tournament(dice, names, 6, 6, seed=1, policies=[resolve_for(dice.engine)(n) for n in names])
    assert clans["game_id"].nunique() == 6 and (clans.groupby("game_id").size() == 6).all()
    with pytest.raises(ValueError, match=r"allowed: 2\.\.5"):
        run_tournament(load_ruleset(), ["greedy", "random", "balanced", "quester", "tyr-brute", "thor-warlord"], 6, 6,
                       seed=1)


def test_force_without_out_is_refused():
    """--force replaces the tables of --out: alone it did nothing, silently (a new-user session)."""
    res = runner.invoke(app, ["tournament", "--strategies", "greedy,random", "--players", "2", "--games", "10",
                              "--force"])
    _one_line_error(res, "--force", "--out")


def test_an_interrupted_tournament_says_so(monkeypatch, tmp_path):
    """Ctrl-C during a tournament exited 130 without a word (a new-user session)."""
    import volva.analysis.tournament as T

    def stop(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(T, "run_tournament", stop)
    res = runner.invoke(app, ["tournament", "--strategies", "greedy,random", "--players", "2", "--games", "10",
                              "--out", str(tmp_path / "t")])
    assert res.exit_code == 130 and "interrupted: no tables written" in res.stderr, res.output
    assert not (tmp_path / "t" / "tournament.csv").exists()


def test_force_keeps_the_earlier_tables_until_the_new_ones_are_written(monkeypatch, tmp_path):
    """--force removed OUT's tables before playing, so a Ctrl-C left OUT empty (a helper session):
    the earlier tables now stay until the new ones are written, and are then replaced."""
    import volva.analysis.tournament as T
    out = tmp_path / "t"
    args = ["tournament", "--strategies", "greedy,random", "--players", "2", "--games", "10", "--out", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    before = {f: (out / f).read_bytes() for f in ("tournament.csv", "ratings.csv", "head_to_head.csv", "tournament.json")}
    real = T.run_tournament

    def stop(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(T, "run_tournament", stop)
    res = runner.invoke(app, [*args, "--force", "--seed", "2"])
    assert res.exit_code == 130 and "unchanged" in res.stderr, res.output
    assert {f: (out / f).read_bytes() for f in before} == before
    monkeypatch.setattr(T, "run_tournament", real)
    assert runner.invoke(app, [*args, "--force", "--seed", "2"]).exit_code == 0
    assert '"seed": 2' in (out / "tournament.json").read_text()


def test_an_anchor_without_a_finite_rating_still_writes_the_other_tables(tmp_path):
    """--anchor naming a strategy that lost every game failed after the games with nothing written
    (a helper session): the ranking and head to head are written, ratings.csv is not, exit 2."""
    out = tmp_path / "t"
    res = runner.invoke(app, ["tournament", "--strategies", "greedy,random", "--players", "2", "--games", "60",
                              "--anchor", "random", "--out", str(out)])
    assert res.exit_code == 2 and "no finite rating" in res.stderr and "ratings.csv is not" in res.stderr, res.output
    assert (out / "tournament.csv").exists() and (out / "head_to_head.csv").exists()
    assert not (out / "ratings.csv").exists()


def test_report_on_a_tournament_directory_says_what_it_is(tmp_path):
    """`volva report` on a tournament's OUT said only 'run.json: file not found' (a helper session)."""
    out = tmp_path / "t"
    assert runner.invoke(app, ["tournament", "--strategies", "greedy,random", "--players", "2", "--games", "10",
                               "--out", str(out)]).exit_code == 0
    res = runner.invoke(app, ["report", str(out), "--out", str(tmp_path / "r")])
    _one_line_error(res, "run.json", "a tournament", "tournament.csv")


def test_report_on_a_folder_of_runs_names_them_without_calling_it_paired(tmp_path):
    """`volva report` on a folder holding runs called it 'a paired experiment' (a helper session);
    a compare's folder is still named as one."""
    top = tmp_path / "runs"
    for name in ("a", "b"):
        assert runner.invoke(app, ["run", "--players", "2", "--games", "4", "--out", str(top / name)]).exit_code == 0
    res = runner.invoke(app, ["report", str(top), "--out", str(tmp_path / "r")])
    _one_line_error(res, "run.json", "a folder of runs: report one", str(top / "a"), str(top / "b"))
    assert "paired" not in res.stderr
    for name in ("baseline", "variant"):
        (top / name).mkdir()
        (top / name / "run.json").write_text("{}")
    res = runner.invoke(app, ["report", str(top), "--out", str(tmp_path / "r")])
    _one_line_error(res, "a paired experiment: report one of its arms", str(top / "baseline"))


def test_tournament_strategies_from_a_file_and_repeats_refused(tmp_path, fake_play_batch):
    """`--strategies @FILE` reads the names as `--lineup @FILE` does (it said "unknown strategy
    '@FILE'", a helper session); name*k is refused as a tournament's, not as an unknown name."""
    from volva.analysis.session import UsageError, tournament_setup
    f = tmp_path / "lu.txt"
    f.write_text("greedy  # the baseline\n\nrandom,balanced\n")
    _, names, pols, combos = tournament_setup(f"@{f}", 2, "blood-rage", [])
    assert names == ["greedy", "random", "balanced"] and len(pols) == 3 and len(combos) == 3
    with pytest.raises(UsageError, match=r"'greedy\*2': name\*k repeats a strategy in a lineup; a tournament"):
        tournament_setup("balanced,greedy*2,quester", 2, "blood-rage", [])
    with pytest.raises(UsageError, match=r"--strategies: lineup file .*nope.txt'.*No such file"):
        tournament_setup(f"@{tmp_path / 'nope.txt'}", 2, "blood-rage", [])
    (tmp_path / "empty.txt").write_text("# to fill in\n")
    with pytest.raises(UsageError, match=r"empty.txt': no strategy names"):  # not 'empty name' (a helper session)
        tournament_setup(f"@{tmp_path / 'empty.txt'}", 2, "blood-rage", [])
    res = runner.invoke(app, ["run", "--players", "4", "--lineup", "greedy,,balanced,quester", "--games", "4",
                              "--out", str(tmp_path / "o")])
    _one_line_error(res, "an empty name (two commas in a row")


def test_report_on_a_population_compare_or_a_tune_folder_says_what_it_is(tmp_path):
    """`volva report` on a --population compare's OUT or a tune's OUT said only 'run.json: file
    not found' (a helper session)."""
    pops = tmp_path / "c"
    for pop in ("greedy", "tuned"):
        for arm in ("baseline", "variant"):
            (pops / pop / arm).mkdir(parents=True)
            (pops / pop / arm / "run.json").write_text("{}")
    res = runner.invoke(app, ["report", str(pops), "--out", str(tmp_path / "r")])
    _one_line_error(res, "a paired experiment over populations: report one population's arm",
                    str(pops / "greedy" / "baseline"), str(pops / "tuned" / "variant"))
    tune = tmp_path / "t"
    tune.mkdir()
    (tune / "tune.json").write_text("{}")
    res = runner.invoke(app, ["report", str(tune), "--out", str(tmp_path / "r")])
    _one_line_error(res, "a tuning study: its report is tune.json")


def test_h2h_table_says_when_every_game_seats_every_strategy():
    """With as many strategies as seats, each row of the matrix is constant (its overall win rate),
    which read as a head-to-head (a helper session): the table says so."""
    import pandas as pd
    from rich.console import Console

    from volva.reports.console import h2h_table
    names = ["greedy", "balanced", "quester"]
    mat = pd.DataFrame([[float("nan"), 0.37, 0.37], [0.33, float("nan"), 0.33], [0.3, 0.3, float("nan")]],
                       index=names, columns=names)

    def text(m):
        con = Console(width=200, record=True)
        con.print(h2h_table(m))
        return con.export_text()
    assert "every game seats every strategy" in text(mat)
    mat.loc["greedy", "quester"] = 0.41
    assert "every game seats every strategy" not in text(mat)
