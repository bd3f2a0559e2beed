"""Setting up a command's session: argument checks, rule options and modules, the rule set and
the lineup it plays, numba threads, and the output directory.

Every function here raises :class:`UsageError` for a user error (the CLI prints it as one
``error: ...`` line, exit code 2) before any game is played. Nothing here branches on a rule
set's name: engines, their player counts and strategies come from :mod:`simulator.engines` and
:mod:`strategies.lineup`; the set-up of a game of two engines (``--mode``) is in :data:`MODES`.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from volva.analysis.experiment import MAX_BATCH
from volva.simulator.engines import MODULES  # --module NAME -> the rule option it turns on

MAX_GAMES = 10**12  #: games per run or arm (game ids must fit int64 seeds arithmetic with room)
MAX_SEED = 2**64 - 1

RESULT_FILES = ("run.json", "clans.parquet", "picks.parquet", "plays.parquet", "stats", "stats.new",
                "baseline", "variant", "forced", "banned", "paired.parquet", "paired_cards.parquet", "tournament.csv",
                "tournament.json", "tune.journal",
                "tune.json", "verdicts.csv", "populations.csv", "ratings.csv", "sequential.csv")
#: written next to results; removed with them by --force (only in a directory that held results)
DERIVED_FILES = ("report", "compare.png", "ablate.png", "ablate.csv", "trials.csv", "deviations.csv",
                 "importances.csv", "tune_progress.png", "tune_importance.png", "tune_fresh.png", "populations.png",
                 "head_to_head.csv", "populations_strategy.csv", "populations_shape.csv")
#: the folders among them (a --population's folder would clash with them)
OUT_FOLDERS = frozenset(n for n in (*RESULT_FILES, *DERIVED_FILES) if "." not in n)


class UsageError(Exception):
    """A user error reported as one 'error: ...' line and exit code 2."""


# --------------------------------------------------------------------------- argument checks

def check_seed(seed: int) -> None:
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"--seed {seed}; allowed: 0..{MAX_SEED}")


def check_games(games: int) -> None:
    if not 1 <= games <= MAX_GAMES:
        raise UsageError(f"--games {games}; allowed: 1..{MAX_GAMES:,}")


def check_batch_size(batch_size: int) -> None:
    if not 1 <= batch_size <= MAX_BATCH:
        raise UsageError(f"--batch-size {batch_size}; allowed: 1..{MAX_BATCH:,}")


def check_players(players: int) -> None:
    """The widest range of the registered rule sets; each engine's own range is checked on load."""
    from volva.simulator.engines import player_ranges
    lo, hi, each = player_ranges()
    if not lo <= players <= hi:
        note = f" ({', '.join(each)})" if each else ""
        raise UsageError(f"--players {players}; allowed: {lo}..{hi}{note}")


def fit_players(rs, players: int) -> None:
    """The loaded rule set's own player range (its engine's, simulator.engines), then its deck
    check. Raises UsageError naming the range, RulesError for a deck too small."""
    from volva.simulator import engines
    e = engines.get(rs)
    lo, hi = e.players
    if not lo <= players <= hi:
        raise UsageError(f"--players {players}; allowed: {lo}..{hi} for {e.title}")
    rs.check_players(players)


# --------------------------------------------------------------------------- rule options

def parse_option(text: str, flag: str = "--option") -> tuple[str, object]:
    """'key=value' -> (key, value) with value int, bool (true/false) or str. Raises UsageError
    naming ``flag`` (the command-line flag the text came from)."""
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise UsageError(f"{flag} {text!r}: expected key=value")
    if not raw:
        raise UsageError(f"{flag} {text!r}: no value after '='; expected key=value")
    if raw.lower() in ("true", "false"):
        return key, raw.lower() == "true"
    try:
        return key, int(raw)
    except ValueError:
        return key, raw


def module_options(modules: list[str] | None, flag: str = "--module") -> list[str]:
    """--module NAME -> rule options 'NAME=true'. Raises UsageError for an unknown module."""
    out = []
    for m in modules or []:
        if m not in MODULES:
            raise UsageError(f"{flag} {m!r}; allowed: gods-of-asgard (Blood Rage), loki-deception and "
                             "king-of-the-hill (Valhalla, the dice game)")
        out.append(f"{MODULES[m]}=true")
    return out


def option_args(options: list[str] | None, modules: list[str] | None,
                flags: tuple[str, str] = ("--option", "--module")) -> list[str]:
    """--option and --module values as one list of 'key=value' (as run.json records them). Raises
    UsageError naming the flags (``flags``: compare's variant arm has its own) when an option is
    given twice, or sets a module's own option otherwise (--module X with --option X=false)."""
    mods = module_options(modules, flags[1])
    on = {m.split("=", 1)[0] for m in mods}
    seen: dict[str, str] = {}
    for o in options or []:
        key, val = parse_option(o, flags[0])
        if key in seen:
            raise UsageError(f"{flags[0]} {key} given twice ({seen[key]} and {o}); give each option once")
        seen[key] = o
        if key in on and val not in (True, "true"):
            name = next(m for m, k in MODULES.items() if k == key)
            raise UsageError(f"{flags[0]} {o}: contradicts {flags[1]} {name} (which sets {key}=true); drop one of them")
    return list(options or []) + mods


def _module_owners(option: str) -> str:
    """The games whose rules have the module's ``option`` (for an error message)."""
    from volva.simulator.core.loading import RulesError
    from volva.simulator.engines import engine_of, load_ruleset, names
    out = []
    for n in names():
        try:
            if option in load_ruleset(n).options and engine_of(n).title not in out:
                out.append(engine_of(n).title)
        except RulesError:
            pass
    return " and ".join(out) or "no rule set here"


def _check_modules(ruleset: str, opts: dict) -> None:
    """A module turns on an option of the rule sets that have it (their rules.toml [options])."""
    from volva.simulator.engines import engine_of, load_ruleset
    used = [(m, o) for m, o in MODULES.items() if o in opts]
    if not used:
        return
    known = load_ruleset(ruleset).options
    for m, o in used:
        if o not in known:
            raise UsageError(f"--module {m} is not a module of {engine_of(ruleset).title}; it is one of "
                             f"{_module_owners(o)}")


# --------------------------------------------------------------------------- rule set and lineup

DEFAULT_RULESET = "blood-rage"  #: --ruleset's default


def setup(players: int, lineup: str | None, options: list[str] | None, ruleset: str, patch=None,
          sweep: str | None = None, mode: str | None = None):
    """Validate the common arguments -> (rule set, names, [(kind, params)]). Raises UsageError.
    ``patch``: card patches for load_ruleset (files, or (label, dict) pairs); ``sweep``: a god
    sweep of the rule sets that have one (Valhalla: gods, god-sets); ``mode``: a game of two
    engines (:data:`MODES`; options, patches and the sweep apply to its second game)."""
    check_players(players)
    if mode is not None:
        if mode not in MODES:
            raise UsageError(f"--mode {mode!r}; allowed: {', '.join(sorted(MODES))}")
        if ruleset != DEFAULT_RULESET:  # a mode names its own rule sets; do not ignore the user's silently
            raise UsageError(f"--ruleset {ruleset}: not with --mode {mode}, which plays its own rule sets; "
                             "drop --ruleset")
        return MODES[mode](players, lineup, options, patch, sweep)
    from volva.simulator.core.loading import RulesError
    from volva.simulator.engines import load_ruleset
    from volva.strategies.lineup import resolve_for
    opts = dict(parse_option(o) for o in options or [])
    try:
        _check_modules(ruleset, opts)
        rs = load_ruleset(ruleset, options=opts, patch=list(patch) if patch else None)
        fit_players(rs, players)
    except RulesError as exc:
        raise UsageError(str(exc)) from None
    rs = _with_sweep(rs, sweep)
    return (rs, *_lineup(lineup, players, resolve_for(rs.engine)))


def _with_sweep(rs, sweep: str | None):
    from volva.simulator.core.loading import RulesError
    if not hasattr(rs, "with_sweep"):
        if sweep is not None:
            raise UsageError(f"--sweep {sweep}: god sweeps are for --ruleset valhalla (or --mode rainbow-bridge)")
        return rs
    try:
        return rs.with_sweep(sweep)
    except RulesError as exc:
        raise UsageError(str(exc)) from None


def _lineup(text: str | None, players: int, resolve) -> tuple[list[str], list]:
    """--lineup (default: all greedy) -> (names, [(kind, params)]). Raises UsageError."""
    from volva.strategies.builtin import parse_lineup
    try:
        names = parse_lineup(text if text is not None else ",".join(["greedy"] * players), players, resolve)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return names, [resolve(n) for n in names]


def setup_rainbow(players, lineup, options, patch, sweep):
    """Rainbow Bridge: options and patches go to the Valhalla game; ``blood-rage.NAME=V`` options
    and modules (gods_of_asgard) to the Blood Rage game."""
    from volva.simulator import rainbow
    from volva.simulator.core.loading import RulesError
    from volva.strategies.lineup import resolve_pair
    opts = dict(parse_option(o) for o in options or [])
    base_opts = {k.split(".", 1)[1]: v for k, v in opts.items() if k.startswith("blood-rage.")}
    for o in MODULES.values():
        if o in opts:
            base_opts[o] = opts[o]
    vh_opts = {k: v for k, v in opts.items() if not k.startswith("blood-rage.") and k not in MODULES.values()}
    if "start_glory" in vh_opts:
        raise UsageError("--option start_glory: in --mode rainbow-bridge the Blood Rage placing sets the "
                         "starting Glory (12/8/4/0)")
    try:
        rs = rainbow.load(base_opts, vh_opts, list(patch) if patch else None, sweep)
        fit_players(rs, players)
    except RulesError as exc:
        msg = str(exc)
        for k in base_opts:  # the Blood Rage game's loader names its option without the prefix given
            if f"blood-rage.{k}" in opts and msg.startswith(f"--option {k}:"):
                msg = f"--option blood-rage.{msg[len('--option '):]} (in --mode rainbow-bridge: blood-rage.NAME=VALUE)"
                break
        raise UsageError(msg) from None
    return (rs, *_lineup(lineup, players, resolve_pair))


#: --mode NAME -> the setup of that game of two engines (NAME: its engine in simulator.engines)
MODES = {"rainbow-bridge": setup_rainbow}


def sweep_warning(rs, names: list[str], games: int, rotate: bool) -> str | None:
    """A god sweep gives every combination equal games when GAMES is a multiple of its cycle:
    the warning to print when it is not (else None)."""
    if not getattr(rs, "sweep", None):
        return None
    from volva.simulator.core.batch import rotation_period
    cycle = rs.sweep_size() * (rotation_period(names) if rotate else 1)
    if games % cycle == 0:
        return None
    return (f"warning: --sweep {rs.sweep}: {games:,} games is not a multiple of {cycle} "
            f"({rs.sweep_size()} combinations x rotations); the counts per combination differ by one "
            "cycle at most")


# --------------------------------------------------------------------------- per command

def resume_rows_refusal(out: Path, flag: str) -> str:
    """Why --resume with row files kept is refused, and what to do: a run in OUT played stats-only
    is resumed without ``flag`` (--keep-rows, as the command sets it); one that kept rows cannot
    resume and is played again (runner.kept_rows_refusal)."""
    import json

    from volva.analysis.runner import kept_rows_refusal
    try:
        kept = bool(json.loads((out / "run.json").read_text()).get("keep_rows"))
    except (OSError, ValueError, AttributeError):
        kept = False
    return kept_rows_refusal(out / "run.json") if kept else f"--resume continues a stats-only run: {flag}"


def check_game(game: int) -> None:
    """``volva replay --game``: a game id of a run."""
    if game < 0:
        raise UsageError(f"--game {game}; allowed: 0 or more")
    if game >= MAX_GAMES:
        raise UsageError(f"--game {game}; allowed: 0..{MAX_GAMES - 1:,}")


def study_experiment(path: Path | None, **overrides):
    """``volva study``: the experiment of file ``path`` (None: the main job) with the command
    line's overrides (None: keep). Raises UsageError naming the file and key."""
    from volva.analysis.experiment import DEFAULT_EXPERIMENT, ExperimentError, check, load_experiment
    try:
        exp = load_experiment(path) if path is not None else DEFAULT_EXPERIMENT
        exp = exp.with_(**overrides)
        check(exp, "command line")
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    return exp


def setup_experiment(exp, path: Path | None, given: tuple = ()):
    """:func:`setup` of an experiment -> (rule set, names, policies, option args); errors name
    the experiment file's keys (players, modules, options, sweep, mode, ruleset) rather than the
    flags, but for the flags in ``given`` (set on the command line over the file)."""
    patches = list(exp.patches) + ([(Path(f"{exp.source} [patch]"), exp.inline_patch)] if exp.inline_patch else [])
    try:
        option = exp.option_args() + module_options(exp.modules)
        rs, names, pols = setup(exp.players, ",".join(exp.lineup), option, exp.ruleset, patches, exp.sweep,
                                exp.mode)
    except UsageError as exc:
        if path is None:
            raise
        msg = str(exc).replace("--option: options:", "options:").replace("--module", "modules") \
            .replace("--option", "options")
        for flag in ("--players", "--sweep", "--mode", "--ruleset"):
            if flag not in given:
                msg = msg.replace(flag, flag[2:])
        raise UsageError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
    return rs, names, pols, option


def populations(specs: list[str], lineup: str | None, players: int, option: list[str], ruleset: str):
    """``--population`` of compare and ablate -> (rule set, [(name, names, policies)]). Raises
    UsageError (with --lineup, fewer than two populations, a bad name or lineup: the population named)."""
    from volva.analysis.populations import parse_populations
    from volva.strategies.lineup import resolve_for
    if lineup is not None:
        raise UsageError("--lineup and --population: choose one (a population is a named lineup: NAME=LINEUP)")
    rs, _, _ = setup(players, None, option, ruleset)
    try:
        pops = parse_populations(specs, rs.engine, players, OUT_FOLDERS)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    out = []
    for name, text in pops:
        try:
            names, pols = _lineup(text, players, resolve_for(rs.engine))
        except UsageError as exc:
            raise UsageError(f"--population {name}={text}: {exc}") from None
        out.append((name, names, pols))
    return rs, out


def patched_cards(patch: list[Path]) -> list[str]:
    """The card names a list of patch files changes (their top-level keys), in order."""
    import tomllib

    from volva.simulator.core.loading import toml_bytes
    out = []
    for f in patch:
        try:
            with open(f, "rb") as fh:
                out += [k for k in toml_bytes(fh.read()) if k not in out]
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            pass  # variant() has reported it already
    return out


def variant(ruleset: str, option: list[str], patch: list[Path], players: int):
    """``volva compare``: the variant arm's rule set (the card patches applied). Raises UsageError."""
    from volva.simulator.core.loading import RulesError
    from volva.simulator.engines import load_ruleset
    opts = dict(parse_option(o) for o in option)
    try:
        _check_modules(ruleset, opts)
        rs = load_ruleset(ruleset, options=opts, patch=list(patch))
        fit_players(rs, players)
    except (RulesError, UsageError) as exc:  # the baseline loaded: the variant's own change is at fault
        raise UsageError(f"the variant arm: {exc}") from None
    return rs


def same_tables(rs_a, rs_b) -> bool:
    """Whether two rule sets give their engine the same tables, field by field (what a game reads
    of the board, tracks and cards); False when either has none to compare (a Rainbow Bridge)."""
    import numpy as np
    a, b = getattr(rs_a, "tables_arr", None), getattr(rs_b, "tables_arr", None)
    if a is None or b is None or a.dtype != b.dtype:
        return False
    return all(np.array_equal(a[f], b[f], equal_nan=a.dtype[f].base.kind in "fc") for f in a.dtype.names)


ESTIMANDS = ("one-clan", "all-clans")


def ablation(rs, card: str, ages: list[int] | None, ban: str | None, players: int, estimand: str = "one-clan"):
    """``volva ablate``: (forced arm, banned arm, ban) for ``card`` (its copies of ``ages``, default
    all). ``estimand`` 'one-clan': one clan per game (seat seed % P) must take one copy per age vs
    may never take it, every other clan drafting as usual (the card stays in the game: ban 'dealt');
    'all-clans': every clan forced vs the card banned for all, ``ban`` 'removed' (out of the deck,
    default) or 'dealt'. Raises UsageError."""
    import numpy as np

    from volva.simulator.core import enums as E
    from volva.simulator.core.loading import RulesError
    from volva.simulator.engines import get
    if estimand not in ESTIMANDS:
        raise UsageError(f"--estimand {estimand!r}; allowed: {', '.join(repr(e) for e in ESTIMANDS)}")
    one = estimand == "one-clan"
    if one and ban == "removed":
        raise UsageError("--ban removed: only with --estimand all-clans (one-clan keeps the card in the game for "
                         "the other clans; its banned clan skips it: 'dealt')")
    ban = ban or ("dealt" if one else "removed")
    if ban not in ("removed", "dealt"):
        raise UsageError(f"--ban {ban!r}; allowed: 'removed', 'dealt'")
    for a in ages or []:
        if not 1 <= a <= 3:
            raise UsageError(f"--age {a}; allowed: 1..3")
    if ages and one_deck(rs):
        raise UsageError(f"--age: {get(rs).title} has one deck (cards have no age); drop --age")
    try:
        ids = [i for i in rs.card_ids(card) if not ages or int(rs.tables.card_age[i]) in ages]
        if not ids:
            raise RulesError(f"card {card!r} has no copy in age(s) {ages}")
        copies = getattr(rs.tables, "card_copies", None)  # Blood Rage: copies by player count
        if copies is not None and np.ndim(copies) == 2 and not any(copies[i, players] > 0 for i in ids):
            raise RulesError(f"card {card!r} is not dealt at {players} players (cards.csv copies_*"
                             f"{f', ages {ages}' if ages else ''}); allowed: a card in the {players}-player deck")
        rs_f = rs.with_draft_rule(card, E.DRAFT_FORCED, ids, one_clan=one)
        rs_b = rs.with_draft_rule(card, E.DRAFT_BANNED, ids, one_clan=one) if ban == "dealt" else \
            rs.without_card(card, ids)
        fit_players(rs_b, players)
    except RulesError as exc:
        raise UsageError(str(exc)) from None
    where = f" (ages {ages})" if ages else ""
    rs_f.draft_note = f"forced ({estimand}): {card}{where}"
    rs_b.draft_note = f"banned ({estimand}, {ban}): {card}{where}"
    return rs_f, rs_b, ban


def one_deck(rs) -> bool:
    """True for a rule set whose cards have no age (one deck: every card in age 1)."""
    import numpy as np
    return not (np.asarray(rs.tables.card_age)[:rs.n_cards] > 1).any()


def load_for(ruleset: str, players: int, options: list[str]):
    """Rule set ``ruleset`` with the 'key=value' ``options``, checked for ``players`` clans. Raises UsageError."""
    from volva.simulator.core.loading import RulesError
    from volva.simulator.engines import load_ruleset
    opts = dict(parse_option(o) for o in options)
    try:
        _check_modules(ruleset, opts)
        rs = load_ruleset(ruleset, options=opts)
        fit_players(rs, players)
    except RulesError as exc:
        raise UsageError(str(exc)) from None
    return rs


def tournament_setup(strategies: str, players: int, ruleset: str, options: list[str]):
    """``volva tournament``: (rule set, strategy names, policies, combinations). Raises UsageError."""
    from volva.analysis.tournament import combinations
    from volva.strategies.builtin import lineup_text
    from volva.strategies.lineup import resolve_for
    try:
        names = [s.strip() for s in lineup_text(strategies).split(",")]
    except ValueError as exc:
        raise UsageError(f"--strategies: {exc}") from None
    if any(not n for n in names):
        raise UsageError(f"--strategies {strategies!r}: empty name")
    if any("*" in n for n in names):
        raise UsageError(f"--strategies: {next(n for n in names if '*' in n)!r}: name*k repeats a strategy in a "
                         "lineup; a tournament plays each strategy once per combination: name each once")
    rs = load_for(ruleset, players, options)
    resolve = resolve_for(rs.engine)
    try:
        return rs, names, [resolve(n) for n in names], combinations(names, players)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def strategy_library(ruleset: str) -> list[tuple[str, str]]:
    """``volva strategies list``: (name, plan) rows of the library of the engine playing ``ruleset``."""
    from volva.simulator import engines
    from volva.strategies.lineup import libraries, library
    allowed = [n for n in engines.names() if _engine_name(n) in libraries()]
    if ruleset not in allowed:
        raise UsageError(f"--ruleset {ruleset!r}; allowed: {', '.join(allowed)}")
    try:
        return library(engines.engine_of(ruleset).name)
    except ValueError as exc:  # a malformed library file
        raise UsageError(str(exc)) from None


def strategies_engine(ruleset: str) -> str:
    """``volva strategies show|validate --ruleset``: the engine whose strategies it names. Raises UsageError."""
    from volva.simulator import engines
    from volva.strategies.lineup import libraries
    allowed = [n for n in engines.names() if _engine_name(n) in libraries()]
    if ruleset not in allowed:
        raise UsageError(f"--ruleset {ruleset!r}; allowed: {', '.join(allowed)}")
    return engines.engine_of(ruleset).name


def _engine_name(ruleset: str) -> str | None:
    from volva.simulator import engines
    try:
        return engines.engine_of(ruleset).name
    except engines.RulesError:
        return None


# --------------------------------------------------------------------------- environment

def set_threads(threads: int | None) -> None:
    """Apply --threads (numba threads) and check VOLVA_SAVE_EVERY_S (every command that plays
    calls this before it writes anything). Raises UsageError for a count numba refuses or a bad
    variable."""
    from volva.analysis.runner import save_every_s
    try:
        save_every_s()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if threads is None:
        return
    import numba
    try:
        numba.set_num_threads(threads)
    except ValueError as exc:
        raise UsageError(f"--threads {threads}: {exc}") from None


_LOCKS: dict = {}  # resolved directory -> open descriptor locked until the process ends


def lock_out(out: Path) -> None:
    """Hold an exclusive lock on the existing directory ``out`` itself (``fcntl.flock`` on its
    descriptor: no lock file is left behind) until this process ends, so two commands never write
    one directory at once. Raises UsageError when another process holds it."""
    import fcntl
    import os
    key = out.resolve()
    if key in _LOCKS:
        return
    try:
        fd = os.open(out, os.O_RDONLY)
    except OSError as exc:
        raise UsageError(f"--out {str(out)!r} is not a readable directory: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise UsageError(f"--out {str(out)!r}: another volva command is writing there (it holds the "
                         "directory's lock); wait for it to finish or choose another directory") from None
    if not _LOCKS:
        import atexit
        atexit.register(release_locks)
    _LOCKS[key] = fd


def release_locks() -> None:
    """Release every output-directory lock this process holds (a command's end)."""
    import os
    while _LOCKS:
        os.close(_LOCKS.popitem()[1])


def check_out(out: Path, force: bool = False, defer: bool = False) -> None:
    """Create ``out`` if needed, lock it (:func:`lock_out`) and prove it is a writable directory
    holding no earlier results (unless ``force``, which removes them; with ``defer`` they stay until
    the caller's :func:`clear_out`, for a command that writes its tables only at the end). Raises
    UsageError."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {str(out)!r} exists and is not a directory")
    if out.is_dir():
        lock_out(out)  # before looking at (or removing) what another command may be writing
    held, pops = _earlier_results(out)
    held = held + [f"{d.name}/" for d in pops]
    if held and not force:
        raise UsageError(f"--out {str(out)!r} already holds results ({', '.join(held)}); "
                         "choose a new directory or pass --force to replace them")
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock_out(out)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".volva-write-test-"):
            pass
        if force and not defer:  # replace: earlier results (and a report made from them) would no longer match
            clear_out(out)
    except OSError as exc:
        raise UsageError(f"--out {str(out)!r} is not a writable directory: {exc.strerror or exc}") from None


def _earlier_results(out: Path) -> tuple[list[str], list[Path]]:
    """(RESULT_FILES present in ``out``, its --population folders)."""
    held = [f for f in RESULT_FILES if (out / f).exists()]
    pops = [d for d in (out.iterdir() if out.is_dir() else ()) if d.is_dir() and d.name not in held and any(
        (d / f).exists() for f in ("baseline", "forced", "paired.parquet"))]
    return held, pops


def clear_out(out: Path) -> None:
    """Remove the earlier results in ``out`` (:func:`check_out` with ``force``): result files, what
    was made from them, population folders."""
    held, pops = _earlier_results(out)
    _remove_results(out, derived=bool(held or pops))
    for d in pops:
        if d.exists():  # not removed above as a result of OUT's own (an older run's 'report' folder)
            shutil.rmtree(d)


def _remove_results(out: Path, derived: bool) -> None:
    """Delete the results in ``out`` (and, in a directory that held results, what was made from them)."""
    for f in RESULT_FILES + (DERIVED_FILES if derived else ()):
        p = out / f
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
    if derived:
        for p in out.glob("compare_*.csv"):
            p.unlink()


def refine_doc(path: Path, engine: str) -> dict:
    """``volva tune --refine FILE``: the strategy document of FILE (a path, or a library name),
    checked by the engine's parser. Raises UsageError."""
    import tomllib

    from volva.simulator.core.loading import toml_bytes
    from volva.strategies.lineup import resolve_for, strategy_file
    if Path(path).is_dir():
        raise UsageError(f"--refine {str(path)!r}: is a directory; allowed: a strategy file (*.toml)")
    if not str(path).strip() or str(path) == ".":
        raise UsageError("--refine '': empty; allowed: a strategy file (*.toml) or a library strategy name")
    if Path(path).is_file() and Path(path).suffix != ".toml":
        raise UsageError(f"--refine {str(path)!r}: not a strategy file; allowed: a *.toml strategy file")
    f = Path(path) if Path(path).is_file() else strategy_file(engine, str(path))
    if f is None:
        raise UsageError(f"--refine {str(path)!r}: no such file or {engine} library strategy file; "
                         "allowed: a strategy file (*.toml) or a library strategy written as one")
    try:
        resolve_for(engine)(str(f))
        with open(f, "rb") as fh:
            return toml_bytes(fh.read())
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        syntax = isinstance(exc, tomllib.TOMLDecodeError) or "not valid TOML" in str(exc)
        raise UsageError(f"--refine: {exc}" + ("" if syntax else f" (is it a strategy file of another rule set than "
                                               f"--ruleset's, {engine}?)")) from None


def tune_setup(ruleset: str, players: int, league: str | None, name: str, options: list[str]):
    """``volva tune``: (rule set, search space, League, start documents). The default league is
    every strategy of the engine's library but random (tuned ones included); the start documents
    are the league's strategy files. Raises UsageError."""
    import re

    from volva.analysis.tune import League
    from volva.simulator.core.loading import toml_bytes
    from volva.strategies.lineup import library, resolve_for, strategy_file
    from volva.strategies.space import space_for
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name):
        raise UsageError(f"--name {name!r}; allowed: letters, digits, '-' and '_' (it names OUT/NAME.toml)")
    rs = load_for(ruleset, players, options)
    try:
        space = space_for(rs.engine)
    except KeyError as exc:
        raise UsageError(f"--ruleset {ruleset}: {exc.args[0]}") from None
    names = [n.strip() for n in league.split(",")] if league is not None else \
        [n for n, _ in library(rs.engine) if n != "random"]
    if any(not n for n in names):
        raise UsageError(f"--league {league!r}: empty name; allowed: comma-separated strategy names or files")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"--league: {twice[0]!r} named twice; name each opponent once")
    resolve = resolve_for(rs.engine)
    try:
        pols = [resolve(n) for n in names]
    except ValueError as exc:
        raise UsageError(f"--league: {exc}") from None
    docs = []
    for n in names:
        f = strategy_file(rs.engine, n)
        if f is not None:
            with open(f, "rb") as fh:
                docs.append(toml_bytes(fh.read()))
    return rs, space, League(names, pols), docs

