"""Volva command line: ``volva run``, ``volva replay``, ``volva scenario``, ``volva report``,
``volva tournament``, ``volva strategies list|show|validate``, ``volva version``.

User errors (unknown strategy, bad player count or lineup, bad rule option,
malformed rule set, unusable --out) print ONE line ``error: ...`` on stderr and
exit with code 2, before any game is played.
"""
from __future__ import annotations

import json
import platform
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Volva: Monte Carlo simulator of the board game Blood Rage.")

EXIT_USAGE = 2


class UsageError(Exception):
    """A user error reported as one 'error: ...' line and exit code 2."""


def _fail(msg: str) -> None:
    sys.stderr.write(f"error: {' '.join(str(msg).split())}\n")
    sys.stderr.flush()
    raise typer.Exit(EXIT_USAGE)


def volva_version() -> str:
    """Installed distribution version, or the source tree's version if not installed."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("volva")
    except PackageNotFoundError:
        return "0.1.0+source"


def parse_option(text: str) -> tuple[str, object]:
    """'key=value' -> (key, value) with value int, bool (true/false) or str. Raises UsageError."""
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise UsageError(f"--option {text!r}: expected key=value")
    if raw.lower() in ("true", "false"):
        return key, raw.lower() == "true"
    try:
        return key, int(raw)
    except ValueError:
        return key, raw


MODULES = {"gods-of-asgard": "gods_of_asgard"}


def _module_options(modules: Optional[list[str]]) -> list[str]:
    """--module NAME -> rule options 'NAME=true'. Raises UsageError for an unknown module."""
    out = []
    for m in modules or []:
        if m not in MODULES:
            raise UsageError(f"--module {m!r}; allowed: {sorted(MODULES)}")
        out.append(f"{MODULES[m]}=true")
    return out


def _setup(players: int, lineup: Optional[str], options: Optional[list[str]], ruleset: str):
    """Validate the common arguments -> (Ruleset, names, [(kind, params)]). Raises UsageError."""
    from simulator import enums as E
    from simulator.ruleset import RulesError, load_ruleset
    from strategies.builtin import parse_lineup, resolve

    if not 2 <= players <= E.MAX_PLAYERS:
        raise UsageError(f"--players {players}; allowed: 2..{E.MAX_PLAYERS}")
    text = lineup if lineup is not None else ",".join(["greedy"] * players)
    try:
        names = parse_lineup(text, players)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    opts = dict(parse_option(o) for o in options or [])
    try:
        rs = load_ruleset(ruleset, options=opts)
    except RulesError as exc:
        raise UsageError(str(exc)) from None
    return rs, names, [resolve(n) for n in names]


RESULT_FILES = ("run.json", "clans.parquet", "picks.parquet")


def _check_out(out: Path, force: bool = False) -> None:
    """Create ``out`` if needed and prove it is a writable directory holding no earlier results
    (unless ``force``). Raises UsageError."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {str(out)!r} exists and is not a directory")
    if not force and out.is_dir() and any((out / f).exists() for f in RESULT_FILES):
        raise UsageError(f"--out {str(out)!r} already holds results (run.json/clans.parquet); "
                         "choose a new directory or pass --force to replace them")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".volva-write-test-"):
            pass
    except OSError as exc:
        raise UsageError(f"--out {str(out)!r} is not a writable directory: {exc.strerror or exc}") from None


def _stop_on_signals() -> dict:
    """SIGINT, SIGTERM and SIGHUP stop a run between Parquet writes like Ctrl-C (even when the
    shell started it with SIGINT ignored), so the files are closed and stay readable."""
    import signal

    def handler(signum, frame):
        raise KeyboardInterrupt

    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        try:
            old[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread
            pass
    return old


def _restore_signals(old: dict) -> None:
    import signal
    for sig, h in old.items():
        signal.signal(sig, h)


def _set_threads(threads: Optional[int]) -> None:
    """Apply --threads (numba threads). Raises UsageError for a count numba refuses."""
    if threads is None:
        return
    import numba
    try:
        numba.set_num_threads(threads)
    except ValueError as exc:
        raise UsageError(f"--threads {threads}: {exc}") from None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _win_tables(clans) -> list:
    """Rich tables of win rate by strategy and by seat (95% Wilson intervals)."""
    from rich.table import Table

    from analysis.records import summary
    tables = []
    for key, df in summary(clans).items():
        t = Table(title=f"Win rate by {key}")
        for col in (key, "clans", "win rate", "95% CI", "expected", "mean Glory"):
            t.add_column(col, justify="left" if col == key else "right", no_wrap=True)
        for idx, r in df.iterrows():
            t.add_row(str(idx), f"{int(r.n):,}", f"{r.win_rate:.4f}",
                      f"{r.ci_low:.4f}–{r.ci_high:.4f}", f"{r.expected:.4f}", f"{r.mean_glory:.2f}")
        tables.append(t)
    return tables


def _progress(console):
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    class GamesPerSecond(ProgressColumn):
        def render(self, task):
            done, el = task.completed, task.elapsed
            return Text(f"{done / el:,.0f} games/s" if el and done else "- games/s")

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), GamesPerSecond(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console)


@app.command()
def run(
    players: int = typer.Option(4, "--players", help="Clans per game, 2..5."),
    lineup: Optional[str] = typer.Option(None, "--lineup", help="Comma-separated strategy per seat (default: all greedy)."),
    games: int = typer.Option(100_000, "--games", help="Games to play."),
    seed: int = typer.Option(1, "--seed", help="Master seed; game g uses game_seeds(seed, g, 1)."),
    out: Path = typer.Option(..., "--out", help="Output directory (created if missing)."),
    batch_size: int = typer.Option(10_000, "--batch-size", help="Games per kernel call / Parquet row group."),
    option: Optional[list[str]] = typer.Option(None, "--option", help="Rule option key=value (repeatable)."),
    threads: Optional[int] = typer.Option(None, "--threads", help="Numba threads (default: numba's)."),
    ruleset: str = typer.Option("blood-rage", "--ruleset", help="Rule set directory under simulator/data/."),
    force: bool = typer.Option(False, "--force", help="Replace the results already in OUT."),
    module: Optional[list[str]] = typer.Option(None, "--module", help="Rule module (repeatable): gods-of-asgard."),
    rotate: bool = typer.Option(True, "--rotate/--no-rotate",
                                help="Rotate the lineup through the seats on shared seeds (game g: rotation g mod P)."),
) -> None:
    """Play GAMES games and write clans.parquet, picks.parquet and run.json to OUT."""
    try:
        if not 0 <= seed < 2**64:
            raise UsageError(f"--seed {seed}; allowed: 0..{2**64 - 1}")
        if games < 1:
            raise UsageError(f"--games {games}; allowed: 1 or more")
        if batch_size < 1:
            raise UsageError(f"--batch-size {batch_size}; allowed: 1 or more")
        option = (option or []) + _module_options(module)
        rs, names, pols = _setup(players, lineup, option, ruleset)
        _check_out(out, force)
        _set_threads(threads)
    except UsageError as exc:
        _fail(str(exc))
    code = _run(rs, names, pols, players, games, seed, out, batch_size, option or [], rotate)
    raise typer.Exit(code)


def _run(rs, names, pols, players, games, seed, out: Path, batch_size, option_args, rotate=True) -> int:
    """Play the batches, append to Parquet, write run.json; returns the exit code."""
    import numba
    import numpy as np
    import pandas as pd
    import pyarrow.parquet as pq
    from rich.console import Console

    from analysis import records as R
    from simulator.api import game_plan, play_batch, rotated

    meta = {
        "volva_version": volva_version(), "python": platform.python_version(), "numpy": np.__version__,
        "numba": numba.__version__, "numba_threads": numba.get_num_threads(), "ruleset": rs.name,
        "options": rs.options, "option_args": list(option_args), "seed": seed, "players": players,
        "lineup": names, "rotate": rotate, "games": games, "batch_size": batch_size, "card_file_sha256": rs.card_file_sha256,
        "started": _now(), "finished": None, "status": "running", "games_done": 0,
    }
    run_json = out / "run.json"
    run_json.write_text(json.dumps(meta, indent=2) + "\n")
    err = Console(stderr=True)
    done, status, code = 0, "complete", 0
    writers = []
    old = _stop_on_signals()
    try:
        cw = pq.ParquetWriter(out / "clans.parquet", R.CLANS_SCHEMA)
        writers.append(cw)
        pw = pq.ParquetWriter(out / "picks.parquet", R.PICKS_SCHEMA)
        writers.append(pw)
        with _progress(err) as prog:
            task = prog.add_task("games", total=games)
            for first in range(0, games, batch_size):
                n = min(batch_size, games - first)
                clan_parts, pick_parts = [], []
                for r, ids, seeds in game_plan(seed, np.arange(first, first + n), players, rotate):
                    batch = play_batch(rs, rotated(pols, r), seeds)
                    clan_parts.append(R.clans_frame(batch, ids, seeds, rs.name, rotated(names, r), rs.god_names))
                    pick_parts.append(R.picks_frame(batch, ids, rs))
                # rows in game order whatever the rotations and batch size
                clans_b = pd.concat(clan_parts, ignore_index=True).sort_values(["game_id", "seat"], kind="stable")
                picks_b = pd.concat(pick_parts, ignore_index=True).sort_values(["game_id", "seat"], kind="stable")
                cw.write_table(R.arrow_table(clans_b.reset_index(drop=True), R.CLANS_SCHEMA))
                pw.write_table(R.arrow_table(picks_b.reset_index(drop=True), R.PICKS_SCHEMA))
                done += n
                meta["games_done"] = done  # after each batch, so a killed run still says how far it got
                run_json.write_text(json.dumps(meta, indent=2) + "\n")
                prog.update(task, advance=n)
    except KeyboardInterrupt:
        status, code = "interrupted", 130
        err.print(f"interrupted after {done:,} games; partial results kept in {out}")
    except BaseException as exc:
        status = "failed"
        meta["error"] = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        for w in writers:
            w.close()
        _restore_signals(old)
        meta.update(finished=_now(), status=status, games_done=done)
        run_json.write_text(json.dumps(meta, indent=2) + "\n")
    if done:
        clans = pd.read_parquet(out / "clans.parquet", columns=["strategy", "seat", "win_share", "glory", "n_players"])
        con = Console()
        for t in _win_tables(clans):
            con.print(t)
        con.print(f"{done:,} games ({status}); output in {out}")
    return code


@app.command()
def replay(
    seed: int = typer.Option(..., "--seed", help="Master seed of the run."),
    players: int = typer.Option(4, "--players", help="Clans per game, 2..5."),
    lineup: Optional[str] = typer.Option(None, "--lineup", help="Comma-separated strategy per seat (default: all greedy)."),
    game: int = typer.Option(0, "--game", help="Game id within the run (0-based)."),
    option: Optional[list[str]] = typer.Option(None, "--option", help="Rule option key=value (repeatable)."),
    ruleset: str = typer.Option("blood-rage", "--ruleset", help="Rule set directory under simulator/data/."),
    module: Optional[list[str]] = typer.Option(None, "--module", help="Rule module (repeatable): gods-of-asgard."),
    rotate: bool = typer.Option(True, "--rotate/--no-rotate", help="As the run: seat rotation on or off."),
) -> None:
    """Replay one game of a run and print its log as text."""
    try:
        if game < 0:
            raise UsageError(f"--game {game}; allowed: 0 or more")
        rs, names, pols = _setup(players, lineup, (option or []) + _module_options(module), ruleset)
    except UsageError as exc:
        _fail(str(exc))
    from simulator.replay import replay_text
    typer.echo(replay_text(rs, names, pols, seed, game, rotate))


@app.command()
def scenario(
    file: Path = typer.Argument(..., help="Scenario file (TOML; format in docs/scenarios.md)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Also write the JSON result to this file."),
) -> None:
    """Set up a position from FILE, run its scripted steps with the engine, print the result as JSON."""
    from simulator.ruleset import RulesError
    from simulator.scenario import run_scenario
    try:
        result = run_scenario(file)
    except (RulesError, ValueError) as exc:  # ScenarioError is a ValueError
        _fail(str(exc))
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if out is not None:
        try:
            out.write_text(text + "\n")
        except OSError as exc:
            _fail(f"--out {str(out)!r}: {exc.strerror or exc}")
    typer.echo(text)


@app.command()
def report(
    run_dir: Path = typer.Argument(..., help="Directory written by `volva run`."),
    out: Path = typer.Option(..., "--out", help="Report directory (created if missing)."),
) -> None:
    """Write the balance report of RUN_DIR (PNG figures, report.html, report.pdf) to OUT."""
    from reports.report import RunDataError, build_report
    if out.exists() and not out.is_dir():
        _fail(f"--out {str(out)!r} exists and is not a directory")
    try:
        written = build_report(run_dir, out)
    except RunDataError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or out}: {exc.strerror or exc}")
    for p in written:
        typer.echo(str(p))


# --------------------------------------------------------------------------- strategies

strategies_app = typer.Typer(add_completion=False, no_args_is_help=True,
                             help="List, show and validate strategies (built-ins, the library, your files).")
app.add_typer(strategies_app, name="strategies")

BUILTIN_PLANS = {
    "random": "Uniform over the legal choices at every decision (the no-skill baseline).",
    "greedy": "The built-in heuristic: draft quests, Monsters, battle cards and upgrades by value, "
              "pillage with a 1-STR margin, go to the doomed province when Rage runs low, raise Axes, Rage, Horns.",
}


def _strategy_object(name: str):
    """NAME (built-in or archetype) or FILE (*.toml) -> (name, plan, kind, params, path). Raises ValueError."""
    from strategies.builtin import BUILTIN, archetypes, resolve
    from strategies.spec import load_strategy
    key = name.strip()
    if key in BUILTIN:
        kind, params = BUILTIN[key]
        return key, BUILTIN_PLANS.get(key, ""), kind, params.copy(), None
    if key in archetypes():
        s = archetypes()[key]
        return s.name, s.plan, s.kind, s.params.copy(), s.path
    if key.endswith(".toml") or Path(key).is_file():
        s = load_strategy(key, _card_names())
        return s.name, s.plan, s.kind, s.params.copy(), s.path
    resolve(key)  # raises the usual "unknown strategy ...; allowed: ..." error
    raise ValueError(f"unknown strategy {name!r}")


def _card_names() -> list[str]:
    from strategies.builtin import _card_names as names
    return list(names())


def _fmt(x: float) -> str:
    return f"{x:g}"


def strategy_differences(params, card_names: list[str]) -> list[tuple[str, str, str, str, str]]:
    """Non-default parameters of a greedy-kind vector: [(section, parameter, value, greedy default, meaning)]."""
    from simulator import enums as E
    from strategies.spec import DRAFT_KEYS, PLAY_KEYS, greedy_defaults
    d = greedy_defaults()
    rows = []
    units = {"battle": "per +STR of a battle card", "monster": "per STR of a Monster",
             "quest": "per quest", "upgrade": "per upgrade"}
    for k, i in DRAFT_KEYS.items():
        if params[i] != d[i]:
            rows.append(("draft by type", k, _fmt(params[i]), _fmt(d[i]), f"draft weight {units.get(k, '')}"))
    for j, g in enumerate(E.GOD_NAMES):
        i = E.P_GOD_W0 + j
        if params[i] != d[i]:
            rows.append(("draft by god", g, f"{params[i]:+g}", _fmt(d[i]), f"draft bonus per {g.capitalize()} card"))
    seen = set()
    for c, n in enumerate(card_names):
        i = E.P_CARD_W0 + c
        if n in seen or i >= len(params):
            continue
        seen.add(n)
        if params[i] != d[i]:
            rows.append(("draft by card", n, f"{params[i]:+g}", _fmt(d[i]), "draft bonus for this card"))
    play_help = {"pillage_margin": "STR margin wanted before pillaging", "opponent_card": "card value assumed per opponent",
                 "late_rage": "at or below this Rage: go to the doomed province",
                 "doom": "extra wish for the doomed province", "pass_score": "pass when no action scores above"}
    for k, (i, _) in PLAY_KEYS.items():
        if params[i] != d[i]:
            rows.append(("play", k, _fmt(params[i]), _fmt(d[i]), play_help.get(k, "")))

    def path(p):
        return " > ".join(E.STAT_NAMES[int(p[E.P_STAT0 + k])] for k in range(E.N_STATS))
    if path(params) != path(d):
        rows.append(("play", "stat_path", path(params), path(d), "order of stat raises"))
    return rows


@strategies_app.command("list")
def strategies_list() -> None:
    """One strategy a line: name, then its plan (built-ins, then the library archetypes)."""
    from strategies.builtin import archetypes
    try:
        lib = archetypes()
    except ValueError as exc:  # a malformed library file
        _fail(str(exc))
    rows = [("random", BUILTIN_PLANS["random"]), ("greedy", BUILTIN_PLANS["greedy"])]
    rows += [(n, lib[n].plan) for n in sorted(lib)]
    w = max(len(n) for n, _ in rows)
    for n, plan in rows:
        typer.echo(f"{n:<{w}}  {plan}")


@strategies_app.command("show")
def strategies_show(
    name: str = typer.Argument(..., help="A built-in, a library archetype, or a strategy file (*.toml)."),
) -> None:
    """Show a strategy's plan and every parameter it sets away from greedy's defaults."""
    from rich.table import Table

    from simulator import enums as E
    try:
        sname, plan, kind, params, path = _strategy_object(name)
    except ValueError as exc:
        _fail(str(exc))
    typer.echo(f"{sname}  ({path if path else 'built-in'})")
    typer.echo(f"plan: {plan or '(none given)'}")
    if kind == E.POL_RANDOM:
        typer.echo("policy: random (uniform over the legal choices; no parameters)")
        return
    typer.echo("policy: greedy heuristic")
    rows = strategy_differences(params, _card_names())
    if not rows:
        typer.echo("all parameters at greedy's defaults")
        return
    t = Table(title=f"{sname}: parameters that differ from greedy's defaults", title_justify="left")
    for col in ("section", "parameter", "value", "greedy", "meaning"):
        t.add_column(col, justify="right" if col in ("value", "greedy") else "left", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    _print_wide([t])


@strategies_app.command("validate")
def strategies_validate(
    file: Path = typer.Argument(..., help="Strategy file (TOML; format in strategies/spec.py)."),
) -> None:
    """Check a strategy file: prints 'ok: NAME' (exit 0) or one 'error: FILE: key: ...' line (exit 2)."""
    from strategies.spec import load_strategy
    try:
        s = load_strategy(file, _card_names())
    except ValueError as exc:
        _fail(str(exc))
    typer.echo(f"ok: {s.name}")


# --------------------------------------------------------------------------- tournament

def _rank_table(rank, players: int):
    from rich.table import Table
    t = Table(title=f"Ranking ({players} players; win rate over all games played, 95% Wilson interval)")
    for col in ("#", "strategy", "win rate", "95% CI", "expected", "mean Glory", "games"):
        t.add_column(col, justify="left" if col == "strategy" else "right", no_wrap=True)
    for i, r in rank.iterrows():
        t.add_row(str(i + 1), r.strategy, f"{r.win_rate:.4f}", f"{r.ci_low:.4f}–{r.ci_high:.4f}",
                  f"{r.expected:.4f}", f"{r.mean_glory:.2f}", f"{int(r.games):,}")
    return t


def _h2h_table(mat):
    import math

    from rich.table import Table
    t = Table(title="Head to head: row's win rate in the games where row and column both played")
    t.add_column("strategy", no_wrap=True)
    for c in mat.columns:
        t.add_column(str(c), justify="right", no_wrap=True)
    for s, row in mat.iterrows():
        t.add_row(str(s), *["—" if (c == s or math.isnan(v)) else f"{v:.3f}" for c, v in row.items()])
    return t


def _print_wide(tables) -> None:
    """Print rich tables without squeezing their columns (widen the console if needed)."""
    from rich.console import Console
    con = Console()
    wide = con.options.update_width(100_000)
    need = max(con.measure(t, options=wide).maximum for t in tables)
    if need > con.width:
        con = Console(width=need)
    for t in tables:
        con.print(t)


@app.command()
def tournament(
    strategies: str = typer.Option(..., "--strategies", help="Comma-separated strategies (names or *.toml files)."),
    players: int = typer.Option(4, "--players", help="Clans per game, 2..5."),
    games: int = typer.Option(2_000, "--games", help="Games per combination (rounded up to a multiple of --players)."),
    seed: int = typer.Option(1, "--seed", help="Master seed (the same seeds for every combination)."),
    threads: Optional[int] = typer.Option(None, "--threads", help="Numba threads (default: numba's)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Also write tournament.csv and head_to_head.csv here."),
    option: Optional[list[str]] = typer.Option(None, "--option", help="Rule option key=value (repeatable)."),
    module: Optional[list[str]] = typer.Option(None, "--module", help="Rule module (repeatable): gods-of-asgard."),
    ruleset: str = typer.Option("blood-rage", "--ruleset", help="Rule set directory under simulator/data/."),
) -> None:
    """Every combination of --players distinct strategies, seats rotated on shared seeds; prints the
    ranking (win rate, 95% Wilson interval, mean Glory) and the head-to-head matrix."""
    from simulator import enums as E
    try:
        if not 2 <= players <= E.MAX_PLAYERS:
            raise UsageError(f"--players {players}; allowed: 2..{E.MAX_PLAYERS}")
        if not 0 <= seed < 2**64:
            raise UsageError(f"--seed {seed}; allowed: 0..{2**64 - 1}")
        if games < 1:
            raise UsageError(f"--games {games}; allowed: 1 or more")
        names = [s.strip() for s in strategies.split(",")]
        if any(not n for n in names):
            raise UsageError(f"--strategies {strategies!r}: empty name")
        from analysis.tournament import combinations
        from strategies.builtin import resolve
        try:
            pols = [resolve(n) for n in names]
            combos = combinations(names, players)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        from simulator.ruleset import RulesError, load_ruleset
        opts = dict(parse_option(o) for o in (option or []) + _module_options(module))
        try:
            rs = load_ruleset(ruleset, options=opts)
        except RulesError as exc:
            raise UsageError(str(exc)) from None
        if out is not None:
            _check_out(out, force=True)
        _set_threads(threads)
    except UsageError as exc:
        _fail(str(exc))

    from rich.console import Console

    from analysis.tournament import head_to_head, ranking, round_games, run_tournament
    n_games = round_games(games, players)
    err = Console(stderr=True)
    if n_games != games:
        err.print(f"--games {games} rounded up to {n_games} (a multiple of {players} seat rotations)")
    with _progress(err) as prog:
        task = prog.add_task(f"{len(combos)} combinations", total=len(combos) * n_games)
        clans = run_tournament(rs, names, players, n_games, seed, policies=pols,
                               progress=lambda n: prog.update(task, advance=n))
    rank = ranking(clans)
    mat = head_to_head(clans, order=list(rank["strategy"]))
    _print_wide([_rank_table(rank, players), _h2h_table(mat)])
    typer.echo(f"{len(combos)} combinations x {n_games:,} games = {len(combos) * n_games:,} games, "
               f"{players} players, seed {seed}")
    if out is not None:
        rank.to_csv(out / "tournament.csv", index=False)
        mat.to_csv(out / "head_to_head.csv", float_format="%.6f")
        typer.echo(f"wrote {out / 'tournament.csv'} and {out / 'head_to_head.csv'}")


@app.command()
def version() -> None:
    """Print the Volva, Python, numpy and numba versions."""
    import numba
    import numpy as np
    typer.echo(f"volva {volva_version()} (python {platform.python_version()}, numpy {np.__version__}, "
               f"numba {numba.__version__})")


if __name__ == "__main__":
    app()
