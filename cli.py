"""Volva command line: ``volva run``, ``volva replay``, ``volva scenario``, ``volva report``, ``volva version``.

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
        import numba
        if threads is not None:
            try:
                numba.set_num_threads(threads)
            except ValueError as exc:
                raise UsageError(f"--threads {threads}: {exc}") from None
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


@app.command()
def version() -> None:
    """Print the Volva, Python, numpy and numba versions."""
    import numba
    import numpy as np
    typer.echo(f"volva {volva_version()} (python {platform.python_version()}, numpy {np.__version__}, "
               f"numba {numba.__version__})")


if __name__ == "__main__":
    app()
