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

from reports import console
from strategies import describe

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Volva: Monte Carlo balance analyser for the board game Blood Rage.")

EXIT_USAGE = 2
MAX_GAMES = 10**12  #: games per run or arm (game ids must fit int64 seeds arithmetic with room)


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


def _setup(players: int, lineup: Optional[str], options: Optional[list[str]], ruleset: str, patch=None,
           sweep: Optional[str] = None, mode: Optional[str] = None):
    """Validate the common arguments -> (Ruleset, names, [(kind, params)]). Raises UsageError.
    ``patch``: card patches for load_ruleset (files, or (label, dict) pairs); ``sweep``: a Valhalla
    god sweep (gods, god-sets); ``mode``: "rainbow-bridge" (Blood Rage then Valhalla; options,
    patches and the sweep apply to the Valhalla game)."""
    if mode is not None:
        if mode != "rainbow-bridge":
            raise UsageError(f"--mode {mode!r}; allowed: rainbow-bridge")
        return _setup_rainbow(players, lineup, options, patch, sweep)
    from simulator.core import enums as E
    from simulator.core.loading import RulesError
    from simulator.engines import load_ruleset
    from strategies.builtin import parse_lineup
    from strategies.lineup import resolve_for

    if not 2 <= players <= E.MAX_PLAYERS:
        raise UsageError(f"--players {players}; allowed: 2..{E.MAX_PLAYERS} (valhalla: 3..5)")
    text = lineup if lineup is not None else ",".join(["greedy"] * players)
    opts = dict(parse_option(o) for o in options or [])
    if ruleset == "valhalla" and "gods_of_asgard" in opts:
        raise UsageError("--module gods-of-asgard is a Blood Rage module; Blood Rage: Valhalla has its own gods "
                         "(with --mode rainbow-bridge it applies to the Blood Rage game)")
    try:
        rs = load_ruleset(ruleset, options=opts, patch=list(patch) if patch else None)
        rs.check_players(players)
    except RulesError as exc:
        raise UsageError(str(exc)) from None
    resolve = resolve_for(rs.engine)
    if hasattr(rs, "with_sweep"):
        try:
            rs = rs.with_sweep(sweep)
        except RulesError as exc:
            raise UsageError(str(exc)) from None
    elif sweep is not None:
        raise UsageError(f"--sweep {sweep}: god sweeps are for --ruleset valhalla (or --mode rainbow-bridge)")
    try:
        names = parse_lineup(text, players, resolve)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return rs, names, [resolve(n) for n in names]


def _setup_rainbow(players, lineup, options, patch, sweep):
    """Rainbow Bridge: options and patches go to the Valhalla game; ``blood-rage.NAME=V`` options
    and modules (gods_of_asgard) to the Blood Rage game."""
    from simulator import rainbow
    from simulator.core.loading import RulesError
    from strategies.builtin import parse_lineup
    from strategies.lineup import resolve_pair
    opts = dict(parse_option(o) for o in options or [])
    base_opts = {k.split(".", 1)[1]: v for k, v in opts.items() if k.startswith("blood-rage.")}
    if "gods_of_asgard" in opts:
        base_opts["gods_of_asgard"] = opts["gods_of_asgard"]
    vh_opts = {k: v for k, v in opts.items() if not k.startswith("blood-rage.") and k != "gods_of_asgard"}
    if "start_glory" in vh_opts:
        raise UsageError("--option start_glory: in --mode rainbow-bridge the Blood Rage placing sets the "
                         "starting Glory (12/8/4/0)")
    try:
        rs = rainbow.load(base_opts, vh_opts, list(patch) if patch else None, sweep)
        rs.check_players(players)
    except RulesError as exc:
        raise UsageError(str(exc)) from None
    text = lineup if lineup is not None else ",".join(["greedy"] * players)
    try:
        names = parse_lineup(text, players, resolve_pair)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return rs, names, [resolve_pair(n) for n in names]


RESULT_FILES = ("run.json", "clans.parquet", "picks.parquet", "plays.parquet", "stats", "stats.new",
                "baseline", "variant", "forced", "banned", "paired.parquet", "tournament.csv")


def _check_out(out: Path, force: bool = False) -> None:
    """Create ``out`` if needed and prove it is a writable directory holding no earlier results
    (unless ``force``). Raises UsageError."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {str(out)!r} exists and is not a directory")
    if not force and out.is_dir() and any((out / f).exists() for f in RESULT_FILES):
        held = ", ".join(f for f in RESULT_FILES if (out / f).exists())
        raise UsageError(f"--out {str(out)!r} already holds results ({held}); "
                         "choose a new directory or pass --force to replace them")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".volva-write-test-"):
            pass
        if force:  # replace: earlier results (and a report made from them) would no longer match
            import shutil
            volva_dir = any((out / f).exists() for f in RESULT_FILES)
            for f in RESULT_FILES + (("report", "compare.png", "ablate.png", "ablate.csv") if volva_dir else ()):
                p = out / f
                if p.is_dir():
                    shutil.rmtree(p)
                elif p.exists():
                    p.unlink()
            if volva_dir:
                for p in out.glob("compare_*.csv"):
                    p.unlink()
    except OSError as exc:
        raise UsageError(f"--out {str(out)!r} is not a writable directory: {exc.strerror or exc}") from None


class StopFlag:
    """Set by the first SIGINT/SIGTERM/SIGHUP: the run stops after the batch it is playing."""
    requested = False
    signum = 2  # the signal that asked (exit code 128 + signum)

    def __call__(self) -> bool:
        return self.requested


def _stop_on_signals(flag: StopFlag | None = None) -> dict:
    """SIGINT, SIGTERM and SIGHUP stop a run between batches (even when the shell started it with
    SIGINT ignored): the first signal lets the current batch finish and be written, so every
    file stays consistent; a second one stops at once (the files of the last finished batch are
    still whole: each is replaced atomically)."""
    import signal

    def handler(signum, frame):
        if flag is None or flag.requested:
            raise KeyboardInterrupt
        flag.requested, flag.signum = True, int(signum)
        sys.stderr.write("\nstopping after the current batch (signal again to stop now)\n")

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


def _meta(rs, names, players, games, seed, batch_size, option_args, rotate, keep_rows, **extra) -> dict:
    import numba
    import numpy as np
    m = {
        "volva_version": volva_version(), "python": platform.python_version(), "numpy": np.__version__,
        "numba": numba.__version__, "numba_threads": numba.get_num_threads(), "ruleset": rs.name,
        "options": rs.options, "option_args": list(option_args), "seed": seed, "players": players,
        "lineup": names, "rotate": rotate, "games": games, "batch_size": batch_size,
        "card_file_sha256": rs.card_file_sha256, "patch": rs.patch_file, "patch_sha256": rs.patch_sha256,
        "draft_rules": None, "keep_rows": keep_rows, "sweep": getattr(rs, "sweep", None),
        "mode": "rainbow-bridge" if getattr(rs, "engine", "") == "rainbow-bridge" else None,
        "started": _now(), "finished": None, "status": "running", "games_done": 0,
    }
    if getattr(rs, "engine", "") == "rainbow-bridge":  # the Blood Rage game's cards too
        m["base_card_file_sha256"] = rs.base.card_file_sha256
    m.update({k: v for k, v in extra.items() if k not in ("sweep", "mode")})
    return m


def _run(rs, names, pols, players, games, seed, out: Path, batch_size, option_args, rotate=True,
         keep_rows=True, resume=False, extra_meta=None) -> int:
    """Play the batches into OUT (stats always, rows with keep_rows); returns the exit code."""
    from rich.console import Console

    from analysis.runner import RunWriter, check_resume, run_batches
    from analysis.suffstats import Stats, StatsError

    meta = _meta(rs, names, players, games, seed, batch_size, option_args, rotate, keep_rows, **(extra_meta or {}))
    writer = RunWriter(out, meta, keep_rows)
    start = 0
    if resume:
        try:
            old = check_resume(out, meta)
            # stopped before its first batch was written: nothing to load, start from game 0
            if (out / "stats").exists() or (out / "stats.new").exists():
                writer.stats = Stats.load(out)
        except (ValueError, StatsError) as exc:
            _fail(str(exc))
        start = writer.stats.games  # the stats are replaced whole after each batch: they say how far it got
        meta["started"] = old.get("started")
        meta["resumed"] = (old.get("resumed") or []) + [_now()]
        meta["games_done"] = start
    err = Console(stderr=True)
    status, code = "complete", 0
    stop = StopFlag()
    old_sig = _stop_on_signals(stop)
    try:
        writer.open()
        with console.progress(err) as prog:
            task = prog.add_task("games", total=games, completed=start)
            run_batches(rs, names, pols, seed, games, batch_size, rotate, writer, start,
                        progress=lambda n: prog.update(task, advance=n), stop=stop)
    except KeyboardInterrupt:
        status, code = "interrupted", 128 + stop.signum
        err.print(f"interrupted after {meta['games_done']:,} games; partial results kept in {out}"
                  + ("" if keep_rows else " (continue with --resume)"))
    except BaseException as exc:
        status = "failed"
        meta["error"] = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        writer.close()
        _restore_signals(old_sig)
        meta.update(finished=_now(), status=status)
        writer.write_meta()
    if meta["games_done"]:
        con = Console()
        for t in console.win_tables(writer.stats):
            con.print(t)
        con.print(f"{meta['games_done']:,} games ({status}); output in {out}")
    return code


def _warn_sweep(rs, names, games, rotate) -> None:
    """A god sweep gives every combination equal games when GAMES is a multiple of its cycle."""
    if not getattr(rs, "sweep", None):
        return
    from simulator.core.batch import rotation_period
    cycle = rs.sweep_size() * (rotation_period(names) if rotate else 1)
    if games % cycle:
        typer.echo(f"warning: --sweep {rs.sweep}: {games:,} games is not a multiple of {cycle} "
                   f"({rs.sweep_size()} combinations x rotations); the counts per combination differ by one "
                   "cycle at most", err=True)


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
    patch: Optional[list[Path]] = typer.Option(None, "--patch", help="Card patch file (TOML, repeatable)."),
    keep_rows: bool = typer.Option(True, "--keep-rows/--no-keep-rows",
                                   help="Write clans/picks/plays.parquet (stats/ is always written)."),
    resume: bool = typer.Option(False, "--resume", help="Continue a stopped --no-keep-rows run in OUT."),
    sweep: Optional[str] = typer.Option(None, "--sweep", help="Valhalla: cycle the games through every "
                                        "ordered god combination (gods: 60) or set of 3 (god-sets: 10)."),
    mode: Optional[str] = typer.Option(None, "--mode", help="rainbow-bridge: a Blood Rage game, then a Valhalla "
                                       "game with starting Glory 12/8/4/0; lineup items BASE:VALHALLA."),
) -> None:
    """Play GAMES games into OUT: stats/ (sufficient statistics), clans/picks/plays.parquet, run.json."""
    try:
        if not 0 <= seed < 2**64:
            raise UsageError(f"--seed {seed}; allowed: 0..{2**64 - 1}")
        if not 1 <= games <= MAX_GAMES:
            raise UsageError(f"--games {games}; allowed: 1..{MAX_GAMES:,}")
        if batch_size < 1:
            raise UsageError(f"--batch-size {batch_size}; allowed: 1 or more")
        if resume and keep_rows:
            raise UsageError("--resume continues a stats-only run: pass --no-keep-rows")
        option = (option or []) + _module_options(module)
        rs, names, pols = _setup(players, lineup, option, ruleset, patch, sweep, mode)
        if not resume:
            _check_out(out, force)
        _set_threads(threads)
    except UsageError as exc:
        _fail(str(exc))
    _warn_sweep(rs, names, games, rotate)
    code = _run(rs, names, pols, players, games, seed, out, batch_size, option or [], rotate, keep_rows, resume,
                extra_meta={"sweep": sweep, "mode": mode})
    raise typer.Exit(code)


@app.command()
def replay(
    seed: int = typer.Option(1, "--seed", help="Master seed of the run (default 1, as volva run)."),
    players: int = typer.Option(4, "--players", help="Clans per game, 2..5."),
    lineup: Optional[str] = typer.Option(None, "--lineup", help="Comma-separated strategy per seat (default: all greedy)."),
    game: int = typer.Option(0, "--game", help="Game id within the run (0-based)."),
    option: Optional[list[str]] = typer.Option(None, "--option", help="Rule option key=value (repeatable)."),
    ruleset: str = typer.Option("blood-rage", "--ruleset", help="Rule set directory under simulator/data/."),
    module: Optional[list[str]] = typer.Option(None, "--module", help="Rule module (repeatable): gods-of-asgard."),
    rotate: bool = typer.Option(True, "--rotate/--no-rotate", help="As the run: seat rotation on or off."),
    patch: Optional[list[Path]] = typer.Option(None, "--patch", help="As the run: card patch file(s)."),
    sweep: Optional[str] = typer.Option(None, "--sweep", help="As the run: Valhalla god sweep (gods, god-sets)."),
    mode: Optional[str] = typer.Option(None, "--mode", help="As the run: rainbow-bridge."),
) -> None:
    """Replay one game of a run and print its log as text."""
    try:
        if game < 0:
            raise UsageError(f"--game {game}; allowed: 0 or more")
        if game >= MAX_GAMES:
            raise UsageError(f"--game {game}; allowed: 0..{MAX_GAMES - 1:,}")
        if not 0 <= seed < 2**64:
            raise UsageError(f"--seed {seed}; allowed: 0..{2**64 - 1}")
        rs, names, pols = _setup(players, lineup, (option or []) + _module_options(module), ruleset, patch,
                                 sweep, mode)
    except UsageError as exc:
        _fail(str(exc))
    from simulator.engines import replay_text
    typer.echo(replay_text(rs, names, pols, seed, game, rotate))


@app.command()
def scenario(
    file: Path = typer.Argument(..., help="Scenario file (TOML; format in docs/scenarios.md)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Also write the JSON result to this file."),
) -> None:
    """Set up a position from FILE, run its scripted steps with the engine, print the result as JSON."""
    from simulator.core.loading import RulesError
    from strategies.lineup import run_scenario
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
    run_dir: Path = typer.Argument(..., help="Directory written by `volva run`, `study`, `compare` or `ablate`."),
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
def study(
    experiment: Optional[Path] = typer.Argument(None, help="Experiment file (TOML; format in analysis/experiment.py). "
                                                           "Default: the main job (4 archetypes, 200,000 games)."),
    out: Path = typer.Option(Path("runs/study"), "--out", help="Run directory; the report goes to OUT/report."),
    games: Optional[int] = typer.Option(None, "--games", help="Override the experiment's games."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Override the experiment's master seed."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Override the games per batch."),
    keep_rows: Optional[bool] = typer.Option(None, "--keep-rows/--no-keep-rows",
                                             help="Also write the row files (default: the experiment's, off)."),
    threads: Optional[int] = typer.Option(None, "--threads", help="Numba threads (default: numba's)."),
    force: bool = typer.Option(False, "--force", help="Replace the results already in OUT."),
    resume: bool = typer.Option(False, "--resume", help="Continue a stopped study in OUT (same experiment)."),
    do_report: bool = typer.Option(True, "--report/--no-report", help="Write the balance report to OUT/report."),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", help="Override the rule set (blood-rage, valhalla)."),
    players: Optional[int] = typer.Option(None, "--players", help="Override the clans per game."),
    lineup: Optional[str] = typer.Option(None, "--lineup", help="Override the lineup (comma-separated)."),
    sweep: Optional[str] = typer.Option(None, "--sweep", help="Valhalla god sweep: gods (60 ordered) or god-sets (10)."),
    mode: Optional[str] = typer.Option(None, "--mode", help="rainbow-bridge: Blood Rage then Valhalla."),
) -> None:
    """Run an experiment (or the built-in default) with bounded memory and write its balance report."""
    from analysis.experiment import DEFAULT_EXPERIMENT, ExperimentError, check, load_experiment
    try:
        try:
            exp = load_experiment(experiment) if experiment is not None else DEFAULT_EXPERIMENT
            exp = exp.with_(games=games, seed=seed, batch_size=batch_size, keep_rows=keep_rows, ruleset=ruleset,
                            players=players, sweep=sweep, mode=mode,
                            lineup=[x.strip() for x in lineup.split(",")] if lineup else None)
            check(exp, "command line")
        except ExperimentError as exc:
            raise UsageError(str(exc)) from None
        if resume and exp.keep_rows:
            raise UsageError("--resume continues a stats-only study: drop --keep-rows")
        patches = list(exp.patches) + ([(Path(f"{exp.source} [patch]"), exp.inline_patch)] if exp.inline_patch else [])
        try:
            option = exp.option_args() + _module_options(exp.modules)
            rs, names, pols = _setup(exp.players, ",".join(exp.lineup), option, exp.ruleset, patches, exp.sweep,
                                     exp.mode)
        except UsageError as exc:
            if experiment is None:
                raise
            msg = str(exc).replace("--option: options:", "options:").replace("--players", "players") \
                .replace("--module", "modules").replace("--option", "options")
            raise UsageError(msg if msg.startswith(str(experiment)) else f"{experiment}: {msg}") from None
        if not resume:
            _check_out(out, force)
        _set_threads(threads)
    except UsageError as exc:
        _fail(str(exc))
    _warn_sweep(rs, names, exp.games, exp.rotate)
    code = _run(rs, names, pols, exp.players, exp.games, exp.seed, out, exp.batch_size, option, exp.rotate,
                exp.keep_rows, resume, extra_meta={"experiment": exp.name, "experiment_file": exp.source,
                                                   "sweep": exp.sweep, "mode": exp.mode})
    if code == 0 and do_report:
        from reports.report import RunDataError, build_report
        try:
            written = build_report(out, out / "report")
        except RunDataError as exc:
            _fail(str(exc))
        typer.echo(f"report: {out / 'report' / 'report.html'} ({len(written)} files)")
    raise typer.Exit(code)


def _paired_setup(players, lineup, option, module, ruleset, games, seed, batch_size, out, force, threads):
    """Check the arguments shared by compare and ablate (the caller checks OUT last)."""
    if not 0 <= seed < 2**64:
        raise UsageError(f"--seed {seed}; allowed: 0..{2**64 - 1}")
    if not 1 <= games <= MAX_GAMES:
        raise UsageError(f"--games {games}; allowed: 1..{MAX_GAMES:,}")
    if batch_size < 1:
        raise UsageError(f"--batch-size {batch_size}; allowed: 1 or more")
    option = (option or []) + _module_options(module)
    rs, names, pols = _setup(players, lineup, option, ruleset)
    return rs, names, pols, option


def _play_arms(rs_a, rs_b, arms, names, pols, players, games, seed, out, batch_size, option, rotate,
               card=None, ages=None):
    """Play the two arms into OUT/<arm>/ (stats; report-ready); returns (sums, stats_a, stats_b, code)."""
    from rich.console import Console

    from analysis.paired import run_paired
    from analysis.runner import RunWriter
    writers = []
    for rs, arm in zip((rs_a, rs_b), arms):
        d = out / arm
        d.mkdir(parents=True, exist_ok=True)
        meta = _meta(rs, names, players, games, seed, batch_size, option, rotate, False, arm=arm)
        meta["draft_rules"] = getattr(rs, "draft_note", None)
        writers.append(RunWriter(d, meta, False))
    err = Console(stderr=True)
    code, status = 0, "complete"
    stop = StopFlag()
    old = _stop_on_signals(stop)
    sums = None
    try:
        for w in writers:
            w.open()
        with console.progress(err) as prog:
            task = prog.add_task("paired games", total=games)
            sums = run_paired(rs_a, rs_b, names, pols, seed, games, batch_size, rotate, writers[0], writers[1],
                              card, ages, progress=lambda n: prog.update(task, advance=n), stop=stop)
    except KeyboardInterrupt:
        code, status = 128 + stop.signum, "interrupted"
        err.print(f"interrupted after {writers[1].meta['games_done']:,} paired games; partial results kept in {out}")
        import pandas as pd
        p = out / "paired.parquet"
        sums = pd.read_parquet(p) if p.is_file() else None
    finally:
        _restore_signals(old)
        for w in writers:
            w.close()
            w.meta.update(finished=_now(), status=status)
            w.write_meta()
    return sums, writers[0].stats, writers[1].stats, code


@app.command()
def compare(
    patch: list[Path] = typer.Option(..., "--patch", help="Card patch (TOML) of the variant arm (repeatable)."),
    players: int = typer.Option(4, "--players", help="Clans per game, 2..5."),
    lineup: Optional[str] = typer.Option(None, "--lineup", help="Comma-separated strategy per seat (default: all greedy)."),
    games: int = typer.Option(20_000, "--games", help="Games per arm (the same games in both)."),
    seed: int = typer.Option(1, "--seed", help="Master seed (shared by both arms)."),
    out: Path = typer.Option(..., "--out", help="Output directory: baseline/, variant/, compare_*.csv."),
    batch_size: int = typer.Option(10_000, "--batch-size", help="Games per batch."),
    option: Optional[list[str]] = typer.Option(None, "--option", help="Rule option key=value (repeatable)."),
    module: Optional[list[str]] = typer.Option(None, "--module", help="Rule module (repeatable): gods-of-asgard."),
    ruleset: str = typer.Option("blood-rage", "--ruleset", help="Rule set directory under simulator/data/."),
    rotate: bool = typer.Option(True, "--rotate/--no-rotate", help="Seat rotation on shared seeds."),
    threads: Optional[int] = typer.Option(None, "--threads", help="Numba threads (default: numba's)."),
    force: bool = typer.Option(False, "--force", help="Replace the results already in OUT."),
    top: int = typer.Option(15, "--top", help="Rows of each 'what moved' table to print."),
) -> None:
    """What-if balance: the baseline card set vs a patched one on the same seeds and lineups;
    prints what moved (per strategy paired; per card, god pair and stat path with BH correction)."""
    try:
        rs_a, names, pols, option = _paired_setup(players, lineup, option, module, ruleset, games, seed,
                                                  batch_size, out, force, threads)
        try:
            from simulator.core.loading import RulesError
            from simulator.engines import load_ruleset
            rs_b = load_ruleset(ruleset, options=dict(parse_option(o) for o in option), patch=list(patch))
            rs_b.check_players(players)
        except RulesError as exc:
            raise UsageError(str(exc)) from None
        _check_out(out, force)  # after every check: --force deletes nothing for a bad command
        _set_threads(threads)
    except UsageError as exc:
        _fail(str(exc))
    sums, sa, sb, code = _play_arms(rs_a, rs_b, ("baseline", "variant"), names, pols, players, games, seed, out,
                                    batch_size, option, rotate)
    if sums is None or not len(sums):
        raise typer.Exit(code)
    from analysis.paired import compare_tables
    tabs = compare_tables(sa, sb, sums)
    for k, df in tabs.items():
        df.to_csv(out / f"compare_{k}.csv", index=False)
    console.print_wide(console.compare_tables_rich(tabs, sa.games, top))
    from reports.paired import plot_compare
    plot_compare(tabs["strategy"], tabs.get("card_iwd"), f"Variant − baseline ({', '.join(map(str, patch))}), "
                 f"{sa.games:,} paired games", out / "compare.png")
    flagged = int(tabs["card_iwd"]["significant"].sum()) if "card_iwd" in tabs else 0
    typer.echo(f"{flagged} cards flagged (Δ IWD, 5% level after Benjamini–Hochberg); figure {out / 'compare.png'}; "
               f"tables in {out}/compare_*.csv; "
               f"reports: volva report {out}/variant --out {out}/variant/report")
    raise typer.Exit(code)


@app.command()
def ablate(
    card: str = typer.Argument(..., help="Card name as in cards.csv (every age it appears in, or --age)."),
    players: int = typer.Option(4, "--players", help="Clans per game, 2..5."),
    lineup: Optional[str] = typer.Option(None, "--lineup", help="Comma-separated strategy per seat (default: all greedy)."),
    games: int = typer.Option(20_000, "--games", help="Games per arm (the same games in both)."),
    seed: int = typer.Option(1, "--seed", help="Master seed (shared by both arms)."),
    out: Path = typer.Option(..., "--out", help="Output directory: forced/, banned/, ablate.csv."),
    age: Optional[list[int]] = typer.Option(None, "--age", help="Only the card's copies of this age (repeatable)."),
    ban: str = typer.Option("removed", "--ban", help="How the banned arm bans it: 'removed' (out of the deck) or "
                                                    "'dealt' (dealt, but no clan may draft it: the same deals)."),
    batch_size: int = typer.Option(10_000, "--batch-size", help="Games per batch."),
    option: Optional[list[str]] = typer.Option(None, "--option", help="Rule option key=value (repeatable)."),
    module: Optional[list[str]] = typer.Option(None, "--module", help="Rule module (repeatable): gods-of-asgard."),
    ruleset: str = typer.Option("blood-rage", "--ruleset", help="Rule set directory under simulator/data/."),
    rotate: bool = typer.Option(True, "--rotate/--no-rotate", help="Seat rotation on shared seeds."),
    threads: Optional[int] = typer.Option(None, "--threads", help="Numba threads (default: numba's)."),
    force: bool = typer.Option(False, "--force", help="Replace the results already in OUT."),
) -> None:
    """Causal effect of a card: paired games where it is forced (a clan must draft it when it holds
    it) vs banned; prints Δ win rate of the clans that drafted it, with a paired 95% interval."""
    from simulator.core import enums as E
    try:
        if ban not in ("removed", "dealt"):
            raise UsageError(f"--ban {ban!r}; allowed: 'removed', 'dealt'")
        for a in age or []:
            if not 1 <= a <= 3:
                raise UsageError(f"--age {a}; allowed: 1..3")
        rs, names, pols, option = _paired_setup(players, lineup, option, module, ruleset, games, seed,
                                                batch_size, out, force, threads)
        from simulator.core.loading import RulesError
        if age and getattr(rs, "engine", "") == "valhalla":
            _fail("--age: Blood Rage: Valhalla has one deck (cards have no age); drop --age")
        try:
            ids = [i for i in rs.card_ids(card) if not age or int(rs.tables.card_age[i]) in age]
            if not ids:
                raise RulesError(f"card {card!r} has no copy in age(s) {age}")
            rs_f = rs.with_draft_rule(card, E.DRAFT_FORCED, ids)
            rs_b = rs.with_draft_rule(card, E.DRAFT_BANNED, ids) if ban == "dealt" else rs.without_card(card, ids)
            rs_b.check_players(players)
        except RulesError as exc:
            raise UsageError(str(exc)) from None
        rs_f.draft_note = f"forced: {card}" + (f" (ages {age})" if age else "")
        rs_b.draft_note = f"banned ({ban}): {card}" + (f" (ages {age})" if age else "")
        _check_out(out, force)  # after every check: --force deletes nothing for a bad command
        _set_threads(threads)
    except UsageError as exc:
        _fail(str(exc))
    sums, sf, sb, code = _play_arms(rs_f, rs_b, ("forced", "banned"), names, pols, players, games, seed, out,
                                    batch_size, option, rotate, card, age)
    if sums is None or not len(sums):
        raise typer.Exit(code)
    import pandas as pd

    from analysis.paired import paired_table
    # sign: forced - banned (the arms were played as A = forced, B = banned)
    flip = sums.assign(d=-sums["d"], gd=-sums["gd"])
    held = flip[flip["holder"] == 1]
    rows = []
    if len(held):
        per = paired_table(held, ["strategy"]).assign(group="drafted it (forced arm)")
        allh = paired_table(held.assign(strategy="(all)"), ["strategy"]).assign(group="drafted it (forced arm)")
        rows += [allh, per]
    rows.append(paired_table(flip, ["strategy"]).assign(group="all clans"))
    res = pd.concat(rows, ignore_index=True)[["group", "strategy", "n", "d_win", "ci_low", "ci_high", "p_value",
                                              "d_glory", "glory_ci_low", "glory_ci_high"]]
    res.to_csv(out / "ablate.csv", index=False)
    from reports.paired import plot_ablation
    plot_ablation(res, f"{card} ({'ages ' + ', '.join(map(str, age)) if age else 'all ages'}; ban: {ban})",
                  out / "ablate.png")
    console.print_wide([console.delta_table(res, f"{card}: forced − banned ({ban}), paired by game and seat, "
                                   f"{sf.games:,} games", ["group", "strategy"])])
    n_held = int(held["n"].sum()) if len(held) else 0
    typer.echo(f"{n_held:,} clans drafted {card} in the forced arm; table {out / 'ablate.csv'}, "
               f"figure {out / 'ablate.png'}")
    raise typer.Exit(code)


# --------------------------------------------------------------------------- strategies

strategies_app = typer.Typer(add_completion=False, no_args_is_help=True,
                             help="List, show and validate strategies (built-ins, the library, your files).")
app.add_typer(strategies_app, name="strategies")

@strategies_app.command("list")
def strategies_list(
    ruleset: str = typer.Option("blood-rage", "--ruleset", help="blood-rage or valhalla (its own strategies)."),
) -> None:
    """One strategy a line: name, then its plan (built-ins, then the library archetypes)."""
    if ruleset == "valhalla":
        from strategies.valhalla import DESCRIPTIONS
        w = max(len(n) for n in DESCRIPTIONS)
        for n, plan in DESCRIPTIONS.items():
            typer.echo(f"{n:<{w}}  {plan}")
        return
    if ruleset != "blood-rage":
        _fail(f"--ruleset {ruleset!r}; allowed: blood-rage, valhalla")
    from strategies.builtin import archetypes
    try:
        lib = archetypes()
    except ValueError as exc:  # a malformed library file
        _fail(str(exc))
    rows = [("random", describe.BUILTIN_PLANS["random"]), ("greedy", describe.BUILTIN_PLANS["greedy"])]
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

    from simulator.core import enums as E
    try:
        sname, plan, kind, params, path = describe.strategy_object(name)
    except ValueError as exc:
        _fail(str(exc))
    typer.echo(f"{sname}  ({path if path else 'built-in'})")
    typer.echo(f"plan: {plan or '(none given)'}")
    if kind == E.POL_RANDOM:
        typer.echo("policy: random (uniform over the legal choices; no parameters)")
        return
    typer.echo("policy: greedy heuristic")
    rows = describe.strategy_differences(params, describe.card_names())
    if not rows:
        typer.echo("all parameters at greedy's defaults")
        return
    t = Table(title=f"{sname}: parameters that differ from greedy's defaults", title_justify="left")
    for col in ("section", "parameter", "value", "greedy", "meaning"):
        t.add_column(col, justify="right" if col in ("value", "greedy") else "left", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    console.print_wide([t])


@strategies_app.command("validate")
def strategies_validate(
    file: Path = typer.Argument(..., help="Strategy file (TOML; format in strategies/spec.py)."),
) -> None:
    """Check a strategy file: prints 'ok: NAME' (exit 0) or one 'error: FILE: key: ...' line (exit 2)."""
    from strategies.spec import load_strategy
    try:
        s = load_strategy(file, describe.card_names())
    except ValueError as exc:
        _fail(str(exc))
    typer.echo(f"ok: {s.name}")


# --------------------------------------------------------------------------- tournament

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
    force: bool = typer.Option(False, "--force", help="Replace the tables already in OUT."),
) -> None:
    """Every combination of --players distinct strategies, seats rotated on shared seeds; prints the
    ranking (win rate, 95% Wilson interval, mean Glory) and the head-to-head matrix."""
    from simulator.core import enums as E
    try:
        if not 2 <= players <= E.MAX_PLAYERS:
            raise UsageError(f"--players {players}; allowed: 2..{E.MAX_PLAYERS}")
        if not 0 <= seed < 2**64:
            raise UsageError(f"--seed {seed}; allowed: 0..{2**64 - 1}")
        if not 1 <= games <= MAX_GAMES:
            raise UsageError(f"--games {games}; allowed: 1..{MAX_GAMES:,}")
        names = [s.strip() for s in strategies.split(",")]
        if any(not n for n in names):
            raise UsageError(f"--strategies {strategies!r}: empty name")
        from analysis.tournament import combinations
        from simulator.core.loading import RulesError
        from simulator.engines import load_ruleset
        opts = dict(parse_option(o) for o in (option or []) + _module_options(module))
        try:
            rs = load_ruleset(ruleset, options=opts)
            rs.check_players(players)
        except RulesError as exc:
            raise UsageError(str(exc)) from None
        from strategies.lineup import resolve_for
        resolve = resolve_for(rs.engine)
        try:
            pols = [resolve(n) for n in names]
            combos = combinations(names, players)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if out is not None:
            _check_out(out, force)
        _set_threads(threads)
    except UsageError as exc:
        _fail(str(exc))

    from rich.console import Console

    from analysis.tournament import head_to_head, ranking, round_games, run_tournament
    n_games = round_games(games, players)
    err = Console(stderr=True)
    if n_games != games:
        err.print(f"--games {games} rounded up to {n_games} (a multiple of {players} seat rotations)")
    with console.progress(err) as prog:
        task = prog.add_task(f"{len(combos)} combinations", total=len(combos) * n_games)
        clans = run_tournament(rs, names, players, n_games, seed, policies=pols,
                               progress=lambda n: prog.update(task, advance=n))
    rank = ranking(clans)
    mat = head_to_head(clans, order=list(rank["strategy"]))
    console.print_wide([console.rank_table(rank, players), console.h2h_table(mat)])
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


def main() -> None:
    """Console entry point: typer's usage errors (unknown option, bad value) as one line too."""
    try:
        rc = app(standalone_mode=False)
    except Exception as exc:  # typer vendors click: match its exception classes by name
        kinds = {c.__name__ for c in type(exc).__mro__}
        if "UsageError" in kinds and not exc.format_message().strip():  # bare `volva`: help shown
            raise SystemExit(EXIT_USAGE) from None
        if "UsageError" in kinds:
            ctx = getattr(exc, "ctx", None)
            cmd = ctx.command_path if ctx is not None else "volva"
            sys.stderr.write(f"error: {' '.join(exc.format_message().split())} (see '{cmd} --help')\n")
            raise SystemExit(EXIT_USAGE) from None
        if "Abort" in kinds:
            raise SystemExit(130) from None
        raise
    raise SystemExit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
