"""`volva tune` (analysis/tune.py, strategies/space.py): the fitness, the knobs, and small tuning
runs of both rule sets that write a strategy file any other command reads back."""
from __future__ import annotations

import tomllib

import numpy as np
import pytest

from volva.analysis.tune import League, fitness, soft_min, start_points, tune, win_share, write_outputs
from volva.strategies.space import Knob, get_in, set_in, space_for


def test_win_share_splits_ties():
    rank = np.array([[1, 2, 3, 4], [1, 1, 3, 3], [2, 1, 3, 4]], np.int8)
    np.testing.assert_allclose(win_share(rank), [[1, 0, 0, 0], [0.5, 0.5, 0, 0], [0, 1, 0, 0]])


def test_soft_min_weights_the_worst_opponent():
    assert soft_min([1.2, 1.2, 1.2]) == pytest.approx(1.2)
    s = [2.0, 2.0, 0.4]
    assert min(s) < soft_min(s) < np.mean(s) and soft_min(s) < 0.4 + 0.25
    # farming the weakest opponent does not pay: +1 against one, -0.3 against another lowers it
    assert soft_min([2.0, 1.0, 0.7]) < soft_min([1.0, 1.0, 1.0])
    assert fitness(np.array([[0.25, 0.25], [0.25, 0.25]]), 4) == pytest.approx(1.0)


def test_knob_neighbours_stay_in_range():
    assert Knob("a", 0.0, 5.0).neighbours(5.0) == [4.5]
    assert Knob("b", 0, 6, "int").neighbours(3) == [2, 4]
    assert Knob("c", kind="bool").neighbours(True) == [False]
    assert Knob("d", kind="choice", choices=(["x"], ["y"], ["z"])).neighbours(["y"]) == [["x"], ["z"]]
    doc = set_in({"play": {"doom": 1.0}}, "draft.gods.thor", 2.0)
    assert get_in(doc, "draft.gods.thor") == 2.0 and get_in(doc, "play.doom") == 1.0


@pytest.mark.parametrize("engine", ["blood-rage", "valhalla"])
def test_start_document_compiles_to_greedy(engine):
    """The search starts from exactly the greedy strategy of each engine."""
    from volva.simulator.engines import load_ruleset
    from volva.strategies.lineup import resolve_for
    sp = space_for(engine)
    kind, params = sp.compile(sp.start, list(load_ruleset(engine).card_names))
    gk, gp = resolve_for(engine)("greedy")
    assert kind == gk and np.array_equal(params, gp)
    assert len(start_points(sp, [sp.start])) == 1  # the same point is enqueued once


@pytest.mark.slow
def test_a_small_tuning_run_writes_a_strategy_file_that_loads(tmp_path):
    from volva.simulator.engines import load_ruleset
    from volva.strategies.builtin import resolve
    from volva.strategies.spec import load_strategy
    rs = load_ruleset()
    lg = League(["greedy", "balanced"], [resolve("greedy"), resolve("balanced")])
    kw = dict(trials=5, blocks=2, fresh_blocks=6, seed=5, name="tuned-test")
    a = tune(rs, space_for("blood-rage"), lg, tmp_path / "a", **kw)
    b = tune(rs, space_for("blood-rage"), lg, tmp_path / "b", **kw)
    assert {k: v for k, v in a.doc.items() if k != "provenance"} == \
        {k: v for k, v in b.doc.items() if k != "provenance"}  # a tuning run is a function of its seed
    assert len(a.trials) == 5 and a.deviations and all(np.isfinite(d["delta"]) for d in a.deviations)
    import optuna  # the journal (synced once per trial, analysis.tune._journal_backend) reads as Optuna's own
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    plain = optuna.load_study(study_name="tuned-test",
                              storage=JournalStorage(JournalFileBackend(str(tmp_path / "a" / "tune.journal"))))
    assert [t.value for t in plain.trials] == [t["fitness"] for t in a.trials]
    paths = write_outputs(a, tmp_path / "a", "tuned-test")
    s = load_strategy(paths[0], list(rs.card_names))
    assert s.name == "tuned-test"
    prov = tomllib.loads(paths[0].read_text())["provenance"]
    assert prov["league"] == ["greedy", "balanced"] and prov["tuning_games"] == 5 * 2 * 4 * 2
    assert prov["one_step_deviation_check"] in ("pass", "fail") and prov["versions"]["optuna"]
    with pytest.raises(ValueError, match="--resume"):
        tune(rs, space_for("blood-rage"), lg, tmp_path / "a", **kw)
    more = tune(rs, space_for("blood-rage"), lg, tmp_path / "a", **dict(kw, trials=7), resume=True,
                check_deviations=False)
    assert len(more.trials) == 7  # the journal kept the first five
    other = League(["greedy"], [resolve("greedy")])
    with pytest.raises(ValueError, match="'league' was \\['greedy', 'balanced'\\], now \\['greedy'\\]"):
        tune(rs, space_for("blood-rage"), other, tmp_path / "a", **kw, resume=True)


@pytest.mark.slow
def test_valhalla_tuning_runs(tmp_path):
    from volva.simulator.engines import load_ruleset
    from volva.strategies.valhalla import resolve
    rs = load_ruleset("valhalla")
    lg = League(["greedy", "loki"], [resolve("greedy"), resolve("loki")])
    res = tune(rs, space_for("valhalla"), lg, tmp_path, trials=3, blocks=2, fresh_blocks=4, seed=2, name="tv",
               check_deviations=False)
    from volva.strategies.valhalla import parse_strategy_doc
    kind, params = parse_strategy_doc(res.doc, "tv", list(rs.card_names))
    assert params.shape == resolve("greedy")[1].shape and res.fresh[0]["opponent"] == "greedy"


@pytest.mark.slow
def test_refine_polishes_a_file_and_keeps_its_provenance(tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    from volva.strategies.lineup import strategy_file
    src = strategy_file("blood-rage", "tuned-4p")
    res = CliRunner().invoke(app, ["tune", "--out", str(tmp_path / "r"), "--refine", "tuned-4p", "--league",
                                   "greedy,balanced", "--polish-rounds", "1", "--polish-blocks", "2",
                                   "--check-blocks", "3", "--seed", "4", "--name", "again"])
    assert res.exit_code == 0, res.output
    doc = tomllib.loads((tmp_path / "r" / "again.toml").read_text())
    prov = doc["provenance"]
    assert doc["name"] == "again" and prov["refined"] and prov["seed"] == 4
    assert prov["refined_from"] == tomllib.loads(src.read_text())["provenance"]  # the history is kept
    assert prov["deviations_checked"] > 0 and prov["fresh_seed_blocks"] == 3
    line = next(x for x in res.output.splitlines() if "one-step-deviation check" in x)
    assert f"({prov['deviations_checked']} moves" in line
    assert ("improve" in line and "--refine" in line) == bool(prov["deviations_improving"]), line
    assert not (tmp_path / "r" / "tune_progress.png").exists() and (tmp_path / "r" / "tune_fresh.png").exists()


def test_tune_refuses_bad_input_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    (tmp_path / "d.toml").mkdir()
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "tune.journal").write_text("")
    for args, msg in ((["--league", ""], "empty name"), (["--league", "greedy,greedy"], "named twice"),
                      (["--league", str(tmp_path / "d.toml")], "is a directory"),
                      (["--name", "a b"], "--name"), (["--resume", "--force"], "choose one"),
                      (["--refine", "no-such"], "no such file"), (["--refine", "balanced", "--resume"], "choose one")):
        res = CliRunner().invoke(app, ["tune", "--out", str(tmp_path / "o"), "--trials", "1", *args])
        assert res.exit_code == 2 and msg in res.output, (args, res.output)
    res = CliRunner().invoke(app, ["tune", "--out", str(tmp_path / "s"), "--trials", "1"])
    assert res.exit_code == 2 and "--resume" in res.output and "--force" in res.output
    (tmp_path / "bad.toml").write_text("garbage = [\n")  # a TOML syntax error: not another rule set's file
    res = CliRunner().invoke(app, ["tune", "--out", str(tmp_path / "o"), "--refine", str(tmp_path / "bad.toml")])
    assert res.exit_code == 2 and "not valid TOML" in res.output and "another rule set" not in res.output, res.output


def test_shipped_tuned_strategies_load_with_their_provenance():
    from volva.strategies import valhalla
    from volva.strategies.builtin import resolve
    from volva.strategies.lineup import library, strategy_file
    for engine, res, greedy in (("blood-rage", resolve, resolve("greedy")),
                                ("valhalla", valhalla.resolve, valhalla.resolve("greedy"))):
        f = strategy_file(engine, "tuned-4p")
        assert f is not None and "tuned-4p" in dict(library(engine))
        prov = tomllib.loads(f.read_text())["provenance"]
        assert prov["ruleset"] == engine and prov["players"] == 4 and prov["deviations_checked"] > 0
        kind, params = res("tuned-4p")
        assert kind == greedy[0] and not np.array_equal(params, greedy[1])  # tuned away from greedy


@pytest.mark.slow
def test_refine_fills_the_knobs_a_hand_written_file_leaves_out(tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    (tmp_path / "v.toml").write_text('base = "warlord"\nw_battle = 2.0\n')
    for args in (["--refine", "thor-warlord"], ["--ruleset", "valhalla", "--refine", str(tmp_path / "v.toml"),
                                                "--league", "greedy,thor"]):
        out = tmp_path / args[-1].replace("/", "_")
        res = CliRunner().invoke(app, ["tune", "--out", str(out), *args, "--polish-rounds", "0",
                                       "--check-blocks", "2", *([] if "--league" in args else
                                                                ["--league", "greedy,balanced"])])
        assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["tune", "--out", str(tmp_path / "d"), "--refine", str(tmp_path)])
    assert res.exit_code == 2 and "is a directory" in res.output


def test_strategies_show_and_validate_read_valhalla_files(tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    runner = CliRunner()
    res = runner.invoke(app, ["strategies", "show", "tuned-4p", "--ruleset", "valhalla"])
    assert res.exit_code == 0 and "w_battle" in res.output and "god_bonus.loki" in res.output, res.output
    res = runner.invoke(app, ["strategies", "validate", "strategies/library/valhalla/tuned-4p.toml",
                              "--ruleset", "valhalla"])
    assert res.exit_code == 0 and res.output.strip() == "ok: tuned-4p"
    (tmp_path / "bad.toml").write_text("w_battle = 'lots'\n")
    for args in (["strategies", "validate", str(tmp_path / "bad.toml"), "--ruleset", "valhalla"],
                 ["strategies", "validate", "strategies/library/balanced.toml", "--ruleset", "valhalla"],
                 ["strategies", "show", "nobody", "--ruleset", "valhalla"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and res.output.startswith("error:") and len(res.output.strip().splitlines()) == 1


def test_valhalla_dice_tuning_runs(tmp_path):
    """Issue 12 item 4 with `volva tune`: the dice game's knobs (and Jarl preferences) are searched
    and the result is an ordinary strategy file of its format."""
    from volva.simulator.engines import load_ruleset
    from volva.strategies.valhalla_dice import parse_strategy_doc, resolve
    rs = load_ruleset("valhalla-dice")
    sp = space_for("valhalla-dice")
    assert (sp.compile(sp.start, [])[1] == resolve("jarl-savvy")[1]).all()  # the search starts from jarl-savvy
    assert sp.decompile(sp.compile(sp.start, [])[1]) == {k: v for k, v in sp.start.items() if k != "base"}
    lg = League(["greedy", "turtle"], [resolve("greedy"), resolve("turtle")])
    res = tune(rs, sp, lg, tmp_path, trials=3, blocks=2, fresh_blocks=4, seed=2, name="td", check_deviations=False)
    kind, params = parse_strategy_doc(res.doc, "td")
    assert params.shape == resolve("greedy")[1].shape and res.fresh[0]["opponent"] == "greedy"


def test_evaluator_shares_do_not_depend_on_the_thread_count():
    """A candidate's win shares (Evaluator.shares: every (opponent, rotation) batch shared out
    over the threads at once, engines.play_batches) equal one play_batch per batch in turn, on one
    thread or two, to the last bit."""
    import numba

    from volva.analysis.tune import Evaluator, win_share
    from volva.simulator import engines
    from volva.simulator.core.batch import game_plan, rotated
    from volva.simulator.engines import load_ruleset
    from volva.strategies.builtin import resolve
    rs = load_ruleset()
    lg = League(["greedy", "balanced"], [resolve("greedy"), resolve("balanced")])
    cand, P, B, seed = resolve("thor-warlord"), 4, 6, 11
    ref = np.zeros((2, B))
    for j, opp in enumerate(lg.pols):
        for r, ids, seeds in game_plan(seed, np.arange(B * P), P, True, P):
            b = engines.play_batch(rs, rotated([cand] + [opp] * (P - 1), r), seeds, game_ids=ids, period=P)
            ref[j, ids // P] += win_share(b.rank)[:, r] / P
    old = numba.get_num_threads()
    try:
        got = []
        for t in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(t)
            ev = Evaluator(rs, lg, P, B)
            got.append(ev.shares(cand, seed))
            assert ev.games == 2 * B * P
    finally:
        numba.set_num_threads(old)
    for g in got:
        assert np.array_equal(g, ref)
    assert 0 < ref.mean() < 1


def test_an_interrupted_and_resumed_search_ends_as_an_uninterrupted_one(tmp_path, monkeypatch):
    """Ctrl-C in a trial (a start point's, then a sampled one's): the finished trials stay in the
    journal, the trial cut short counts for nothing and --resume plays it again; each trial's
    sampler is seeded by (seed, trials finished), so the resumed search proposes, finds and
    writes what an uninterrupted one does (a helper session saw a resumed run lose the trial
    and end elsewhere)."""
    from volva.analysis import tune as T
    from volva.simulator.engines import load_ruleset
    from volva.strategies.builtin import resolve
    rs = load_ruleset()
    lg = League(["greedy", "balanced"], [resolve("greedy"), resolve("balanced")])
    docs = [{"draft": {"quest": 4.0}}]  # a second start point besides greedy's
    kw = dict(trials=6, blocks=2, fresh_blocks=4, seed=3, name="t", start_docs=docs, polish_rounds=0,
              check_deviations=False)
    ref = tune(rs, space_for("blood-rage"), lg, tmp_path / "ref", **kw)
    real, calls = T.Evaluator.shares, [0]

    def cut(stop_at):
        def shares(self, pol, seed):
            calls[0] += 1
            if calls[0] == stop_at:
                raise KeyboardInterrupt
            return real(self, pol, seed)
        return shares
    out = tmp_path / "cut"
    for stop_at, resume in ((3, False), (5, True)):  # call 1 compiles; 2.. are trials 0..
        calls[0] = 0
        monkeypatch.setattr(T.Evaluator, "shares", cut(stop_at))
        with pytest.raises(KeyboardInterrupt):
            tune(rs, space_for("blood-rage"), lg, out, **kw, resume=resume)
    monkeypatch.setattr(T.Evaluator, "shares", real)
    res = tune(rs, space_for("blood-rage"), lg, out, **kw, resume=True)
    strip = ("provenance",)
    assert {k: v for k, v in res.doc.items() if k not in strip} == {k: v for k, v in ref.doc.items() if k not in strip}
    assert res.trials == ref.trials and len(res.trials) == 6
    assert res.doc["provenance"]["fitness"] == ref.doc["provenance"]["fitness"]
    assert res.doc["provenance"]["tuning_games"] == ref.doc["provenance"]["tuning_games"]


def test_ctrl_c_in_volva_tune_is_one_line(tmp_path, monkeypatch):
    """Ctrl-C during `volva tune`: one line saying how many trials the journal keeps and that
    --resume continues, exit 130 (it printed Optuna's warning and a traceback); a --resume with
    another setting is refused before the progress bar starts."""
    from typer.testing import CliRunner

    from volva.analysis import tune as T
    from volva.cli import app
    real, calls = T.Evaluator.shares, [0]

    def shares(self, pol, seed):
        calls[0] += 1
        if calls[0] == 4:  # call 1 compiles; the third trial is cut short
            raise KeyboardInterrupt
        return real(self, pol, seed)
    monkeypatch.setattr(T.Evaluator, "shares", shares)
    out = tmp_path / "t"
    args = ["tune", "--out", str(out), "--trials", "5", "--seed-blocks", "2", "--league", "greedy,balanced",
            "--check-blocks", "2", "--polish-rounds", "0"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 130, res.output
    assert "interrupted after 2 of 5 trials" in res.output and "--resume continues" in res.output
    assert "Traceback" not in res.output and "failed" not in res.output
    res = CliRunner().invoke(app, [*args, "--resume", "--seed-blocks", "3"])
    assert res.exit_code == 2 and "'seed_blocks' was 2, now 3" in res.output
    assert res.output.strip().count("\n") == 0, res.output  # the error line alone
    # a damaged journal: the line named, not Optuna's bare JSON error (a helper session)
    journal = out / "tune.journal"
    whole = journal.read_bytes()
    journal.write_bytes(whole[:-40])  # the last record cut short, as a killed run leaves it
    res = CliRunner().invoke(app, [*args, "--resume"])
    n = whole[:-40].count(b"\n") + 1
    assert res.exit_code == 2 and f"tune.journal: line {n} is not an Optuna journal record (cut short" in res.output
    assert res.output.strip().count("\n") == 0, res.output
    journal.write_bytes(b"not json at all\n" + whole)
    res = CliRunner().invoke(app, [*args, "--resume"])
    assert res.exit_code == 2 and "line 1 is not an Optuna journal record (an edited or damaged file)" in res.output
    journal.write_bytes(whole)
    res = CliRunner().invoke(app, [*args, "--resume", "--seed-blocks", "3"])
    assert "'seed_blocks' was 2, now 3" in res.output  # the whole journal reads again



def test_ctrl_c_after_the_search_says_the_polish_and_checks_were_cut(tmp_path, monkeypatch):
    """Cut after every trial finished, `volva tune` said a trial cut short would be played again
    (none was), and --resume's bar showed 0 trials done (a helper session)."""
    from typer.testing import CliRunner

    from volva.analysis import tune as T
    from volva.cli import app

    def cut(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(T, "_polish_and_check", cut)  # the stage after the search
    out = tmp_path / "t"
    args = ["tune", "--out", str(out), "--trials", "2", "--seed-blocks", "2", "--league", "greedy,balanced",
            "--check-blocks", "2", "--polish-rounds", "0"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 130, res.output
    assert "interrupted in the polish and checks, after all 2 trials" in res.output, res.output
    assert "cut short is played again" not in res.output
    calls = []
    from volva.simulator.engines import load_ruleset
    from volva.strategies.builtin import resolve
    lg = League(["greedy", "balanced"], [resolve("greedy"), resolve("balanced")])
    with pytest.raises(KeyboardInterrupt):
        tune(load_ruleset(), space_for("blood-rage"), lg, out, trials=2, blocks=2, fresh_blocks=2, seed=1,
             name="tuned", polish_rounds=0, resume=True, progress=lambda *a: calls.append(a[:2]))
    assert calls == [(2, 2)]  # the bar starts at the trials the journal holds


def test_the_deviation_check_line_names_the_moves_that_improve(tmp_path):
    """'one-step-deviation check: fail (36 moves)' said neither which move improved nor what to do
    (a helper session)."""
    from volva.cli import _deviation_check
    prov = {"one_step_deviation_check": "fail", "deviations_checked": 36,
            "deviations_improving": ["play.call_margin=1.4"]}
    text = _deviation_check(prov, tmp_path / "tuned.toml")
    assert text == (f"one-step-deviation check: fail (36 moves; 1 improves on fresh seeds: play.call_margin=1.4; "
                    f"volva tune --refine {tmp_path / 'tuned.toml'} polishes further)")
    assert _deviation_check(dict(prov, one_step_deviation_check="pass", deviations_improving=[]), tmp_path) == \
        "one-step-deviation check: pass (36 moves)"
