"""Volva command line: ``volva run``, ``volva replay``, ``volva scenario``, ``volva report``,
``volva study``, ``volva compare``, ``volva ablate``, ``volva tournament``,
``volva strategies list|show|validate``, ``volva version`` (and ``volva --version``).

This module parses arguments and prints; the work is done in ``analysis`` (session: checks and
set-up; play: the batch loop; paired, tournament: the tables). Each option shared by commands
is declared once below as an ``Annotated`` alias, with its check.

User errors (unknown strategy, bad player count or lineup, bad rule option, malformed rule set,
unusable --out) print ONE line ``error: ...`` on stderr and exit with code 2, before any game is
played (``analysis.session.UsageError``).
"""
from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from volva.analysis import play, session
from volva.analysis.provenance import versions_line
from volva.analysis.session import UsageError, parse_option  # noqa: F401  (also the CLI's public names)
from volva.reports import console

app = typer.Typer(add_completion=True, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Volva: Monte Carlo balance analyser for the board game Blood Rage.")

EXIT_USAGE = 2


def _fail(msg: str) -> None:
    sys.stderr.write(f"error: {' '.join(str(msg).split())}\n")
    sys.stderr.flush()
    raise typer.Exit(EXIT_USAGE)


@contextlib.contextmanager
def _usage():
    """Turn a UsageError raised inside into the one-line error and exit code 2."""
    try:
        yield
    except UsageError as exc:
        _fail(str(exc))


def _checked(check):
    """An option callback running ``check(value)`` (skipped for None: not given)."""
    def callback(value):
        if value is not None:
            with _usage():
                check(value)
        return value
    return callback


# --------------------------------------------------------------------------- shared options
# One alias per option and meaning; the default is the command's (``players: Players = 4``).

_SEED, _GAMES = _checked(session.check_seed), _checked(session.check_games)
_BATCH, _PLAYERS = _checked(session.check_batch_size), _checked(session.check_players)

Players = Annotated[int, typer.Option("--players", callback=_PLAYERS,
                                      help="Clans per game (Blood Rage 2..5, Blood Rage: Valhalla 3..5, "
                                           "Valhalla dice game 2..6).")]
PlayersOverride = Annotated[int | None, typer.Option("--players", help="Override the clans per game.",
                                                        callback=_PLAYERS)]
Lineup = Annotated[str | None, typer.Option("--lineup", help="Comma-separated strategy per seat "
                                               "(default: all greedy).")]
LineupOverride = Annotated[str | None, typer.Option("--lineup", help="Override the lineup (comma-separated).")]
Seed = Annotated[int, typer.Option("--seed", help="Master seed; game g uses game_seeds(seed, g, 1).",
                                   callback=_SEED)]
ReplaySeed = Annotated[int, typer.Option("--seed", help="Master seed of the run (default 1, as volva run).",
                                         callback=_SEED)]
ArmSeed = Annotated[int, typer.Option("--seed", help="Master seed (shared by both arms).", callback=_SEED)]
TournamentSeed = Annotated[int, typer.Option("--seed", help="Master seed (the same seeds for every combination).",
                                             callback=_SEED)]
SeedOverride = Annotated[int | None, typer.Option("--seed", help="Override the experiment's master seed.",
                                                     callback=_SEED)]
Games = Annotated[int, typer.Option("--games", help="Games to play.", callback=_GAMES)]
ArmGames = Annotated[int, typer.Option("--games", help="Games per arm (the same games in both).", callback=_GAMES)]
TournamentGames = Annotated[int, typer.Option("--games", help="Games per combination (rounded up to a multiple "
                                              "of --players).", callback=_GAMES)]
GamesOverride = Annotated[int | None, typer.Option("--games", help="Override the experiment's games.",
                                                      callback=_GAMES)]
BatchSize = Annotated[int, typer.Option("--batch-size", help="Games per kernel call / Parquet row group.",
                                        callback=_BATCH)]
ArmBatchSize = Annotated[int, typer.Option("--batch-size", help="Games per batch.", callback=_BATCH)]
BatchSizeOverride = Annotated[int | None, typer.Option("--batch-size", help="Override the games per batch.",
                                                          callback=_BATCH)]
Options = Annotated[list[str] | None, typer.Option("--option", help="Rule option key=value (repeatable).")]
Modules = Annotated[list[str] | None, typer.Option("--module", help="Rule module (repeatable): gods-of-asgard (Blood Rage); "
                                                                           "loki-deception, king-of-the-hill (valhalla-dice).")]
Ruleset = Annotated[str, typer.Option("--ruleset", help="Rule set directory under simulator/data/.")]
RulesetOverride = Annotated[str | None, typer.Option("--ruleset", help="Override the rule set (blood-rage, "
                                                        "valhalla, valhalla-dice).")]
StrategiesRuleset = Annotated[str, typer.Option("--ruleset", help="blood-rage, valhalla or valhalla-dice (its own strategies).")]
Threads = Annotated[int | None, typer.Option("--threads", help="Numba threads (default: numba's).")]
Scheduler = Annotated[str | None, typer.Option(
    "--scheduler", help="Play the batches as tasks on the Dask cluster whose scheduler is at ADDRESS "
    "(e.g. tcp://10.0.0.5:8786); the results are identical to a local run (README: 'On a cluster').")]
Workers = Annotated[int | None, typer.Option("--workers", help="Play the batches on a local Dask cluster of N "
                                             "worker processes (--threads: numba threads in each).")]
Force = Annotated[bool, typer.Option("--force", help="Replace the results already in OUT.")]
ForceTables = Annotated[bool, typer.Option("--force", help="Replace the tables already in OUT.")]
Rotate = Annotated[bool, typer.Option("--rotate/--no-rotate", help="Rotate the lineup through the seats on shared "
                                      "seeds (game g: rotation g mod P).")]
ArmRotate = Annotated[bool, typer.Option("--rotate/--no-rotate", help="Seat rotation on shared seeds.")]
ReplayRotate = Annotated[bool, typer.Option("--rotate/--no-rotate", help="As the run: seat rotation on or off.")]
Patch = Annotated[list[Path] | None, typer.Option("--patch", help="Card patch file (TOML, repeatable).")]
ReplayPatch = Annotated[list[Path] | None, typer.Option("--patch", help="As the run: card patch file(s).")]
UntilDecided = Annotated[bool, typer.Option(
    "--until-decided", help="Play look after look until a group-sequential test decides (an effect, no effect "
    "beyond --min-effect, or --target-halfwidth reached) or --games is spent; intervals printed for the "
    "decided quantities are repeated confidence intervals, valid although the data were looked at after "
    "every look (analysis/sequential.py).")]
MinEffect = Annotated[float | None, typer.Option("--min-effect", min=0.0, max=1.0, help="With --until-decided: "
                                                 "the smallest change of win rate worth detecting (default 0.01 "
                                                 "= 1 point).")]
TargetHalfwidth = Annotated[float | None, typer.Option("--target-halfwidth", min=0.0, max=1.0, help="With "
                                                       "--until-decided: also stop once the interval's half-width "
                                                       "is at most this.")]
Alpha = Annotated[float | None, typer.Option("--alpha", min=0.0001, max=0.5, help="With --until-decided: the "
                                             "error rate over all the looks and decided quantities together "
                                             "(default 0.05).")]
Look = Annotated[int | None, typer.Option("--look", min=1, help="With --until-decided: games between looks "
                                          "(default: --games / 20; rounded up to a multiple of the player "
                                          "count).")]
Population = Annotated[list[str] | None, typer.Option(
    "--population", help="NAME=LINEUP, repeatable, or 'default' (an archetype, a greedy and a tuned field): "
    "play the experiment once per bot population into OUT/NAME/ and say per card whether its effect is "
    "consistent, bot-dependent, partial or absent across them (analysis/populations.py).")]
VariantPatch = Annotated[list[Path] | None, typer.Option("--patch", help="Card patch (TOML) of the variant arm "
                                                         "(repeatable).")]
VariantOption = Annotated[list[str] | None, typer.Option("--variant-option", help="Rule option key=value of the variant "
                                                         "arm only (repeatable).")]
VariantModule = Annotated[list[str] | None, typer.Option("--variant-module", help="Rule module of the variant arm only "
                                                         "(repeatable), e.g. loki-deception.")]
Sweep = Annotated[str | None, typer.Option("--sweep", help="Valhalla: cycle the games through every ordered god "
                                              "combination (gods: 60) or set of 3 (god-sets: 10).")]
ReplaySweep = Annotated[str | None, typer.Option("--sweep", help="As the run: Valhalla god sweep (gods, "
                                                    "god-sets).")]
StudySweep = Annotated[str | None, typer.Option("--sweep", help="Valhalla god sweep: gods (60 ordered) or "
                                                   "god-sets (10).")]
Mode = Annotated[str | None, typer.Option("--mode", help="rainbow-bridge: a Blood Rage game, then a Valhalla game "
                                             "with starting Glory 12/8/4/0; lineup items BASE:VALHALLA.")]
ReplayMode = Annotated[str | None, typer.Option("--mode", help="As the run: rainbow-bridge.")]
StudyMode = Annotated[str | None, typer.Option("--mode", help="rainbow-bridge: Blood Rage then Valhalla.")]
KeepRows = Annotated[bool, typer.Option("--keep-rows/--no-keep-rows", help="Write clans/picks/plays.parquet "
                                        "(stats/ is always written).")]
KeepRowsOverride = Annotated[bool | None, typer.Option("--keep-rows/--no-keep-rows", help="Also write the row "
                                                          "files (default: the experiment's, off).")]
Resume = Annotated[bool, typer.Option("--resume", help="Continue a stopped --no-keep-rows run in OUT.")]
StudyResume = Annotated[bool, typer.Option("--resume", help="Continue a stopped study in OUT (same experiment).")]
RunOut = Annotated[Path, typer.Option("--out", help="Output directory (created if missing).")]
StudyOut = Annotated[Path, typer.Option("--out", help="Run directory; the report goes to OUT/report.")]
CompareOut = Annotated[Path, typer.Option("--out", help="Output directory: baseline/, variant/, compare_*.csv.")]
AblateOut = Annotated[Path, typer.Option("--out", help="Output directory: forced/, banned/, ablate.csv.")]
ReportOut = Annotated[Path, typer.Option("--out", help="Report directory (created if missing).")]
TournamentOut = Annotated[Path | None, typer.Option("--out", help="Also write tournament.csv, ratings.csv, "
                                                       "head_to_head.csv (and sequential.csv) here.")]
ScenarioOut = Annotated[Path | None, typer.Option("--out", help="Also write the JSON result to this file.")]


def _print_version(value: bool) -> None:
    if value:
        typer.echo(versions_line())
        raise typer.Exit()


@app.callback()
def _main(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                                    help="Print the Volva, Python, numpy and numba versions.")] = False,
) -> None:
    """Volva: Monte Carlo balance analyser for the board game Blood Rage."""
    ctx.call_on_close(session.release_locks)  # the output directory's lock ends with the command


# --------------------------------------------------------------------------- output helpers

@contextlib.contextmanager
def _progress(description: str, total: int, completed: int = 0, unit: str = "games"):
    """A progress bar on stderr (rate in ``unit``/s, ETA); yields advance(n)."""
    from rich.console import Console
    with console.progress(Console(stderr=True), unit) as prog:
        task = prog.add_task(description, total=total, completed=completed, resumed=completed)  # rate: new games
        yield lambda n: prog.update(task, advance=n)


def _err(text: str) -> None:
    from rich.console import Console
    Console(stderr=True).print(text)


_said = {"interrupted": False}  #: a command has said how it was interrupted (main() adds a line otherwise)


def _interrupted(text: str) -> None:
    """The one line an interrupted command writes: what is kept, what is not."""
    _said["interrupted"] = True
    _err(text)


def _warn(text: str | None) -> None:
    if text:
        typer.echo(text, err=True)


@contextlib.contextmanager
def _cluster(scheduler: str | None, workers: int | None, threads: int | None, out: Path | None = None,
             force: bool = False, resume: bool = False):
    """--scheduler / --workers: where the batches are played (analysis.cluster; closed on exit).
    Joined before OUT is claimed with --force, so a cluster that cannot be used leaves OUT as it
    was; an OUT that holds results without --force is refused before a cluster starts."""
    from volva.analysis.cluster import ClusterError, batches_for
    made = [d for d in ([out, *out.parents] if out is not None else []) if not d.exists()]  # what a claim creates
    if out is not None and not force and not resume and (scheduler is not None or workers is not None):
        _claim_out(out, False, False)
    try:
        batches = batches_for(scheduler, workers, threads)
    except ClusterError as exc:
        if made:  # bad input leaves nothing behind: the folders the claim made, if still empty
            session.release_locks()
            with contextlib.suppress(OSError):
                for d in made:
                    d.rmdir()
        _fail(str(exc))
    try:
        yield batches
    finally:
        batches.close()


def _claim_out(out: Path, force: bool, resume: bool) -> None:
    """OUT for a new run (empty, or emptied with --force) or locked for --resume."""
    with _usage():
        if not resume:
            session.check_out(out, force)
        elif out.is_dir():
            session.lock_out(out)


def _play(run: play.Run, out: Path, keep_rows: bool, resume: bool, extra_meta: dict) -> int:
    """Play ``run`` into OUT, print its win tables; the exit code."""
    from rich.console import Console
    with _usage():
        res = play.play_run(run, out, keep_rows, resume, extra_meta, progress=_progress)
    if res.status == "interrupted":
        _interrupted(f"interrupted after {res.games_done:,} games; partial results kept in {out}"
                     + ("" if keep_rows else " (continue with --resume)"))
    if res.games_done:
        con = Console()
        console.print_wide(console.win_tables(res.stats[0]))
        con.print(f"{res.games_done:,} game{'' if res.games_done == 1 else 's'} ({res.status}); output in {out}")
    return res.code


def _play_arms(run: play.Run, rs_b, arms, out: Path, card=None, ages=None, decide=None, variant_args=()) -> play.Outcome:
    res = play.play_arms(run, rs_b, arms, out, card, ages, progress=_progress, decide=decide, variant_args=variant_args)
    if res.status == "interrupted":
        _interrupted(f"interrupted after {res.games_done:,} paired games; partial results kept in {out}")
    return res


def _check_sequential(on: bool, games: int, look: int | None, alpha: float | None, min_effect: float | None,
                      target: float | None) -> None:
    """The --until-decided options: only with it, --look at most --games. Raises UsageError."""
    given = [n for n, v in (("--look", look), ("--alpha", alpha), ("--min-effect", min_effect),
                            ("--target-halfwidth", target)) if v is not None]
    if given and not on:
        raise session.UsageError(f"{given[0]}: only with --until-decided (it sets the sequential test)")
    if look is not None and look > games:
        raise session.UsageError(f"--look {look}: more than --games {games}; allowed: 1..{games}")


def _monitor(on: bool, games: int, look: int | None, players: int, batch_size: int, alpha: float | None,
             streams: int, min_effect: float | None, target: float | None):
    """--until-decided: (Monitor, games per batch = games per look), or (None, batch_size) when off.
    Defaults: a look every --games / 20 games, alpha 0.05, min effect 0.01."""
    if not on:
        return None, batch_size
    from volva.analysis.sequential import Monitor, design, looks_for
    looks = looks_for(games, look or max(games // 20, 1), players)
    step = int(looks[0]) if len(looks) > 1 else games
    return Monitor(design(looks, 0.05 if alpha is None else alpha, streams),
                   0.01 if min_effect is None else min_effect, target), step


def _sequential_report(mon, out: Path | None, what: str) -> None:
    """Print the sequential test's decision per stream and write OUT/sequential.csv (every look)."""
    if mon is None:
        return
    from rich.table import Table
    t = Table(title=f"{what}: {mon.summary()}", title_justify="left")
    for c in ("quantity", "n", "estimate", f"{mon.design.level:.0%} repeated CI", "decision"):
        t.add_column(c, justify="left" if c in ("quantity", "decision") else "right", no_wrap=True)
    for r in mon.table().itertuples():
        t.add_row(str(r.stream), f"{r.n:,}", f"{r.mean:+.4f}", f"{r.rci_low:+.4f}…{r.rci_high:+.4f}", r.decision)
    console.print_wide([t])
    where = "not written (no --out)"
    if out is not None:
        mon.history_frame().to_csv(out / "sequential.csv", index=False)
        where = f"in {out / 'sequential.csv'}"
    typer.echo(f"stopped after {mon.games:,} games ({mon.status}); every look {where}; the other tables' "
               "intervals are fixed-sample ones: read them as exploratory after a sequential stop")


# --------------------------------------------------------------------------- run, replay, scenario, report

@app.command()
def run(
    players: Players = 4,
    lineup: Lineup = None,
    games: Games = 100_000,
    seed: Seed = 1,
    out: RunOut = ...,
    batch_size: BatchSize = 10_000,
    option: Options = None,
    threads: Threads = None,
    ruleset: Ruleset = "blood-rage",
    force: Force = False,
    module: Modules = None,
    rotate: Rotate = True,
    patch: Patch = None,
    keep_rows: KeepRows = True,
    resume: Resume = False,
    sweep: Sweep = None,
    mode: Mode = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """Play GAMES games into OUT: stats/ (sufficient statistics), clans/picks/plays.parquet, run.json."""
    with _usage():
        if resume and keep_rows:
            raise UsageError(session.resume_rows_refusal(out, "pass --no-keep-rows"))
        option = session.option_args(option, module)
        rs, names, pols = session.setup(players, lineup, option, ruleset, patch, sweep, mode)
        session.set_threads(threads)
    with _cluster(scheduler, workers, threads, out, force, resume) as batches:
        run_ = play.Run(rs, names, pols, players, games, seed, batch_size, option, rotate, batches)
        _claim_out(out, force, resume)
        _warn(session.sweep_warning(rs, names, games, rotate))
        code = _play(run_, out, keep_rows, resume, {"sweep": sweep, "mode": mode})
    raise typer.Exit(code)


@app.command()
def replay(
    seed: ReplaySeed = 1,
    players: Players = 4,
    lineup: Lineup = None,
    game: Annotated[int, typer.Option("--game", help="Game id within the run (0-based).")] = 0,
    option: Options = None,
    ruleset: Ruleset = "blood-rage",
    module: Modules = None,
    rotate: ReplayRotate = True,
    patch: ReplayPatch = None,
    sweep: ReplaySweep = None,
    mode: ReplayMode = None,
) -> None:
    """Replay one game of a run and print its log as text."""
    with _usage():
        session.check_game(game)
        rs, names, pols = session.setup(players, lineup, session.option_args(option, module), ruleset, patch,
                                        sweep, mode)
    from volva.simulator.engines import replay_text
    typer.echo(replay_text(rs, names, pols, seed, game, rotate))


@contextlib.contextmanager
def _compile_notice(text: str):
    """Write ``text`` to a terminal's stderr when numba first compiles a kernel inside the block (a
    kernel loaded from the cache does not count): a scenario compiles the step kernels it calls
    one by one, silently, on an empty cache. Not on a pipe or file, whose stderr stays one line."""
    if not sys.stderr.isatty():
        yield
        return
    from numba.core import event

    class Notice(event.Listener):
        told = False

        def on_start(self, ev) -> None:
            if not self.told:
                self.told = True
                sys.stderr.write(text + "\n")

        def on_end(self, ev) -> None:
            pass

    with event.install_listener("numba:compile", Notice()):
        yield


@app.command()
def scenario(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML; format in docs/scenarios.md).")],
    out: ScenarioOut = None,
) -> None:
    """Set up a position from FILE, run its scripted steps with the engine, print the result as JSON."""
    from volva.simulator.core.loading import RulesError
    from volva.strategies.lineup import run_scenario
    try:
        with _compile_notice("compiling the kernels this scenario needs (once per kernel cache, up to a minute)"):
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
    run_dir: Annotated[Path, typer.Argument(help="Directory written by `volva run`, `study`, `compare` or `ablate`.")],
    out: ReportOut = ...,
) -> None:
    """Write the balance report of RUN_DIR (PNG figures, report.html, report.pdf) to OUT."""
    from volva.reports.report import RunDataError, build_report
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


# --------------------------------------------------------------------------- study, compare, ablate

@app.command()
def study(
    experiment: Annotated[Path | None, typer.Argument(
        help="Experiment file (TOML; format in analysis/experiment.py). "
             "Default: the main job (4 archetypes, 200,000 games).")] = None,
    out: StudyOut = Path("runs/study"),
    games: GamesOverride = None,
    seed: SeedOverride = None,
    batch_size: BatchSizeOverride = None,
    keep_rows: KeepRowsOverride = None,
    threads: Threads = None,
    force: Force = False,
    resume: StudyResume = False,
    do_report: Annotated[bool, typer.Option("--report/--no-report",
                                            help="Write the balance report to OUT/report.")] = True,
    ruleset: RulesetOverride = None,
    players: PlayersOverride = None,
    lineup: LineupOverride = None,
    sweep: StudySweep = None,
    mode: StudyMode = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """Run an experiment (or the built-in default) with bounded memory and write its balance report."""
    with _usage():
        exp = session.study_experiment(experiment, games=games, seed=seed, batch_size=batch_size,
                                       keep_rows=keep_rows, ruleset=ruleset, players=players, sweep=sweep, mode=mode,
                                       lineup=[x.strip() for x in lineup.split(",")] if lineup else None)
        if resume and exp.keep_rows:
            raise UsageError(session.resume_rows_refusal(out, "drop --keep-rows") if keep_rows else
                             f"--resume continues a stats-only study, and {experiment} sets keep_rows = true: "
                             "a study that keeps rows starts again without --resume (--force)")
        given = tuple(f for f, v in (("--players", players), ("--sweep", sweep), ("--mode", mode),
                                     ("--ruleset", ruleset)) if v is not None)
        rs, names, pols, option = session.setup_experiment(exp, experiment, given)
        session.set_threads(threads)
    with _cluster(scheduler, workers, threads, out, force, resume) as batches:
        run_ = play.Run(rs, names, pols, exp.players, exp.games, exp.seed, exp.batch_size, option, exp.rotate,
                        batches)
        _claim_out(out, force, resume)
        _warn(session.sweep_warning(rs, names, exp.games, exp.rotate))
        if players is not None and not exp.lineup_given:  # the default lineup, cut or filled to --players
            _warn(f"default lineup for {exp.players} players: {', '.join(exp.lineup)} (the rule set's default "
                  "lineup, its first strategies, greedy beyond; --lineup chooses)")
        code = _play(run_, out, exp.keep_rows, resume, {"experiment": exp.name, "experiment_file": exp.source,
                                                        "sweep": exp.sweep, "mode": exp.mode})
    if code == 0 and do_report:
        from volva.reports.report import RunDataError, build_report
        try:
            written = build_report(out, out / "report")
        except RunDataError as exc:
            _fail(str(exc))
        except KeyboardInterrupt:  # the games are all in OUT/stats: only the report is unfinished
            _said["interrupted"] = True
            sys.stderr.write(f"interrupted while writing the report; the statistics are complete in {out} "
                             f"(write the report with: volva report {out} --out {out / 'report'})\n")
            raise typer.Exit(130) from None
        typer.echo(f"report: {out / 'report' / 'report.html'} ({len(written)} files)")
    raise typer.Exit(code)


@app.command()
def compare(
    patch: VariantPatch = None,
    players: Players = 4,
    lineup: Lineup = None,
    games: ArmGames = 20_000,
    seed: ArmSeed = 1,
    out: CompareOut = ...,
    batch_size: ArmBatchSize = 10_000,
    option: Options = None,
    module: Modules = None,
    ruleset: Ruleset = "blood-rage",
    rotate: ArmRotate = True,
    threads: Threads = None,
    force: Force = False,
    top: Annotated[int, typer.Option("--top", min=1, help="Rows of each 'what moved' table to print.")] = 15,
    population: Population = None,
    until_decided: UntilDecided = False,
    min_effect: MinEffect = None,
    target_halfwidth: TargetHalfwidth = None,
    alpha: Alpha = None,
    look: Look = None,
    variant_option: VariantOption = None,
    variant_module: VariantModule = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """What-if balance: the baseline vs a variant (card patches, rule options or modules of the
    variant arm) on the same seeds and lineups; prints what moved (per strategy paired; per card,
    god pair and stat path with BH correction). With --population: once per bot population, and a
    verdict per card across them."""
    with _usage():
        _check_sequential(until_decided, games, look, alpha, min_effect, target_halfwidth)
        option = session.option_args(option, module)
        patch = list(patch or [])
        variant_args = session.option_args(variant_option, variant_module, ("--variant-option", "--variant-module"))
        if not patch and not variant_args:
            raise session.UsageError("compare needs a variant arm: --patch FILE, --variant-option key=value or "
                                     "--variant-module NAME")
        what = ", ".join([*map(str, patch), *variant_args])
        if population:
            rs_a, pops = session.populations(population, lineup, players, option, ruleset)
        else:
            rs_a, names, pols = session.setup(players, lineup, option, ruleset)
            pops = [(None, names, pols)]
        rs_b = session.variant(ruleset, option + variant_args, patch, players)
        if not patch and rs_b.options == rs_a.options:
            why = ("--option/--module or the rule set's defaults already set them" if option
                   else "they are the rule set's defaults")
            raise session.UsageError(f"the variant arm ({', '.join(variant_args)}) plays the baseline's rules: "
                                     f"{why}; give the variant a change")
        if patch and rs_b.options == rs_a.options and session.same_tables(rs_a, rs_b):  # an A/A check, or a slip
            _warn(f"warning: the variant arm ({what}) plays the baseline's rules: the patch changes nothing the "
                  "engine reads (each value it sets is already the card's, or only words); both arms play the same games")
        mirror = [(n or "--lineup", ",".join(x)) for n, x, _ in pops if len(set(x)) < 2]
        if until_decided and mirror:
            raise session.UsageError(f"--until-decided: {mirror[0][0]} ({mirror[0][1]}) is a mirror lineup; compare "
                                     "decides on each strategy's change of win rate, which a mirror cannot move; "
                                     "give every lineup two or more strategies (or use ablate)")
        session.set_threads(threads)
    with _cluster(scheduler, workers, threads, out, force) as batches:
        _claim_out(out, force, False)  # after every check: --force deletes nothing for a bad command
        from volva.analysis.paired import strategy_streams, write_compare_tables
        from volva.analysis.populations import card_effects
        from volva.reports.paired import plot_compare
        effects, shapes, moved, code = [], [], [], 0
        for name, names, pols in pops:
            where = out if name is None else out / name
            if name is not None:
                _err(f"population {name}: {','.join(names)}")
            mon, batch = _monitor(until_decided, games, look, players, batch_size, alpha, len(set(names)), min_effect,
                                  target_halfwidth)
            run_ = play.Run(rs_a, names, pols, players, games, seed, batch, option, rotate, batches)
            res = _play_arms(run_, rs_b, ("baseline", "variant"), where,
                             decide=None if mon is None else lambda g, sums, m=mon: m.look(g, strategy_streams(sums)),
                             variant_args=variant_args)
            if res.sums is None or not len(res.sums):
                raise typer.Exit(res.code if name is None else
                                 _interrupted_populations(res.code, len(effects) + 1, len(pops), out))
            _sequential_report(mon, where, "strategy: paired change of win rate, variant − baseline")
            sa, sb = res.stats
            tabs = write_compare_tables(sa, sb, res.sums, where)
            plot_compare(tabs["strategy"], tabs.get("card_iwd"), f"Variant − baseline ({what}), "
                         f"{sa.games:,} paired games" + (f", population {name}" if name else ""), where / "compare.png")
            if name is None:
                console.print_wide(console.compare_tables_rich(tabs, sa.games, top, what))
                flagged = int(tabs["card_iwd"]["significant"].sum()) if "card_iwd" in tabs else 0
                typer.echo(f"{flagged} card{'' if flagged == 1 else 's'} flagged (Δ IWD, 5% level after "
                           f"Benjamini–Hochberg); figure {out / 'compare.png'}; tables in {out}/compare_*.csv; "
                           f"reports: volva report {out}/variant --out {out}/variant/report")
                raise typer.Exit(res.code)
            if "card_iwd" in tabs:
                effects.append(card_effects(tabs["card_iwd"], name))
            if "shape" in tabs:
                shapes.append(tabs["shape"][tabs["shape"]["strategy"] == "(all)"].assign(population=name))
            if len(set(names)) > 1:
                moved.append(tabs["strategy"].assign(population=name))
            if res.code:
                code = res.code
                break
        if moved:
            console.print_wide([console.population_strategy_table(moved, out / "populations_strategy.csv")])
        if shapes:
            console.print_wide([console.population_shape_table(shapes, out / "populations_shape.csv")])
        if not code:
            _population_verdicts(effects, out, "Δ IWD (change of the card's improvement when drafted)",
                                 f"Variant − baseline ({what}) across bot populations, "
                                 f"{games:,} paired games each", session.patched_cards(patch), top)
        raise typer.Exit(_interrupted_populations(code, len(effects), len(pops), out))


def _interrupted_populations(code: int, started: int, total: int, out: Path) -> int:
    """Say why an interrupted --population run has no verdicts; returns ``code``."""
    if code:
        _interrupted(f"interrupted in population {started} of {total}: no verdicts across populations (each "
                     f"needs every population's games in full); each population's tables so far in {out}/NAME/")
    return code


def _population_verdicts(effects: list, out: Path, xlabel: str, title: str, focus: list[str], top: int) -> None:
    """Write OUT/populations.csv, OUT/verdicts.csv and OUT/populations.png; print the verdicts."""
    import pandas as pd

    from volva.analysis.populations import POPULATION_COLUMNS, verdicts
    from volva.reports.paired import plot_populations
    long = pd.concat(effects, ignore_index=True) if effects else pd.DataFrame(columns=POPULATION_COLUMNS)
    ver = verdicts(long)
    long.to_csv(out / "populations.csv", index=False)
    ver.to_csv(out / "verdicts.csv", index=False)
    if not len(ver):
        typer.echo(f"no card had enough clans to test in any population (groups under 100 clans are not "
                   f"tested): play more --games; each population's tables in {out}/NAME/")
        return
    plot_populations(long, ver, title, xlabel, out / "populations.png", focus)
    console.print_wide([console.verdicts_table(long, ver, focus, top)])
    counts = ver["verdict"].value_counts()
    typer.echo(", ".join(f"{int(counts.get(v, 0))} {v}" for v in ("consistent", "bot-dependent", "partial",
                                                                     "no effect"))
               + f" over {long['population'].nunique()} populations; {out / 'verdicts.csv'}, "
               f"{out / 'populations.csv'}, {out / 'populations.png'}; each population's tables in {out}/NAME/")


@app.command()
def ablate(
    card: Annotated[str, typer.Argument(help="Card name as in cards.csv (every age it appears in, or --age).")],
    players: Players = 4,
    lineup: Lineup = None,
    games: ArmGames = 20_000,
    seed: ArmSeed = 1,
    out: AblateOut = ...,
    age: Annotated[list[int] | None, typer.Option("--age", help="Only the card's copies of this age "
                                                     "(repeatable).")] = None,
    estimand: Annotated[str, typer.Option("--estimand", help="'one-clan' (default): one clan per game (seat seed % "
                                          "P) takes one copy per age vs never drafts it, the opponents drafting as "
                                          "usual; 'all-clans': every clan forced vs the card banned for all.")]
    = "one-clan",
    ban: Annotated[str | None, typer.Option("--ban", help="all-clans only: how the banned arm bans it: 'removed' "
                                            "(out of the deck, default) or 'dealt' (dealt, but no clan may draft "
                                            "it: the same deals).")] = None,
    batch_size: ArmBatchSize = 10_000,
    option: Options = None,
    module: Modules = None,
    ruleset: Ruleset = "blood-rage",
    rotate: ArmRotate = True,
    threads: Threads = None,
    force: Force = False,
    population: Population = None,
    until_decided: UntilDecided = False,
    min_effect: MinEffect = None,
    target_halfwidth: TargetHalfwidth = None,
    alpha: Alpha = None,
    look: Look = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """Causal effect of a card: paired games where it is forced vs banned; prints Δ win rate of the
    clans that drafted it, with a paired 95% interval clustered by seed block. Default estimand
    (one-clan): one clan per game takes one copy per age vs never takes it, opponents unchanged.
    With --population: once per bot population, and a verdict across them."""
    with _usage():
        _check_sequential(until_decided, games, look, alpha, min_effect, target_halfwidth)
        option = session.option_args(option, module)
        if population:
            rs, pops = session.populations(population, lineup, players, option, ruleset)
        else:
            rs, names, pols = session.setup(players, lineup, option, ruleset)
            pops = [(None, names, pols)]
        rs_f, rs_b, ban = session.ablation(rs, card, age, ban, players, estimand)
        session.set_threads(threads)
    with _cluster(scheduler, workers, threads, out, force) as batches:
        _claim_out(out, force, False)  # after every check: --force deletes nothing for a bad command
        from volva.analysis.paired import holder_stream, write_ablate_table
        from volva.analysis.populations import ablate_effect
        from volva.reports.paired import plot_ablation
        label = f"{card} ({'ages ' + ', '.join(map(str, age)) if age else 'all ages'}; {estimand}; ban: {ban})"
        effects, code = [], 0
        for name, names, pols in pops:
            where = out if name is None else out / name
            if name is not None:
                _err(f"population {name}: {','.join(names)}")
            mon, batch = _monitor(until_decided, games, look, players, batch_size, alpha, 1, min_effect,
                                  target_halfwidth)
            run_ = play.Run(rs_f, names, pols, players, games, seed, batch, option, rotate, batches)
            res = _play_arms(run_, rs_b, ("forced", "banned"), where, card, age,
                             decide=None if mon is None else lambda g, sums, m=mon: m.look(g, holder_stream(sums)))
            if res.sums is None or not len(res.sums):
                raise typer.Exit(res.code if name is None else
                                 _interrupted_populations(res.code, len(effects) + 1, len(pops), out))
            _sequential_report(mon, where, f"{card}: forced − banned change of win rate of the clans that drafted it")
            table, n_held = write_ablate_table(res.sums, where)
            plot_ablation(table, label + (f", population {name}" if name else ""), where / "ablate.png")
            console.print_wide([console.delta_table(table, f"{card}: forced − banned ({estimand}, ban: {ban}), paired by "
                                                    f"game and seat, 95% CI clustered by seed block, "
                                                    f"{res.stats[0].games:,} games"
                                                    + (f", population {name}" if name else ""), ["group", "strategy"])])
            from volva.simulator.engines import get as engine_get
            drafted = engine_get(rs_f).terms.get("drafted", "drafted")  # the game's word (dice game: started with)
            typer.echo(f"{n_held:,} clans {drafted} {card} in the forced arm; table {where / 'ablate.csv'}, "
                       f"figure {where / 'ablate.png'}")
            if name is None:
                raise typer.Exit(res.code)
            effects.append(ablate_effect(table, card, name))
            if res.code:
                code = res.code
                break
        if not code:
            _population_verdicts(effects, out, "change of win rate of the clans that drafted it, forced − banned",
                                 f"Causal effect of {label} across bot populations, {games:,} paired games each",
                                 [card], 1)
        raise typer.Exit(_interrupted_populations(code, len(effects), len(pops), out))


# --------------------------------------------------------------------------- strategies

strategies_app = typer.Typer(add_completion=False, no_args_is_help=True,
                             help="List, show and validate strategies (built-ins, the library, your files).")
app.add_typer(strategies_app, name="strategies")


@strategies_app.command("list")
def strategies_list(
    ruleset: StrategiesRuleset = "blood-rage",
) -> None:
    """One strategy a line: name, then its plan (built-ins, then the library archetypes)."""
    with _usage():
        rows = session.strategy_library(ruleset)
    w = max(len(n) for n, _ in rows)
    for n, plan in rows:
        typer.echo(f"{n:<{w}}  {plan}")


@strategies_app.command("show")
def strategies_show(
    name: Annotated[str, typer.Argument(help="A built-in, a library archetype, or a strategy file (*.toml).")],
    ruleset: StrategiesRuleset = "blood-rage",
) -> None:
    """Show a strategy's plan and every parameter it sets away from greedy's defaults."""
    from rich.table import Table

    from volva.strategies.lineup import show
    with _usage():
        engine = session.strategies_engine(ruleset)
    try:
        head, plan, policy, cols, rows = show(engine, name)
    except ValueError as exc:
        _fail(str(exc))
    typer.echo(head)
    typer.echo(f"plan: {plan or '(none given)'}")
    if policy is None:
        typer.echo("policy: random (uniform over the legal choices; no parameters)")
        return
    typer.echo(f"policy: {policy}")
    if not rows:
        typer.echo("all parameters at greedy's defaults")
        return
    t = Table(title=f"{head.split()[0]}: parameters that differ from greedy's defaults", title_justify="left")
    for col in cols:
        t.add_column(col, justify="right" if col in ("value", "greedy") else "left", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    console.print_wide([t])


@strategies_app.command("validate")
def strategies_validate(
    file: Annotated[Path, typer.Argument(help="Strategy file (TOML; format in strategies/spec.py, Valhalla's in "
                                         "strategies/valhalla.py).")],
    ruleset: StrategiesRuleset = "blood-rage",
) -> None:
    """Check a strategy file: prints 'ok: NAME' (exit 0) or one 'error: FILE: key: ...' line (exit 2)."""
    from volva.strategies.lineup import validate
    with _usage():
        engine = session.strategies_engine(ruleset)
    try:
        typer.echo(f"ok: {validate(engine, file)}")
    except ValueError as exc:
        _fail(str(exc))


# --------------------------------------------------------------------------- tournament, version

@app.command()
def tournament(
    strategies: Annotated[str, typer.Option("--strategies", help="Comma-separated strategies (names or *.toml "
                                            "files).")],
    players: Players = 4,
    games: TournamentGames = 2_000,
    seed: TournamentSeed = 1,
    threads: Threads = None,
    out: TournamentOut = None,
    option: Options = None,
    module: Modules = None,
    ruleset: Ruleset = "blood-rage",
    anchor: Annotated[str | None, typer.Option("--anchor", help="The strategy rated 0 Elo (default: greedy "
                                               "when it plays, else the first name in sorted order).")] = None,
    force: ForceTables = False,
    until_decided: Annotated[bool, typer.Option(
        "--until-decided", help="Play rounds (--look games per combination) until the leader is decided better "
        "than every other strategy by a group-sequential test on the paired win shares of each pair "
        "(analysis/sequential.py), or --games is spent.")] = False,
    min_effect: MinEffect = None,
    target_halfwidth: TargetHalfwidth = None,
    alpha: Alpha = None,
    look: Look = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """Every combination of --players distinct strategies, seats rotated on shared seeds; prints the
    ranking (win rate, 95% interval clustered by seed, mean Glory), Elo ratings with 95% intervals
    (Bradley–Terry, analysis/ratings.py) and the head-to-head matrix."""
    with _usage():
        rs, names, pols, combos = session.tournament_setup(strategies, players, ruleset,
                                                           session.option_args(option, module))
        _check_sequential(until_decided, games, look, alpha, min_effect, target_halfwidth)
        if anchor is not None and anchor not in names:
            raise session.UsageError(f"--anchor {anchor!r}: not in --strategies; allowed: {', '.join(names)}")
        if force and out is None:
            raise session.UsageError("--force: only with --out (it replaces the tables there)")
        session.set_threads(threads)
    from volva.analysis.ratings import ratings
    from volva.analysis.tournament import (
        head_to_head,
        leader_decided,
        pair_streams,
        ranking,
        round_games,
        run_tournament,
    )
    n_games = round_games(games, players)
    if n_games != games:
        _err(f"--games {games} rounded up to {n_games} (a multiple of {players} seat rotations)")
    pairs_n = len(names) * (len(names) - 1) // 2
    mon, step = _monitor(until_decided, n_games, look, players, n_games, alpha, pairs_n, min_effect, target_halfwidth)
    with _cluster(scheduler, workers, threads, out, force) as batches:
        if out is not None:  # --force: the earlier tables stay until the new ones are written
            with _usage():
                session.check_out(out, force, defer=True)
        try:
            with _progress(f"{len(combos)} combination{'' if len(combos) == 1 else 's'}", len(combos) * n_games) as advance:
                clans = run_tournament(rs, names, players, n_games, seed, policies=pols, progress=advance,
                                       look=step if mon is not None else None,
                                       decide=None if mon is None else
                                       lambda g, cl: mon.look(g, pair_streams(cl), leader_decided(cl)), batches=batches)
        except KeyboardInterrupt:  # the tables come from every combination's games: none to show yet
            _interrupted("interrupted: no tables written (a tournament needs every combination's games)"
                         + (f"; the tables already in {out} are unchanged" if out is not None else ""))
            raise SystemExit(130) from None
    if mon is not None:
        _sequential_report(mon, out, "pairs: difference of win share where both played")
        n_games = mon.games
    rank = ranking(clans)
    try:
        rat, anchor_error = ratings(clans, anchor), None
    except ValueError as exc:  # the anchor has no finite rating: the other tables stand without it
        rat, anchor_error = None, f"--anchor: {exc}; the other tables are written, ratings.csv is not"
    mat = head_to_head(clans, order=list(rank["strategy"]))
    console.print_wide([console.rank_table(rank, players)] + ([console.ratings_table(rat)] if rat is not None else [])
                       + [console.h2h_table(mat)])
    opts = session.option_args(option, module)
    typer.echo(f"{len(combos)} combination{'' if len(combos) == 1 else 's'} x {n_games:,} games = {len(combos) * n_games:,} games, "
               f"{players} players, seed {seed}, rule set {ruleset}" + (f", {', '.join(opts)}" if opts else ""))
    if out is not None:
        import json
        if force:
            session.clear_out(out)
        written = [out / "tournament.csv", out / "head_to_head.csv", out / "tournament.json"]
        rank.to_csv(written[0], index=False)
        mat.to_csv(written[1], float_format="%.6f")
        written[2].write_text(json.dumps(  # what played: the tables alone do not say
            {"command": "tournament", "ruleset": ruleset, "players": players, "strategies": names,
             "games_per_combination": n_games, "seed": seed, "options": opts, "anchor": anchor}, indent=1))
        if rat is not None:
            rat.to_csv(out / "ratings.csv", index=False, float_format="%.4f")
            written.insert(1, out / "ratings.csv")
        typer.echo(f"wrote {', '.join(str(w) for w in written[:-1])} and {written[-1]}")
    if anchor_error is not None:
        _fail(anchor_error)


@app.command()
def tune(
    out: RunOut,
    ruleset: Ruleset = "blood-rage",
    players: Players = 4,
    league: Annotated[str | None, typer.Option("--league", help="Comma-separated opponents (names or *.toml "
                                                  "files; default: every library strategy but random).")] = None,
    trials: Annotated[int, typer.Option("--trials", min=1, help="Candidates the search tries.")] = 150,
    blocks: Annotated[int, typer.Option("--seed-blocks", min=1, help="Seed blocks per opponent per candidate "
                                        "(a block: one game per seat rotation).")] = 40,
    check_blocks: Annotated[int, typer.Option("--check-blocks", min=2, help="Fresh seed blocks per opponent for "
                                              "the checks of the winner.")] = 500,
    polish_rounds: Annotated[int, typer.Option("--polish-rounds", min=0, help="One-step moves at most after the "
                                               "search (0: none).")] = 8,
    polish_blocks: Annotated[int, typer.Option("--polish-blocks", min=2, help="Seed blocks per opponent for the "
                                               "polish's choices (its own seeds).")] = 300,
    name: Annotated[str, typer.Option("--name", help="Name of the tuned strategy (OUT/NAME.toml).")] = "tuned",
    seed: Seed = 1,
    option: Options = None,
    module: Modules = None,
    threads: Threads = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the tuning study in OUT.")] = False,
    refine: Annotated[Path | None, typer.Option("--refine", help="No search: polish and check this strategy "
                                                "file (a tuned one, or any of the engine's files) on the "
                                                "seeds of --seed.")] = None,
    force: Force = False,
) -> None:
    """Search a strategy's knobs for the largest win share against a league (analysis/tune.py):
    common random numbers, seats rotated, fitness weighted toward the opponents it does worst
    against; then a polish by one-step moves, a check on fresh seeds and a one-step-deviation
    check. Writes OUT/NAME.toml (with its provenance), trials/deviations/importances CSVs and the
    tuning report's PNGs. With --refine FILE the search is skipped: FILE is polished and checked
    (its provenance is kept under provenance.refined_from)."""
    with _usage():
        rs, space, lg, docs = session.tune_setup(ruleset, players, league, name, session.option_args(option, module))
        start = session.refine_doc(refine, rs.engine) if refine is not None else None
        if start is not None:
            from volva.analysis.tune import complete
            try:  # every knob written in, before anything is written to OUT
                start = complete(space, start, list(rs.card_names))
            except ValueError as exc:
                raise session.UsageError(str(exc)) from None
        if start is not None and resume:
            raise session.UsageError("--refine and --resume: choose one (refine a file, or continue a search)")
        if resume and force:
            raise session.UsageError("--resume and --force: choose one (continue the study in OUT, or replace it)")
        if start is None and not resume and not force and (out / "tune.journal").is_file():
            raise session.UsageError(f"--out {str(out)!r} holds a tuning study (tune.journal): pass --resume to "
                                     "continue it, --force to replace it, or choose a new directory")
        if not resume:
            session.check_out(out, force)
        elif not (out / "tune.journal").is_file():
            raise session.UsageError(f"--resume: {out / 'tune.journal'}: file not found (nothing to resume)")
        elif start is None:
            from volva.analysis.tune import check_resume, study_settings
            try:  # before the progress bar: a refused resume prints its one line only
                check_resume(out, name, study_settings(rs, lg, players, blocks, seed))
            except ValueError as exc:
                raise session.UsageError(str(exc)) from None
        session.set_threads(threads)
    from volva.analysis.tune import refine as refine_doc
    from volva.analysis.tune import tune as run_tune
    from volva.analysis.tune import write_outputs
    from volva.reports.tune import build_tune_report
    if start is not None:
        _err(f"refining {refine} as {name} for {rs.name}, {players} players, against {len(lg.names)} strategies")
        try:
            res = refine_doc(rs, space, lg, start, players=players, fresh_blocks=check_blocks, seed=seed,
                             name=name, polish_rounds=polish_rounds, polish_blocks=polish_blocks, say=_err)
        except ValueError as exc:
            _fail(str(exc))
        except KeyboardInterrupt:
            _interrupted("interrupted: nothing written (a refinement is written when its checks are done)")
            raise typer.Exit(130) from None
        paths = write_outputs(res, out, name) + build_tune_report(res, players, out)
        console.print_wide([console.tune_table(res.fresh, players)])
        prov = res.doc["provenance"]
        typer.echo(f"refined by {len(res.polish)} one-step move(s); {_deviation_check(prov, out / (name + '.toml'))}")
        typer.echo(f"wrote {paths[0]} and {len(paths) - 1} more files in {out}")
        return
    _err(f"tuning {name} for {rs.name}, {players} players, against {len(lg.names)} strategies: "
         f"{blocks * players * len(lg.names):,} games per candidate")
    seen = [0]

    def step(done, total, best):  # a resumed study starts at the trials its journal holds
        advance(done - seen[0])
        seen[0] = done

    stopped = False
    with _progress("trials", trials, unit="trials") as advance:
        try:
            res = run_tune(rs, space, lg, out, players=players, trials=trials, blocks=blocks,
                           fresh_blocks=check_blocks, seed=seed, name=name, start_docs=docs, resume=resume,
                           polish_rounds=polish_rounds, polish_blocks=polish_blocks,
                           progress=step, say=_err)
        except ValueError as exc:
            _fail(str(exc))
        except KeyboardInterrupt:
            stopped = True
    if stopped:
        if seen[0] >= trials:  # the search was done: the polish or the checks were cut short
            _interrupted(f"interrupted in the polish and checks, after all {trials} trials (kept in "
                         f"{out / 'tune.journal'}): --resume continues with the polish and checks")
        else:
            _interrupted(f"interrupted after {seen[0]} of {trials} trials, kept in {out / 'tune.journal'} (the trial "
                         "cut short is played again): --resume continues")
        raise typer.Exit(130)
    paths = write_outputs(res, out, name) + build_tune_report(res, players, out)
    console.print_wide([console.tune_table(res.fresh, players)])
    prov = res.doc["provenance"]
    typer.echo(f"fitness {prov['fitness']:.3f} (players x win share, soft minimum over the league: 1 = an even "
               f"share) after {trials} trials ({prov['tuning_games']:,} games, {prov['games_per_second']:,} games/s); "
               f"{_deviation_check(prov, out / (name + '.toml'))}")
    typer.echo(f"wrote {paths[0]} and {len(paths) - 1} more files in {out}")


def _deviation_check(prov: dict, written: Path) -> str:
    """The one-step-deviation check of a tuned file's provenance, with the moves that improve."""
    better = prov.get("deviations_improving") or []
    more = (f"; {len(better)} improve{'s' if len(better) == 1 else ''} on fresh seeds: {', '.join(better[:3])}"
            f"{', ...' if len(better) > 3 else ''}; volva tune --refine {written} polishes further") if better else ""
    return f"one-step-deviation check: {prov['one_step_deviation_check']} ({prov['deviations_checked']} moves{more})"


@app.command()
def dice(
    teams: Annotated[list[str] | None, typer.Argument(
        help="Teams of Warriors, each 'weapons[:strength],...' (weapons: spear, sword, axe, bow, shield, any, "
             "as in 'axe:3,spear+sword:5,axe*2+bow*2:10,any*3:7'; strength 1..50, 1 when left out) or card names. "
             "Default: one Warrior of each base-deck shape.",
        show_default=False)] = None,
    dice_n: Annotated[str, typer.Option("--dice", help="Dice rolled, comma-separated (1..9).")] = "5,6,7",
    rerolls: Annotated[str, typer.Option("--rerolls", help="Most paid rerolls, comma-separated (0..9, or all).")] = "0,1,2,3,all",
    tactic: Annotated[list[str] | None, typer.Option(
        "--tactic", help="Tactic in hand: none, push-back, new-weapons, weapons-exchange (repeat; default: all four).",
        show_default=False)] = None,
    colour: Annotated[str, typer.Option("--colour", help="Die colour rolled: red (attacker), black (defender), grey.")] = "red",
    dice_file: Annotated[Path | None, typer.Option("--dice-file", help="A dice.toml replacing the PROVISIONAL die faces.",
                                                   show_default=False)] = None,
    deck: Annotated[bool, typer.Option("--deck", help="Every Warrior card of the deck alone, with its calibration ratio.")] = False,
    data: Annotated[Path | None, typer.Option("--data", help="A content folder replacing simulator/data/valhalla-dice/.",
                                              show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Directory for the CSV table and the PNG figure.",
                                             show_default=False)] = None,
) -> None:
    """Valhalla (the dice game): exact P(armed) and E[strength] of cards and teams by dice, rerolls and Tactic."""
    from volva.analysis import dice as AD
    from volva.reports import dice as RD
    from volva.simulator.core.loading import RulesError
    from volva.simulator.valhalla_dice.rules import COLOURS, load_content, load_dice
    try:
        ns = AD.parse_counts(dice_n, "--dice", 1, 9)
        ks = AD.parse_counts(rerolls, "--rerolls", 0, 9, allow_all=True)
        tacs = AD.parse_tactics(tactic)
        if colour.strip().lower() not in COLOURS:
            raise ValueError(f"--colour {colour!r}; allowed: {', '.join(COLOURS)}")
        if deck and (teams or tactic or rerolls != "0,1,2,3,all"):
            raise ValueError("--deck solves every Warrior card alone with every reroll and no Tactic: "
                             "drop TEAMS, --rerolls and --tactic")
        if out is not None and (not str(out).strip() or out.is_file()):
            raise ValueError(f"--out {str(out)!r}: expected a directory (new or existing)")
        if out is not None:  # before the solving, not after it
            try:
                out.mkdir(parents=True, exist_ok=True)
                import tempfile
                with tempfile.NamedTemporaryFile(dir=out, prefix=".volva-write-test-"):
                    pass
            except OSError as exc:
                raise ValueError(f"--out {str(out)!r}: not a writable directory: {exc.strerror or exc}") from None
        content = load_content(data)
        p = (load_dice(dice_file) if dice_file is not None else content.dice)[colour.strip().lower()]
        named = {t: t for t in teams} if teams else {f"{k} ({w})": w for k, w in AD.SHAPES.items()}
        parsed = {name: AD.parse_team(spec, content) for name, spec in named.items()}
    except (ValueError, RulesError) as exc:
        _fail(str(exc))
    if deck:
        df, name = AD.deck_table(content, ns, p), "deck"
        console.print_wide(RD.deck_tables(df))
    else:
        df, name = AD.arming_table(parsed, ns, ks, tacs, p), "dice"
        console.print_wide(RD.dice_tables(df))
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
            df.to_csv(out / f"{name}.csv", index=False)
            (RD.deck_figure if deck else RD.dice_figure)(df, out / f"{name}.png")
        except OSError as exc:
            _fail(f"--out {str(out)!r}: {exc.strerror or exc}")
        typer.echo(f"wrote {out / (name + '.csv')} and {out / (name + '.png')}")


@app.command()
def version() -> None:
    """Print the Volva, Python, numpy and numba versions."""
    typer.echo(versions_line())


def _empty_out(argv: list[str]) -> bool:
    """An empty ``--out`` ('' becomes Path('.'), the working directory, once parsed)."""
    return any((a == "--out" and i + 1 < len(argv) and not argv[i + 1].strip()) or a == "--out="
               for i, a in enumerate(argv))


def main() -> None:
    """Console entry point: typer's usage errors (unknown option, bad value) as one line too."""
    if _empty_out(sys.argv[1:]):
        sys.stderr.write("error: --out: an empty path; give a directory (see 'volva COMMAND --help')\n")
        raise SystemExit(EXIT_USAGE)
    _said["interrupted"] = False
    try:
        rc = app(standalone_mode=False)
    except OSError as exc:  # a full disk or a file that cannot be written while results are saved
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        sys.stderr.write(f"error: {where}cannot write: {exc.strerror or exc}\n")
        raise SystemExit(EXIT_USAGE) from None
    except Exception as exc:  # typer vendors click: match its exception classes by name
        kinds = {c.__name__ for c in type(exc).__mro__}
        if "UsageError" in kinds and not hasattr(exc, "format_message"):  # Volva's own (analysis.session)
            sys.stderr.write(f"error: {' '.join(str(exc).split())}\n")
            raise SystemExit(EXIT_USAGE) from None
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
    rc = rc if isinstance(rc, int) else 0
    if rc == 130 and not _said["interrupted"]:  # typer's exit on a Ctrl-C the command did not handle
        sys.stderr.write("interrupted before the command finished (compiling, or writing its tables): some tables "
                         "or figures may be missing or cut short; rerun it (a run or study's report: volva report "
                         "OUT --out DIR)\n")
    if rc >= 128:  # stopped by a signal, the files consistent: do not wait for a batch still compiling
        _exit_now(rc)
    raise SystemExit(rc)


def _exit_now(rc: int) -> None:
    """Exit with ``rc`` without waiting for worker threads (Python would join them: the first
    batch's compile, or a batch being played), after the exit handlers and killing any compile
    helper process."""
    import atexit
    import os
    import threading

    from volva.simulator.core import coldstart
    coldstart.stop_helpers()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.stdout.flush()
        sys.stderr.flush()
        atexit._run_exitfuncs()
        os._exit(rc)


if __name__ == "__main__":
    main()
