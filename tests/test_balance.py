"""Balance experiments: paired what-if comparisons, ablation, studies from experiment files.

The planted-effect and null tests are the issue's acceptance checks: a battle card patched to
+20 comes out first in the card ranking of ``volva compare`` with an interval clear of every
other card; a comparison in which nothing differs but the games flags no card after
Benjamini–Hochberg correction.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from volva.analysis import aggregate as A
from volva.analysis.paired import _paired_interval, compare_tables, iwd_diff
from volva.analysis.pairsums import paired_sums
from volva.analysis.suffstats import Stats
from volva.cli import app

runner = CliRunner()


def _one_line_error(res, *needles):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    for n in needles:
        assert n in lines[0], lines[0]


# --------------------------------------------------------------------------- statistics

def test_paired_interval_matches_scipy_and_covers():
    rng = np.random.default_rng(7)
    d = rng.normal(0.03, 0.5, 400)
    m, lo, hi, p = _paired_interval(d.sum(), (d * d).sum(), len(d))
    res = stats.ttest_1samp(d, 0.0)
    ci = res.confidence_interval(0.95)
    assert m == pytest.approx(d.mean()) and (lo, hi) == pytest.approx((ci.low, ci.high))
    assert p == pytest.approx(res.pvalue)
    # coverage on synthetic paired win-share differences with a known mean
    true, reps, hits = 0.05, 2000, 0
    for _ in range(reps):
        a = rng.random(300) < 0.25
        b = np.where(rng.random(300) < 0.8, a, rng.random(300) < 0.25 + true / 0.2)
        x = b.astype(float) - a.astype(float)
        _, lo, hi, _ = _paired_interval(x.sum(), (x * x).sum(), len(x))
        hits += lo <= true <= hi
    assert 0.93 <= hits / reps <= 0.97, hits / reps


def test_paired_sums_refuse_unpaired_rows():
    a = pd.DataFrame({"game_id": [0, 0], "seat": [0, 1], "strategy": ["x", "y"], "win_share": [1.0, 0.0],
                      "glory": [10, 5]})
    b = a.assign(win_share=[0.0, 1.0], glory=[4, 9])
    s = paired_sums(a, b)
    s = s[s["holder"] == -1].set_index("strategy")
    assert s.loc["x", "d"] == -60 and s.loc["y", "d"] == 60 and s.loc["x", "gd"] == -6
    assert s.loc["*", "d"] == 0 and s.loc["*", "c_dd"] == 0  # the game's differences sum to 0
    with pytest.raises(ValueError, match="not the same games"):
        paired_sums(a, b.assign(seat=[1, 0]))


# --------------------------------------------------------------------------- engine-backed

def _stats(rs, names, seed, games, batch=5000):
    from volva.analysis.runner import play_batch_frames
    from volva.strategies.builtin import resolve
    pols = [resolve(n) for n in names]
    st = Stats()
    for f in range(0, games, batch):
        st.add(play_batch_frames(rs, names, pols, seed, f, min(batch, games - f), True, None).stats)
    return st


@pytest.mark.slow
def test_planted_card_is_found(tmp_path):
    """A battle card patched from +2 to +20 is ranked first by the change of its improvement
    when drafted (variant − baseline), with a 95% interval above every other card's estimate and
    clear of every commonly drafted card's interval."""
    from volva.simulator.engines import load_ruleset
    p = tmp_path / "bash20.toml"
    p.write_text('"Tyr\'s Bash".value = 20\n')
    names = ["greedy"] * 4
    sa = _stats(load_ruleset(), names, 11, 10_000)
    sb = _stats(load_ruleset(patch=p), names, 11, 10_000)
    t = iwd_diff(A.cards(sa), A.cards(sb)).sort_values("d_iwd", ascending=False).reset_index(drop=True)
    top = t.iloc[0]
    assert (top.card, top.age) == ("Tyr's Bash", 1) and top.significant
    rest = t.iloc[1:]
    assert top.ci_low > rest["d_iwd"].max()  # above every other card's estimate
    # and clear of the interval of every card drafted by 1,000+ clans in both arms (rarer cards'
    # intervals are wider than the planted effect at 10,000 games)
    common = rest[(rest["n_drafted_a"] >= 1000) & (rest["n_drafted_b"] >= 1000)]
    assert len(common) > 50 and top.ci_low > common["ci_high"].max(), common.sort_values("ci_high").tail(3)
    # in the variant every clan that sees it takes it first
    assert top.ata_b < 1.2 < top.ata_a


def _compare(tmp_path, patch_text: str, lineup: str, *args):
    """``volva compare`` of a patch written to tmp_path/patch.toml into tmp_path/cmp: (out, result)."""
    p = tmp_path / "patch.toml"
    p.write_text(patch_text)
    out = tmp_path / "cmp"
    res = runner.invoke(app, ["compare", "--patch", str(p), "--lineup", lineup, *args, "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out, res


@pytest.mark.slow
def test_planted_card_is_found_by_its_worth_to_holders(tmp_path):
    """Issue 16 (stats-audit §4): in a lineup of four strategies, Tyr's Bash patched from +2 to +20
    changes who drafts it (ATA ~5 -> 1.0) and what it is worth to its holders. The holder-value
    change of ``volva compare`` (compare_card_value.csv: the holders' paired change minus the
    strategy's other clans') flags it for every strategy and ranks it first among the flagged
    cards of each; the change of IWD flags it for one of the four."""
    out, _ = _compare(tmp_path, '"Tyr\'s Bash".value = 20\n', "greedy,thor-warlord,balanced,quester", "--games",
                      "10000", "--seed", "401")
    v = pd.read_csv(out / "compare_card_value.csv")
    for s, g in v.groupby("strategy"):
        bash = g[g["card"] == "Tyr's Bash"].iloc[0]
        assert bash["significant"] and bash["d_value"] > 0.04 and bash["ata_b"] < 1.2 < bash["ata_a"], s
        flagged = g[g["significant"] & (g["card"] != "Tyr's Bash")]
        assert (flagged["d_value"] < bash["d_value"]).all(), (s, flagged)
    # the paired ΔIWD mixes the change of drafters with the change of worth
    ci = pd.read_csv(out / "compare_card_iwd.csv")
    assert ci["paired"].all()
    assert ci[ci["card"] == "Tyr's Bash"]["significant"].sum() < 4


@pytest.mark.slow
def test_null_comparison_flags_no_card():
    """Same rules, different games (seeds 21 and 22): no card's IWD change, and no card's win
    rate change, is flagged at the 5% level after Benjamini–Hochberg (game-clustered errors)."""
    from volva.simulator.engines import load_ruleset
    rs = load_ruleset()
    names = ["balanced", "ragnarok-diver", "thor-warlord", "loki-martyr"]
    sa, sb = _stats(rs, names, 21, 8_000), _stats(rs, names, 22, 8_000)
    t = iwd_diff(A.cards(sa), A.cards(sb))
    assert len(t) > 200 and not t["significant"].any(), t.head()
    # the p-values are roughly uniform under the null (not all 1, not piled near 0)
    tested = t[~t["small"]]["p_value"]
    assert 0.3 < tested.median() < 0.7 and (tested < 0.05).mean() < 0.1
    from volva.analysis.pairsums import PAIR_SUMS
    sums = pd.DataFrame({"strategy": names, "holder": -1, **{c: 1 if c in ("n", "c_G", "c_nn") else 0
                                                             for c in PAIR_SUMS}})
    tabs = compare_tables(sa, sb, sums)
    assert not tabs["card_iwd"]["significant"].any()


@pytest.mark.slow
def test_compare_cli_noop_patch_changes_nothing(tmp_path):
    """A patch that changes only a card's description plays the very same games: every paired
    difference is 0 and no card is flagged; both arms are report-ready run directories."""
    out, res = _compare(tmp_path, '"Troll".effect = "Reworded, same opcode."\n', "greedy,quester,balanced,random",
                        "--games", "400", "--batch-size", "150")
    p = tmp_path / "patch.toml"
    s = pd.read_csv(out / "compare_strategy.csv")
    assert (s["d_win"] == 0).all() and (s["d_glory"] == 0).all() and (s["n"] == 400).all()
    c = pd.read_csv(out / "compare_card_iwd.csv")
    assert (c["d_iwd"].abs() < 1e-12).all() and not c["significant"].any()
    assert (pd.read_csv(out / "compare_shape.csv")["delta"] == 0).all()  # the same games: the same play
    assert "0 cards flagged" in res.stdout
    assert "the patch changes nothing the engine reads" in res.stderr  # said before the games
    assert Stats.load(out / "baseline").equals(Stats.load(out / "variant"))
    meta = json.loads((out / "variant" / "run.json").read_text())
    assert meta["patch"] == str(p) and meta["patch_sha256"] and meta["status"] == "complete"
    rep = runner.invoke(app, ["report", str(out / "variant"), "--out", str(tmp_path / "rep")])
    assert rep.exit_code == 0, rep.output


@pytest.mark.slow
def test_compare_cli_finds_the_patched_card(tmp_path):
    p = tmp_path / "bash20.toml"
    p.write_text('"Tyr\'s Bash".value = 20\n')
    out = tmp_path / "cmp"
    res = runner.invoke(app, ["compare", "--patch", str(p), "--lineup", "greedy*4", "--games", "6000",
                              "--seed", "11", "--out", str(out), "--top", "5"])
    assert res.exit_code == 0, res.output
    c = pd.read_csv(out / "compare_card_iwd.csv").sort_values("d_iwd", ascending=False)
    assert c.iloc[0]["card"] == "Tyr's Bash" and c.iloc[0]["significant"]
    assert "Tyr's Bash" in res.stdout
    assert (out / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_ablate_cli(tmp_path):
    """Forced vs banned on the same games: the clans that drafted Tyr's Smite (a +5 card) win
    more than the same clans without it; the holder count is what the forced arm drafted."""
    out = tmp_path / "abl"
    res = runner.invoke(app, ["ablate", "Tyr's Smite", "--age", "1", "--lineup", "greedy,quester,balanced,greedy",
                              "--games", "4000", "--seed", "5", "--estimand", "all-clans", "--ban", "dealt",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    t = pd.read_csv(out / "ablate.csv")
    held = t[(t["group"] == "drafted it (forced arm)") & (t["strategy"] == "(all)")].iloc[0]
    assert held.d_win > 0 and held.ci_low > 0
    forced = Stats.load(out / "forced")
    d = forced["draft"]
    drafted = d[(d["card"] == "Tyr's Smite") & (d["age"] == 1)]["n"].sum()
    assert held.n == drafted
    assert (out / "ablate.png").stat().st_size > 10_000
    assert json.loads((out / "banned" / "run.json").read_text())["draft_rules"].startswith("banned (all-clans, dealt)")
    banned = Stats.load(out / "banned")["draft"]
    assert not ((banned["card"] == "Tyr's Smite") & (banned["age"] == 1)).any()


def test_one_clan_ablation_binds_one_seat_per_game():
    """--estimand one-clan (issue 16): the forced and banned marks bind only seat seed % P, for one
    copy per age; every other clan drafts as usual (the card stays in the game for them)."""
    from volva.analysis import session
    from volva.analysis.runner import play_batch_frames
    from volva.simulator.engines import load_ruleset
    from volva.strategies.builtin import resolve
    names = ["greedy", "quester", "balanced", "greedy"]
    pols = [resolve(n) for n in names]
    rs_f, rs_b, ban = session.ablation(load_ruleset(), "Tyr's Smite", None, None, 4)
    assert ban == "dealt"
    picks = {}
    for arm, rs in (("forced", rs_f), ("banned", rs_b)):
        fr = play_batch_frames(rs, names, pols, 9, 0, 800, True, None)
        c = fr.clans
        focal = c[(c["seed"].to_numpy(np.uint64) % np.uint64(4)) == c["seat"].to_numpy(np.uint64)]
        assert len(focal) == 800 and focal["seat"].nunique() == 4  # one clan per game, every seat in turn
        p = fr.picks[fr.picks["card"].astype(str) == "Tyr's Smite"].merge(c[["game_id", "seat", "seed"]])
        p["focal"] = (p["seed"].to_numpy(np.uint64) % np.uint64(4)) == p["seat"].to_numpy(np.uint64)
        picks[arm] = p
    f, b = picks["forced"], picks["banned"]
    assert not b["focal"].any() and (~b["focal"]).sum() > 100  # banned for one clan, drafted by the others
    # forced: the focal clan takes it in (nearly) every game; the others still draft it by their own
    # choice, less often (the focal's copy is one they did not get)
    assert f[f["focal"]]["game_id"].nunique() > 0.85 * 800
    assert 100 < (~f["focal"]).sum() < (~b["focal"]).sum()


@pytest.mark.parametrize("args, needles", [
    (["ablate", "Tyr's Smite", "--ban", "removed", "--games", "10"], ["--ban removed", "--estimand all-clans"]),
    (["ablate", "Tyr's Smite", "--estimand", "half", "--games", "10"], ["--estimand 'half'", "one-clan", "all-clans"]),
    (["ablate", "Tyr Smite", "--games", "10"], ["unknown card 'Tyr Smite'", "Tyr's Smite"]),
    (["ablate", "Troll", "--age", "2", "--games", "10"], ["Troll", "no copy in age"]),
    (["ablate", "Troll", "--ban", "hidden", "--games", "10"], ["--ban 'hidden'", "removed", "dealt"]),
    (["compare", "--patch", "nope.toml", "--games", "10"], ["nope.toml", "not found"]),
])
def test_paired_cli_errors(tmp_path, args, needles):
    _one_line_error(runner.invoke(app, args + ["--out", str(tmp_path / "o")]), *needles)


# --------------------------------------------------------------------------- study

def test_experiment_file_errors(tmp_path):
    cases = [
        ("players = 7\n", ["players", "2..5"]),
        ("games = 'many'\n", ["games", "expected int"]),
        ("lineup = 'greedy,nobody,greedy,greedy'\n", ["nobody"]),
        ("colour = 'red'\n", ["colour", "unknown key", "allowed"]),
        ("playerz = 4\n", ["playerz", "unknown key", "did you mean 'players'?"]),
        ("patches = ['missing.toml']\n", ["patches", "missing.toml", "not found"]),
        ("modules = ['valhalla-gods']\n", ["modules 'valhalla-gods'", "gods-of-asgard"]),
        ("options = { tie_break = 'coin' }\n", ["tie_break"]),
        ("[patch]\n\"Tyrs Smite\".value = 4\n", ["[patch]", "Tyrs Smite", "no such card"]),
        ("rotate = 1\n", ["rotate", "expected bool"]),
    ]
    for i, (text, needles) in enumerate(cases):
        f = tmp_path / f"e{i}.toml"
        f.write_text(text)
        res = runner.invoke(app, ["study", str(f), "--out", str(tmp_path / f"o{i}"), "--no-report"])
        _one_line_error(res, *needles)
        assert not (tmp_path / f"o{i}" / "stats").exists()


@pytest.mark.slow
def test_study_from_file_with_inline_patch_and_resume(tmp_path):
    f = tmp_path / "exp.toml"
    f.write_text("""name = "smite4"
players = 3
lineup = ["greedy", "quester", "balanced"]
games = 900
seed = 4
batch_size = 300
[patch."Tyr's Smite"]
value = 4
""")
    out = tmp_path / "s"
    res = runner.invoke(app, ["study", str(f), "--out", str(out)])
    assert res.exit_code == 0, res.output
    meta = json.loads((out / "run.json").read_text())
    assert meta["experiment"] == "smite4" and meta["players"] == 3 and meta["games_done"] == 900
    assert meta["patch_sha256"] and "[patch]" in meta["patch"] and meta["keep_rows"] is False
    assert not (out / "clans.parquet").exists()  # bounded memory: no rows unless --keep-rows
    assert (out / "report" / "report.html").is_file() and (out / "report" / "card_forest.png").is_file()
    full = Stats.load(out)
    # a study stopped after its first batch continues where it stopped, to the same statistics
    short = tmp_path / "short"
    short.mkdir()
    (short / "run.json").write_text((out / "run.json").read_text())
    _truncate_to_first_batch(short, f)
    res = runner.invoke(app, ["study", str(f), "--out", str(short), "--resume", "--no-report"])
    assert res.exit_code == 0, res.output
    assert Stats.load(short).equals(full)
    meta = json.loads((short / "run.json").read_text())
    assert meta["games_done"] == 900 and meta["status"] == "complete" and meta["resumed"]
    # resuming with another experiment is refused, naming the setting
    _one_line_error(runner.invoke(app, ["study", str(f), "--out", str(short), "--resume", "--seed", "5"]),
                    "--resume", "'seed'")
    # resuming a complete study plays nothing and leaves its run.json as it was (no new finish time)
    before = (out / "run.json").read_bytes()
    res = runner.invoke(app, ["study", str(f), "--out", str(out), "--resume", "--no-report"])
    assert res.exit_code == 0 and "900 games (complete)" in res.output, res.output
    assert (out / "run.json").read_bytes() == before


def _truncate_to_first_batch(out, exp_file):
    """Rewrite OUT as if the study had stopped after its first batch (300 games)."""
    from volva.analysis.experiment import load_experiment
    from volva.analysis.runner import play_batch_frames
    from volva.analysis.suffstats import checkpoints
    from volva.simulator.engines import load_ruleset
    from volva.strategies.builtin import resolve
    exp = load_experiment(exp_file)
    rs = load_ruleset(patch=[(exp_file, exp.inline_patch)])
    fr = play_batch_frames(rs, exp.lineup, [resolve(n) for n in exp.lineup], exp.seed, 0, 300, True,
                           checkpoints(exp.games))
    fr.stats.save(out)
    meta = json.loads((out / "run.json").read_text())
    meta.update(games_done=300, status="interrupted")
    (out / "run.json").write_text(json.dumps(meta))


def _two_player_study(tmp_path, games: int):
    """An experiment file: greedy against random, ``games`` games in batches of 10."""
    f = tmp_path / "e.toml"
    f.write_text(f'players = 2\nlineup = "greedy,random"\ngames = {games}\nbatch_size = 10\n')
    return f


def test_study_interrupted_keeps_finished_batches(tmp_path, monkeypatch):
    """Ctrl-C after the first batch: exit 130, stats/ and run.json hold that batch, --resume works."""
    from conftest import make_batch

    import volva.simulator.engines as engines
    calls = []

    def flaky(ruleset, lineup, seeds, check=False):
        if len(calls) >= 2:  # rotation period 2 (greedy,random): two kernel calls per batch
            raise KeyboardInterrupt
        calls.append(1)
        return make_batch(len(seeds), len(lineup), seed=len(calls))

    monkeypatch.setattr(engines, "play_batch", flaky)
    f = _two_player_study(tmp_path, 40)
    out = tmp_path / "s"
    res = runner.invoke(app, ["study", str(f), "--out", str(out)])
    assert res.exit_code == 130
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "interrupted" and meta["games_done"] == 10
    assert Stats.load(out).games == 10 and not (out / "report").exists()
    res = runner.invoke(app, ["study", str(f), "--out", str(out)])
    _one_line_error(res, "already holds results")


def test_first_signal_finishes_the_batch_second_stops_now(tmp_path, monkeypatch):
    """SIGINT once: the batch being played is finished and written, then the run stops (exit
    130, status interrupted); the stats folder is replaced whole, never half-written."""
    import os
    import signal

    from conftest import make_batch

    import volva.simulator.engines as engines
    calls = []

    def playing(ruleset, lineup, seeds, check=False):
        calls.append(1)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # arrives in the middle of batch 1
        return make_batch(len(seeds), len(lineup), seed=len(calls))

    monkeypatch.setattr(engines, "play_batch", playing)
    out = tmp_path / "s"
    res = runner.invoke(app, ["run", "--players", "2", "--lineup", "greedy,random", "--games", "40",
                              "--batch-size", "10", "--out", str(out), "--no-keep-rows"])
    assert res.exit_code == 130
    assert "stopping after the current batch" in res.stderr
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "interrupted" and meta["games_done"] == 10
    assert Stats.load(out).games == 10 and sorted(p.name for p in out.iterdir()) == ["run.json", "stats"]


def _saves_of(tmp_path, monkeypatch, every: str, out: str, *extra) -> list[int]:
    """Run 4 batches (fake engine) with VOLVA_SAVE_EVERY_S=every; the games in stats/ at each save."""
    from volva.analysis.suffstats import Stats as St
    monkeypatch.setenv("VOLVA_SAVE_EVERY_S", every)
    saves = []
    real = St.save
    monkeypatch.setattr(St, "save", lambda self, d, *key: (saves.append(self.games), real(self, d, *key)))
    res = runner.invoke(app, ["run", "--players", "2", "--lineup", "greedy,random", "--games", "40", "--batch-size",
                              "10", "--no-keep-rows", "--out", str(tmp_path / out), *extra])
    assert res.exit_code == 0, res.output
    return saves


def test_stats_saved_at_most_every_few_seconds_with_the_same_sums(tmp_path, monkeypatch, fake_play_batch):
    """runner.RunWriter: VOLVA_SAVE_EVERY_S=0 saves stats/ after every batch; the default (5 s) saves
    a fast run once, at its end, adding the four batches in one step, to the same sums (files and
    tables) and the same run.json games_done."""
    assert _saves_of(tmp_path, monkeypatch, "0", "each") == [10, 20, 30, 40]
    assert _saves_of(tmp_path, monkeypatch, "", "end") == [40]
    a, b = Stats.load(tmp_path / "each"), Stats.load(tmp_path / "end")
    assert a.games == b.games == 40 and a.equals(b) and not a.tables["draft"].empty
    sha = [json.loads((tmp_path / d / "stats" / "meta.json").read_text())["sha256"] for d in ("each", "end")]
    assert sha[0] == sha[1]
    assert [json.loads((tmp_path / d / "run.json").read_text())["games_done"] for d in ("each", "end")] == [40, 40]


def test_compare_saves_both_arms_and_the_paired_sums_together(tmp_path, monkeypatch, fake_play_batch):
    """A compare's arms and paired.parquet are saved at the same moments (here: once, at the end) and
    hold the same games as with a save after every batch."""
    monkeypatch.setenv("VOLVA_SAVE_EVERY_S", "0")
    args = ["compare", "--players", "2", "--lineup", "greedy,random", "--games", "40", "--batch-size", "10",
            "--variant-option", "tie_break=shared"]
    assert runner.invoke(app, args + ["--out", str(tmp_path / "each")]).exit_code == 0
    monkeypatch.setenv("VOLVA_SAVE_EVERY_S", "3600")
    assert runner.invoke(app, args + ["--out", str(tmp_path / "end")]).exit_code == 0
    for arm in ("baseline", "variant"):
        assert Stats.load(tmp_path / "each" / arm).equals(Stats.load(tmp_path / "end" / arm))
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "each" / "paired.parquet"),
                                  pd.read_parquet(tmp_path / "end" / "paired.parquet"))


@pytest.mark.parametrize("bad", ["soon", "-1", "nan", "inf"])
def test_bad_save_interval_is_one_line_and_writes_nothing(tmp_path, monkeypatch, fake_play_batch, bad):
    monkeypatch.setenv("VOLVA_SAVE_EVERY_S", bad)
    res = runner.invoke(app, ["run", "--players", "2", "--games", "10", "--out", str(tmp_path / "o")])
    _one_line_error(res, "VOLVA_SAVE_EVERY_S", "allowed: a finite number of seconds >= 0")
    assert fake_play_batch == [] and not (tmp_path / "o").exists()


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_second_signal_during_a_save_counts_no_batch_twice(tmp_path, monkeypatch, fake_play_batch, when):
    """Ctrl-C twice, the second landing in the middle of a save of stats/ (before or after the
    files are written): the save on the way out counts each finished batch once, run.json agrees
    with stats/, and --resume gives the sums of an uninterrupted run (helper's report, stop 33)."""
    from volva.analysis.suffstats import Stats as St
    monkeypatch.setenv("VOLVA_SAVE_EVERY_S", "0")
    real, calls = St.save, []

    def interrupted(self, d, *key):
        calls.append(self.games)
        if len(calls) == 3 and when == "before":
            raise KeyboardInterrupt
        real(self, d, *key)
        if len(calls) == 3 and when == "after":
            raise KeyboardInterrupt
    monkeypatch.setattr(St, "save", interrupted)
    args = ["run", "--players", "2", "--lineup", "greedy,random", "--games", "60", "--batch-size", "10",
            "--no-keep-rows"]
    res = runner.invoke(app, args + ["--out", str(tmp_path / "x")])
    assert res.exit_code == 130
    st = Stats.load(tmp_path / "x")
    meta = json.loads((tmp_path / "x" / "run.json").read_text())
    assert st.games == meta["games_done"] == 30 and st.tables["clans"]["n"].sum() == 60
    monkeypatch.setattr(St, "save", real)
    assert runner.invoke(app, args + ["--out", str(tmp_path / "x"), "--resume"]).exit_code == 0
    assert runner.invoke(app, args + ["--out", str(tmp_path / "whole")]).exit_code == 0
    assert Stats.load(tmp_path / "x").equals(Stats.load(tmp_path / "whole"))


def test_a_compare_stopped_between_its_arms_saves_both_at_the_same_games(tmp_path, monkeypatch, fake_play_batch):
    """A second signal after arm A took a batch and before arm B did: both arms and paired.parquet
    are saved at the batches both hold."""
    from volva.analysis.runner import RunWriter
    monkeypatch.setenv("VOLVA_SAVE_EVERY_S", "3600")
    real, calls = RunWriter.add, []

    def add(self, fr, n, save=None):
        calls.append(1)
        if len(calls) == 6:  # arm B's third batch: arm A already holds it
            raise KeyboardInterrupt
        return real(self, fr, n, save)
    monkeypatch.setattr(RunWriter, "add", add)
    res = runner.invoke(app, ["compare", "--players", "2", "--lineup", "greedy,random", "--games", "60", "--batch-size",
                              "10", "--variant-option", "tie_break=shared", "--out", str(tmp_path / "c")])
    assert res.exit_code == 130
    done = [json.loads((tmp_path / "c" / arm / "run.json").read_text())["games_done"] for arm in ("baseline", "variant")]
    games = [Stats.load(tmp_path / "c" / arm).games for arm in ("baseline", "variant")]
    paired = pd.read_parquet(tmp_path / "c" / "paired.parquet")
    from volva.analysis.paired import strategy_rows
    assert done == games == [20, 20]
    assert int(strategy_rows(paired).set_index("strategy").loc["greedy", "n"]) == 20  # one greedy clan a game


def _stop_after(monkeypatch, calls: int):
    """Save after every batch, and let the engine's kernel run ``calls`` times, then raise
    KeyboardInterrupt (a Ctrl-C mid-run); returns (the real play_batch, a reset() that lets it
    run ``calls`` times again)."""
    monkeypatch.setenv("VOLVA_SAVE_EVERY_S", "0")
    import volva.simulator.engines as engines
    real = engines.play_batch
    n = [0]

    def flaky(ruleset, lineup, seeds, check=False):
        n[0] += 1
        if n[0] > calls:
            raise KeyboardInterrupt
        return real(ruleset, lineup, seeds, check)
    monkeypatch.setattr(engines, "play_batch", flaky)
    return real, lambda: n.__setitem__(0, 0)


@pytest.mark.parametrize("games", [25000, 35])
def test_resume_refuses_stats_whose_game_count_was_edited(tmp_path, monkeypatch, fake_play_batch, games):
    """stats/meta.json's 'games' must be what its tables hold (and no more than the run's games):
    an edited count would skip or repeat games on --resume (helper's report, stop 33)."""
    args = ["run", "--players", "2", "--lineup", "greedy,random", "--games", "60", "--batch-size", "10",
            "--no-keep-rows", "--out", str(tmp_path / "x")]
    _stop_after(monkeypatch, 8)
    assert runner.invoke(app, args).exit_code == 130
    mp = tmp_path / "x" / "stats" / "meta.json"
    meta = json.loads(mp.read_text())
    assert meta["games"] == 40
    meta["games"] = games
    mp.write_text(json.dumps(meta))
    res = runner.invoke(app, args + ["--resume"])
    _one_line_error(res, "--resume", "meta.json", f"'games' is {games:,}")


def test_stats_moved_from_another_experiment_are_refused(tmp_path, monkeypatch, fake_play_batch):
    """A whole stats/ folder copied from another experiment (another seed) passed every per-table
    check: --resume continued it under this run's run.json and the report printed its tables under
    this run's header (a helper session). stats/meta.json keeps the experiment's settings key."""
    import shutil

    import volva.simulator.engines as engines
    real, reset = _stop_after(monkeypatch, 4)
    base = ["run", "--players", "2", "--lineup", "greedy,random", "--games", "60", "--batch-size", "10",
            "--no-keep-rows"]
    for d, seed in (("a", "1"), ("b", "2")):
        reset()
        assert runner.invoke(app, base + ["--seed", seed, "--out", str(tmp_path / d)]).exit_code == 130
    shutil.rmtree(tmp_path / "a" / "stats")
    shutil.copytree(tmp_path / "b" / "stats", tmp_path / "a" / "stats")
    monkeypatch.setattr(engines, "play_batch", real)
    res = runner.invoke(app, base + ["--seed", "1", "--out", str(tmp_path / "a"), "--resume"])
    _one_line_error(res, "meta.json", "another experiment", "run.json")
    res = runner.invoke(app, ["report", str(tmp_path / "a"), "--out", str(tmp_path / "rep")])
    _one_line_error(res, "meta.json", "another experiment")
    res = runner.invoke(app, base + ["--seed", "2", "--out", str(tmp_path / "b"), "--resume"])
    assert res.exit_code == 0, res.output  # its own sums resume


def test_a_run_json_missing_a_setting_is_named_not_called_another_experiment(tmp_path):
    """A run.json whose 'lineup' was cut made the report call the run's own sums 'the sums of
    another experiment' (a helper session): the missing field is named."""
    out = tmp_path / "a"
    assert runner.invoke(app, ["run", "--players", "2", "--games", "4", "--no-keep-rows",
                               "--out", str(out)]).exit_code == 0
    meta = json.loads((out / "run.json").read_text())
    del meta["lineup"]
    (out / "run.json").write_text(json.dumps(meta))
    res = runner.invoke(app, ["report", str(out), "--out", str(tmp_path / "rep")])
    _one_line_error(res, "run.json: field 'lineup' missing")
    assert "another experiment" not in res.stderr


def test_ctrl_c_while_study_writes_its_report_says_so(tmp_path, monkeypatch, fake_play_batch):
    """The games are all played and saved; only the report is unfinished: exit 130 and a line
    saying how to write it (helper's report, stop 33)."""
    import volva.reports.report as report

    def interrupted(run_dir, out):
        raise KeyboardInterrupt
    monkeypatch.setattr(report, "build_report", interrupted)
    f = _two_player_study(tmp_path, 20)
    out = tmp_path / "s"
    res = runner.invoke(app, ["study", str(f), "--out", str(out)])
    assert res.exit_code == 130
    assert "interrupted while writing the report" in res.stderr and f"volva report {out} --out" in res.stderr
    assert json.loads((out / "run.json").read_text())["status"] == "complete" and Stats.load(out).games == 20


def test_compare_console_shows_a_dash_for_the_baseline_of_an_added_card():
    """A card only the variant's decks hold has no baseline draft rate or ATA (NaN in
    compare_card_value.csv): the console shows '—', not 'nan%' (found by a helper session)."""
    from rich.console import Console

    from volva.reports.console import compare_tables_rich
    row = {"strategy": "greedy", "age": 2, "card": "Fenrir's Bite", "holders": 1856, "draft_rate_a": float("nan"),
           "draft_rate_b": 0.232, "ata_a": float("nan"), "ata_b": 3.58, "d_value": 0.0513, "ci_low": 0.0248,
           "ci_high": 0.0777, "p_adj": 0.0025, "significant": True, "tested": True, "holders_both": 0}
    con = Console(width=250, record=True)
    for t in compare_tables_rich({"strategy": pd.DataFrame(columns=["strategy"]), "card_value": pd.DataFrame([row])},
                                 8000, 10):
        con.print(t)
    text = con.export_text()
    assert "Fenrir's Bite" in text and "23.2%" in text and "3.58" in text and "—" in text
    assert "nan" not in text.lower().replace("fenrir", "")



def test_compare_console_warns_when_a_flagged_cards_holders_mostly_differ_between_arms():
    """A nerfed card showed as worth more to its holders (+0.09, flagged) while its Δ IWD fell
    (-0.09): only 280 of 1,884 variant holders held it in both arms (a helper session). The
    table shows the share held in both and says what a low one means on a flagged row."""
    from rich.console import Console

    from volva.reports.console import compare_tables_rich
    row = {"strategy": "greedy", "age": 1, "card": "Tyr's Smite", "holders": 1884, "holders_both": 280,
           "draft_rate_a": 0.9, "draft_rate_b": 0.8, "ata_a": 1.33, "ata_b": 3.05, "d_value": 0.0922,
           "ci_low": 0.0586, "ci_high": 0.1259, "p_adj": 6.1e-6, "significant": True, "tested": True}

    def text(r):
        con = Console(width=300, record=True)
        for t in compare_tables_rich({"strategy": pd.DataFrame(columns=["strategy"]),
                                      "card_value": pd.DataFrame([r])}, 8000, 10):
            con.print(t)
        return con.export_text()
    out = text(row)
    assert "held in both" in out and "15%" in out and "reads who drafts the card" in out
    assert "reads who drafts the card" not in text(dict(row, holders_both=1500))  # 80%: no note
    assert "reads who drafts the card" not in text(dict(row, significant=False))  # not flagged: no note


@pytest.mark.parametrize("argv, needles", [
    (["ablate", "Widespread", "--games", "200"], ["'Widespread' is not dealt at 4 players", "copies_"]),
    (["ablate", "Tyr's Smite", "--age", "2", "--players", "2", "--games", "200"], ["not dealt at 2 players", "ages [2]"]),
    (["compare", "--patch", "PATCH", "--top", "-1", "--games", "10"], None),
])
def test_helper_session_refusals(tmp_path, argv, needles):
    """From a new-user session: ablating a card that is not in the deck at this player count played
    the whole budget for 'n 0' (refused now, like a card with no copy in the ages asked), and
    compare --top -1 printed every row (a Python slice)."""
    patch = tmp_path / "p.toml"
    patch.write_text('"Tyr\'s Smite".value = 4\n')
    res = runner.invoke(app, [str(patch) if a == "PATCH" else a for a in argv] + ["--out", str(tmp_path / "o")])
    if needles is None:  # a command-line range: click's usage error (cli.main prints it on one line)
        assert res.exit_code == 2 and "Invalid value for '--top'" in res.output, res.output
    else:
        _one_line_error(res, *needles)
    assert not (tmp_path / "o" / "ablate.csv").exists()


def test_force_removes_what_another_kind_of_run_left(tmp_path):
    """--force replaces earlier results of any command: a compare's paired_cards.parquet did not go
    when an ablate replaced it (a new-user session)."""
    patch = tmp_path / "p.toml"
    patch.write_text('"Tyr\'s Smite".value = 4\n')
    out = tmp_path / "o"
    res = runner.invoke(app, ["compare", "--patch", str(patch), "--games", "200", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "paired_cards.parquet").exists()
    res = runner.invoke(app, ["ablate", "Tyr's Smite", "--games", "200", "--out", str(out), "--force"])
    assert res.exit_code == 0, res.output
    assert (out / "ablate.csv").exists() and not (out / "paired_cards.parquet").exists()
    assert not list(out.glob("compare_*.csv")) and not (out / "baseline").exists()


def test_an_at_lineup_file_in_an_experiment_file_is_read_relative_to_it(tmp_path, monkeypatch):
    """lineup = ["@sub/lineup.txt"] was read relative to the working directory while a strategy
    file in the same list was read relative to the experiment file (a helper session)."""
    from volva.analysis.experiment import load_experiment
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "lineup.txt").write_text("greedy\nquester  # a comment\nbalanced, thor-warlord\n")
    f = tmp_path / "exp.toml"
    f.write_text('players = 4\nlineup = ["@sub/lineup.txt"]\ngames = 20\n')
    monkeypatch.chdir(tmp_path.parent)  # another directory
    from volva.strategies.builtin import parse_lineup
    lineup = load_experiment(f).lineup
    assert lineup == [f"@{tmp_path / 'sub' / 'lineup.txt'}"]
    assert parse_lineup(",".join(lineup), 4) == ["greedy", "quester", "balanced", "thor-warlord"]


def test_resume_of_a_study_whose_file_keeps_rows_names_the_file(tmp_path):
    """keep_rows = true in the experiment file, then --resume, said 'drop --keep-rows', a flag
    never given (a helper session): the message names the file's setting."""
    f = tmp_path / "kr.toml"
    f.write_text("players = 4\ngames = 20\nkeep_rows = true\n")
    res = runner.invoke(app, ["study", str(f), "--out", str(tmp_path / "o"), "--resume", "--no-report"])
    _one_line_error(res, "kr.toml sets keep_rows = true")
    res = runner.invoke(app, ["study", str(f), "--out", str(tmp_path / "o"), "--resume", "--keep-rows"])
    _one_line_error(res, "drop --keep-rows")


def test_experiment_file_errors_name_its_keys_not_flags(tmp_path):
    """A bad sweep or mode in an experiment file was reported as '--sweep ...' / '--mode ...',
    flags never given (a helper session); a flag given over the file keeps its flag name."""
    f = tmp_path / "sw.toml"
    f.write_text("ruleset = 'valhalla'\nplayers = 4\nsweep = 'godsets'\ngames = 10\n")
    res = runner.invoke(app, ["study", str(f), "--out", str(tmp_path / "o"), "--no-report"])
    _one_line_error(res, "sw.toml: sweep 'godsets'; allowed")
    assert "--sweep" not in res.stderr
    res = runner.invoke(app, ["study", str(f), "--sweep", "godz", "--out", str(tmp_path / "o"), "--no-report"])
    _one_line_error(res, "--sweep 'godz'; allowed")


def test_resume_without_stats_says_it_starts_again(tmp_path, monkeypatch, fake_play_batch):
    """--resume after stats/ was deleted restarted from game 0 without a word (a helper session):
    a warning says so; the result is the uninterrupted run's."""
    import shutil

    import volva.simulator.engines as engines
    real, _ = _stop_after(monkeypatch, 4)
    args = ["run", "--players", "2", "--lineup", "greedy,random", "--games", "60", "--batch-size", "10",
            "--no-keep-rows", "--out", str(tmp_path / "a")]
    assert runner.invoke(app, args).exit_code == 130
    shutil.rmtree(tmp_path / "a" / "stats")
    monkeypatch.setattr(engines, "play_batch", real)
    res = runner.invoke(app, args + ["--resume"])
    assert res.exit_code == 0 and "starts again from game 0" in res.stderr, res.output




def test_same_tables_tells_a_patch_that_changes_nothing(tmp_path):
    """session.same_tables: a patch setting a card's own value changes nothing a game reads (compare
    then warns: a helper session ran identical arms with no word of it); a real nerf does."""
    from volva.analysis.session import same_tables
    from volva.simulator.engines import load_ruleset
    noop, nerf = tmp_path / "noop.toml", tmp_path / "nerf.toml"
    noop.write_text("[\"Tyr's Smite\"]\nvalue = 5\n")
    nerf.write_text("[\"Tyr's Smite\"]\nvalue = 4\n")
    assert same_tables(load_ruleset(), load_ruleset(patch=[noop]))
    assert not same_tables(load_ruleset(), load_ruleset(patch=[nerf]))
    assert not same_tables(load_ruleset(), load_ruleset("valhalla"))


def test_compare_console_says_a_mirror_lineups_win_rate_cannot_move():
    """compare's default lineup is greedy in every seat: its strategy row is '+0.0000 fixed' with no
    word why (a helper session); the table says so, and not for a lineup of several strategies."""
    from rich.console import Console

    from volva.reports.console import compare_tables_rich
    row = {"strategy": "greedy", "n": 32, "d_win": 0.0, "ci_low": 0.0, "ci_high": 0.0, "fixed": True,
           "p_value": float("nan"), "d_glory": -0.28, "glory_ci_low": -9.5, "glory_ci_high": 9.0}

    def text(rows):
        con = Console(width=250, record=True)
        for t in compare_tables_rich({"strategy": pd.DataFrame(rows)}, 8, 10):
            con.print(t)
        return con.export_text()
    assert "greedy in every seat: its win rate cannot move" in text([row])
    assert "cannot move" not in text([row, dict(row, strategy="balanced")])
