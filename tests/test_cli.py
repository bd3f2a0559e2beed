"""The volva CLI: one-line errors with exit code 2, output files, end-to-end runs."""
from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from volva.analysis.records import CLANS_COLUMNS, PICKS_COLUMNS
from volva.cli import UsageError, app, parse_option
from volva.simulator.core import enums as E

runner = CliRunner()


def _assert_one_line_error(res, *needles):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output
    for n in needles:
        assert n in lines[0]


def _run(tmp_path, *extra, out=None):
    return runner.invoke(app, ["run", "--players", "2", "--games", "5", "--out", str(out or tmp_path / "o"), *extra])


# --- error paths (no game may be played) ---------------------------------------

def test_unknown_strategy(tmp_path, fake_play_batch):
    res = _run(tmp_path, "--lineup", "greedy,bogus")
    _assert_one_line_error(res, "bogus", "greedy, random")
    assert fake_play_batch == []


@pytest.mark.parametrize("n", ["6", "1", "0"])
def test_players_out_of_range(tmp_path, fake_play_batch, n):
    res = runner.invoke(app, ["run", "--players", n, "--games", "5", "--out", str(tmp_path / "o")])
    _assert_one_line_error(res, "--players", "2..5")
    assert fake_play_batch == []


@pytest.mark.parametrize("lineup, needles", [("nobody", ["unknown strategy 'nobody'"]),  # not a count error
                                              ("greedy", ["names 1 strategy but", "4"])])
def test_short_lineup_of_one_name(tmp_path, fake_play_batch, lineup, needles):
    res = runner.invoke(app, ["run", "--players", "4", "--lineup", lineup, "--games", "5", "--out", str(tmp_path / "o")])
    _assert_one_line_error(res, *needles)
    assert fake_play_batch == []


def test_lineup_length_mismatch(tmp_path, fake_play_batch):
    res = runner.invoke(app, ["run", "--players", "4", "--lineup", "greedy,random", "--games", "5",
                              "--out", str(tmp_path / "o")])
    _assert_one_line_error(res, "2 strategies", "4")
    assert fake_play_batch == []


def test_out_under_a_regular_file(tmp_path, fake_play_batch):
    f = tmp_path / "file"
    f.write_text("x")
    _assert_one_line_error(_run(tmp_path, out=f / "sub"), "--out")
    _assert_one_line_error(_run(tmp_path, out=f), "--out", "not a directory")
    assert fake_play_batch == []


@pytest.mark.parametrize("opt, needle", [
    ("tie_break", "key=value"),
    ("no_such_option=1", "no_such_option"),
    ("tie_break=coinflip", "coinflip"),
    ("leader_invade_cost=9", "leader_invade_cost"),
    ("draft=maybe", "draft"),
])
def test_bad_option(tmp_path, fake_play_batch, opt, needle):
    _assert_one_line_error(_run(tmp_path, "--option", opt), needle)
    assert fake_play_batch == []
    assert not (tmp_path / "o" / "run.json").exists()


def test_bad_games_and_batch_size(tmp_path, fake_play_batch):
    _assert_one_line_error(runner.invoke(app, ["run", "--games", "0", "--out", str(tmp_path)]), "--games")
    _assert_one_line_error(runner.invoke(app, ["run", "--batch-size", "0", "--out", str(tmp_path)]), "--batch-size")


def test_replay_errors_are_one_line():
    _assert_one_line_error(runner.invoke(app, ["replay", "--seed", "1", "--players", "7"]), "--players")
    _assert_one_line_error(runner.invoke(app, ["replay", "--seed", "1", "--players", "2", "--lineup", "x,y"]), "'x'")


def test_parse_option_types():
    assert parse_option("leader_invade_cost=2") == ("leader_invade_cost", 2)
    assert parse_option("draft=False") == ("draft", False)
    assert parse_option("tie_break = shared") == ("tie_break", "shared")
    with pytest.raises(UsageError):
        parse_option("=3")


def test_version():
    res = runner.invoke(app, ["version"])
    assert res.exit_code == 0 and res.stdout.startswith("volva ")


def test_version_option_is_the_version_command():
    """volva --version (eager: no command needed) prints what volva version prints, exit 0."""
    opt, cmd = runner.invoke(app, ["--version"]), runner.invoke(app, ["version"])
    assert opt.exit_code == 0 and cmd.exit_code == 0
    assert opt.stdout == cmd.stdout and opt.stdout.startswith("volva ")


def test_shell_completion_is_enabled(monkeypatch):
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    assert "--install-completion" in res.stdout and "--show-completion" in res.stdout
    # name the shell (typer's switch for tests) rather than detect the one that started pytest
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    res = runner.invoke(app, ["--show-completion", "bash"], prog_name="volva")
    assert res.exit_code == 0 and "complete" in res.stdout and "_VOLVA_COMPLETE" in res.stdout


def test_shared_players_option_gives_one_error(tmp_path, fake_play_batch):
    """--players is declared once (cli.Players / PlayersOverride, one check): every command that
    takes it refuses 9 with the same one-line error, before anything is played or written."""
    errors = set()
    for args in (["run", "--out", str(tmp_path / "r")], ["study", "--out", str(tmp_path / "s")],
                 ["tournament", "--strategies", "greedy,random"], ["replay"],
                 ["compare", "--patch", "p.toml", "--out", str(tmp_path / "c")]):
        res = runner.invoke(app, [*args, "--players", "9"])
        _assert_one_line_error(res, "--players 9", "allowed: 2..6")
        errors.add(res.stderr)
    assert len(errors) == 1 and fake_play_batch == [] and not list(tmp_path.iterdir())


@pytest.mark.parametrize("flag, value", [("--seed", "-1"), ("--games", "0"), ("--batch-size", "0"),
                                         ("--batch-size", "1000001")])  # a batch is held in memory
def test_shared_range_checks_are_the_same_everywhere(tmp_path, fake_play_batch, flag, value):
    errors = set()
    for args in (["run", "--out", str(tmp_path / "r")], ["study", "--out", str(tmp_path / "s")],
                 ["compare", "--patch", "p.toml", "--out", str(tmp_path / "c")],
                 ["ablate", "Tyr's Smite", "--out", str(tmp_path / "a")]):
        res = runner.invoke(app, [*args, flag, value])
        _assert_one_line_error(res, f"{flag} {value}; allowed: ")
        errors.add(res.stderr)
    assert len(errors) == 1 and fake_play_batch == [] and not list(tmp_path.iterdir())


# --- run plumbing with a synthetic kernel ----------------------------------------

def test_run_writes_files_in_batches(tmp_path, fake_play_batch):
    out = tmp_path / "new" / "dir"
    res = runner.invoke(app, ["run", "--players", "3", "--lineup", "greedy,random,greedy", "--games", "25",
                              "--batch-size", "10", "--seed", "9", "--out", str(out), "--option", "tie_break=shared",
                              "--no-rotate"])
    assert res.exit_code == 0, res.output
    assert fake_play_batch == [10, 10, 5]
    clans = pd.read_parquet(out / "clans.parquet")
    assert list(clans.columns) == CLANS_COLUMNS and len(clans) == 75
    assert clans["game_id"].tolist() == np.repeat(np.arange(25), 3).tolist()
    assert clans["strategy"].astype(str).tolist()[:3] == ["greedy", "random", "greedy"]
    assert list(pd.read_parquet(out / "picks.parquet").columns) == PICKS_COLUMNS
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "complete" and meta["games_done"] == 25 and meta["games"] == 25
    assert meta["options"]["tie_break"] == "shared" and meta["lineup"] == ["greedy", "random", "greedy"]
    assert len(meta["card_file_sha256"]) == 64 and meta["finished"]
    assert "Win rate by strategy" in res.stdout and "Win rate by seat" in res.stdout


def test_interrupted_run_keeps_partial_results(tmp_path, monkeypatch):
    from conftest import make_batch

    import volva.simulator.engines as engines
    n = []

    def flaky(ruleset, lineup, seeds, parallel=True):
        if n:
            raise KeyboardInterrupt
        n.append(1)
        return make_batch(len(seeds), len(lineup))

    monkeypatch.setattr(engines, "play_batch", flaky)
    res = runner.invoke(app, ["run", "--players", "2", "--games", "30", "--batch-size", "10", "--out", str(tmp_path),
                              "--no-rotate"])
    assert res.exit_code == 130
    meta = json.loads((tmp_path / "run.json").read_text())
    assert meta["status"] == "interrupted" and meta["games_done"] == 10
    assert len(pd.read_parquet(tmp_path / "clans.parquet")) == 20


# --- real games (need the numba kernels) ------------------------------------------

@pytest.mark.slow
def test_run_end_to_end(tmp_path):
    out = tmp_path / "run"
    res = runner.invoke(app, ["run", "--players", "4", "--lineup", "greedy,greedy,random,random", "--games", "50",
                              "--batch-size", "20", "--seed", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in out.iterdir()) == ["clans.parquet", "picks.parquet", "plays.parquet",
                                                      "run.json", "stats"]
    clans = pd.read_parquet(out / "clans.parquet")
    assert list(clans.columns) == CLANS_COLUMNS and len(clans) == 200
    assert sorted(clans["game_id"].unique()) == list(range(50))
    np.testing.assert_allclose(clans.groupby("game_id")["win_share"].sum(), 1.0)
    src = clans[[f"glory_{s}" for s in E.GLORY_SOURCE_NAMES]].sum(axis=1)
    assert (clans["glory"] == src).all()
    for c in ("rage_level", "axes_level", "horns_level"):
        assert clans[c].between(1, E.N_STEPS).all()
    picks = pd.read_parquet(out / "picks.parquet")
    assert len(picks) > 0 and picks["pick"].min() == 1 and set(picks["age"]) <= {1, 2, 3}
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "complete" and meta["games_done"] == 50
    plays = pd.read_parquet(out / "plays.parquet")
    assert set(plays["use"].astype(str)) <= {"battle", "upgrade", "quest", "keep"} and len(plays) > 0
    # every card used was drafted by that clan (kept cards come back), or taken with Loki's Poison
    drafted = set(zip(picks["game_id"], picks["seat"], picks["card"].astype(str)))
    poison = {(g, s) for g, s, c in zip(plays["game_id"], plays["seat"], plays["card"].astype(str))
              if c == "Loki's Poison"}
    for k in zip(plays["game_id"], plays["seat"], plays["card"].astype(str)):
        assert k in drafted or k[:2] in poison, k
    assert (plays[plays["use"].astype(str) == "keep"]["age"] < 3).all()  # DIGEST §1.5: nothing kept in age 3
    from volva.analysis.suffstats import Stats
    st = Stats.load(out)
    assert st.games == 50 and st["clans"]["n"].sum() == 200


@pytest.mark.slow
def test_results_do_not_depend_on_batch_size_or_threads(tmp_path):
    frames = []
    for i, extra in enumerate((["--batch-size", "7"], ["--batch-size", "30", "--threads", "1"])):
        out = tmp_path / str(i)
        res = runner.invoke(app, ["run", "--players", "3", "--lineup", "greedy,random,greedy", "--games", "30",
                                  "--seed", "5", "--out", str(out), *extra])
        assert res.exit_code == 0, res.output
        frames.append((pd.read_parquet(out / "clans.parquet"), out))
    # category order depends on which row group saw a value first; compare values
    pd.testing.assert_frame_equal(frames[0][0], frames[1][0], check_categorical=False)
    from volva.analysis.suffstats import Stats
    assert Stats.load(frames[0][1]).equals(Stats.load(frames[1][1]))


@pytest.mark.slow
def test_replay_every_game_formats():
    """Every event of 60 games (all card texts) formats to text: no detail code breaks the log."""
    from volva.simulator.engines import load_ruleset, replay_text
    from volva.strategies.builtin import resolve
    rs = load_ruleset()
    for lineup in (["greedy"] * 4, ["balanced", "ragnarok-diver", "thor-warlord", "loki-martyr"]):
        for g in range(30):
            text = replay_text(rs, lineup, [resolve(n) for n in lineup], 1, g)
            assert text.count("; rank ") == len(lineup), text[-300:]  # every clan's final line
            # Valhalla's Glory sources are not Blood Rage's (a helper session saw "valor 0" here)
            assert "ragnarok " in text and not any(f"{n} 0" in text for n in ("contest", "valor", "start"))


@pytest.mark.slow
def test_replay_real_game():
    res = runner.invoke(app, ["replay", "--seed", "1", "--players", "2", "--lineup", "greedy,random", "--game", "3"])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip()


def test_run_refuses_to_overwrite_results_without_force(tmp_path):
    """Nothing already written is lost: a second run into a results directory is refused (exit 2);
    --force replaces it."""
    out = tmp_path / "r"
    assert runner.invoke(app, ["run", "--players", "2", "--games", "20", "--out", str(out)]).exit_code == 0
    before = (out / "clans.parquet").read_bytes()
    res = runner.invoke(app, ["run", "--players", "2", "--games", "20", "--seed", "2", "--out", str(out)])
    assert res.exit_code == 2 and "already holds results" in res.output
    assert (out / "clans.parquet").read_bytes() == before
    res = runner.invoke(app, ["run", "--players", "2", "--games", "20", "--seed", "2", "--out", str(out), "--force"])
    assert res.exit_code == 0 and (out / "clans.parquet").read_bytes() != before


@pytest.mark.parametrize("seed", ["-1", str(2**64)])
def test_run_rejects_seed_out_of_range(tmp_path, seed):
    res = runner.invoke(app, ["run", "--games", "5", "--seed", seed, "--out", str(tmp_path / "s")])
    assert res.exit_code == 2 and "allowed: 0.." in res.output


def test_seat_rotation_is_exact_and_paired(tmp_path):
    """Issue 4 §3: with rotation (the default) every strategy sits in every seat equally often, and the
    P rotations of a seed index share one game seed (paired games)."""
    out = tmp_path / "rot"
    res = runner.invoke(app, ["run", "--players", "4", "--lineup", "greedy,random,balanced,quester",
                              "--games", "400", "--batch-size", "150", "--seed", "3", "--out", str(out)])
    assert res.exit_code == 0, res.output
    c = pd.read_parquet(out / "clans.parquet")
    c["strategy"] = c["strategy"].astype(str)
    counts = c.groupby(["strategy", "seat"]).size()
    assert len(counts) == 16 and (counts == 100).all()
    per_seed = c.groupby("seed")
    assert per_seed.ngroups == 100
    assert (per_seed.size() == 16).all()  # 4 rotations x 4 clans
    assert (c.groupby(["seed", "strategy"])["seat"].nunique() == 4).all()
    assert json.loads((out / "run.json").read_text())["rotate"] is True


def test_orchestration_has_no_command_line_and_no_rule_set_names():
    """cli.py parses and prints; analysis/ does the work without typer, and neither branches on
    a rule set's name (the registry and strategies.lineup know the engines)."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    for p in sorted((root / "analysis").glob("*.py")):
        assert not re.search(r"^\s*(import|from)\s+typer", p.read_text(), re.M), p
    for p in [root / "cli.py", *(root / "analysis" / f"{m}.py" for m in
                                 ("session", "play", "provenance", "experiment", "runner"))]:
        for ln in p.read_text().splitlines():
            assert not re.search(r'[!=]=\s*"(valhalla|rainbow-bridge|blood-rage)"', ln), (p, ln)


def test_default_lineups_come_from_the_engine():
    from volva.analysis.experiment import default_lineup
    from volva.strategies.lineup import DEFAULT_LINEUPS
    assert default_lineup(4) == DEFAULT_LINEUPS["blood-rage"]
    assert default_lineup(5, "valhalla") == DEFAULT_LINEUPS["valhalla"] + ["greedy"]
    assert default_lineup(3, "valhalla", "rainbow-bridge") == DEFAULT_LINEUPS["rainbow-bridge"][:3]
    assert default_lineup(2, "no-such-rule-set") == ["greedy", "greedy"]


def test_progress_rate_counts_only_the_games_this_process_played():
    """--resume starts the bar at the games already done; its games/s counts the new ones only
    (it showed millions of games/s on resuming a finished run; found by a helper session)."""
    import io

    from rich.console import Console

    from volva.reports import console as C
    with C.progress(Console(file=io.StringIO()), "games") as prog:
        task_id = prog.add_task("games", total=200_000, completed=90_000, resumed=90_000)
        prog.update(task_id, advance=20_000)
        task = prog.tasks[0]
        task.start_time, task.stop_time = 0.0, 2.0  # 20,000 new games in 2 s
        rate = next(c for c in prog.columns if type(c).__name__ == "GamesPerSecond").render(task)
    assert rate.plain == "10,000 games/s"


@pytest.mark.parametrize("argv", [["run", "--out", ""], ["report", "runs/x", "--out="], ["study", "--out", " "]])
def test_empty_out_is_refused(monkeypatch, capsys, argv):
    """An empty --out (the working directory once parsed) is one error line, exit 2, nothing written
    (found by a helper session: `volva run --out ''` wrote its files into the working directory)."""
    import sys

    from volva import cli
    monkeypatch.setattr(sys, "argv", ["volva", *argv])
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 2
    assert "--out: an empty path" in capsys.readouterr().err


def test_scenario_compile_notice_once_on_a_terminal_only(monkeypatch, capsys):
    """`volva scenario` compiles its step kernels silently on an empty kernel cache (~50 s, a helper
    session): on a terminal it says so once, at the first real compile; on a pipe it stays quiet."""
    from numba import njit

    from volva.cli import _compile_notice

    def fresh():
        return njit(lambda x: x + 1)  # a new function: compiled, not loaded from any cache

    with _compile_notice("compiling now"):
        assert fresh()(1) == 2
    assert capsys.readouterr().err == ""  # pytest's stderr is no terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with _compile_notice("compiling now"):
        assert capsys.readouterr().err == ""  # nothing before a compile
        assert fresh()(1) == 2 and fresh()(2) == 3
    assert capsys.readouterr().err == "compiling now\n"
    with _compile_notice("compiling now"):
        f = fresh()
    assert f(3) == 4 and capsys.readouterr().err == ""  # after the block: not listened to


def test_ctrl_c_after_the_games_says_one_line(tmp_path, monkeypatch, capsys, fake_play_batch):
    """A Ctrl-C after the games, while a command writes its tables, exited 130 with no word (a
    helper session, `volva compare`/`tournament`): one line says what is left."""
    from volva import cli
    from volva.reports import console as C

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(C, "print_wide", interrupted)
    monkeypatch.setattr(cli, "_exit_now", lambda rc: sys.exit(rc))  # not os._exit: pytest goes on
    monkeypatch.setattr(sys, "argv", ["volva", "run", "--players", "2", "--games", "6", "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit) as e:
        cli.main()
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 130 and err[-1].startswith("interrupted before the command finished (compiling, or writing"), err
    assert (tmp_path / "o" / "run.json").is_file()


@pytest.mark.parametrize("command, flag", [("run", []), ("study", ["--keep-rows"])])
def test_resume_with_rows_says_what_to_do(tmp_path, fake_play_batch, command, flag):
    """--resume with row files kept: a stats-only run in OUT is told to resume without them; a run
    that kept rows (the default of `volva run`) is told it cannot resume and to play again with
    --force, not sent round to the other flag and back."""
    out = tmp_path / "o"
    out.mkdir()
    for kept, needles in ((True, ["run.json: the run kept rows", "--force"]),
                          (False, ["continues a stats-only run", "keep-rows"])):
        (out / "run.json").write_text(json.dumps({"keep_rows": kept}))
        args = [command, "--players", "2", "--games", "5", "--out", str(out), "--resume", *flag]
        _assert_one_line_error(runner.invoke(app, args), *needles)
    assert fake_play_batch == []


def test_study_players_says_which_default_lineup_it_plays(tmp_path, fake_play_batch):
    """`volva study --players 3` with no lineup plays the default lineup's first three strategies:
    it says which (it cut the fourth silently); a lineup given says nothing."""
    out = tmp_path / "s"
    res = runner.invoke(app, ["study", "--players", "3", "--games", "6", "--no-report", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "default lineup for 3 players: tuned-4p, balanced, ragnarok-diver" in res.stderr
    res = runner.invoke(app, ["study", "--players", "3", "--lineup", "greedy,greedy,balanced", "--games", "6",
                              "--no-report", "--out", str(out), "--force"])
    assert res.exit_code == 0, res.output
    assert "default lineup" not in res.stderr
