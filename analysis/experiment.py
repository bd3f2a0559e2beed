"""Experiment files (TOML) for ``volva study``: what to play, validated with clear errors.

Every key is optional; the defaults are the main job (DEFAULT_EXPERIMENT)::

    name = "archetypes-4p"          # label in the report
    ruleset = "blood-rage"          # a directory under simulator/data/
    players = 4                     # 2..5 (the rule set's range: valhalla 3..5, valhalla-dice 2..6)
    lineup = "tuned-4p,balanced,ragnarok-diver,thor-warlord"   # or a list; *.toml and @lineup
                                    # files are read relative to this file (default: the first `players`
                                    # of these four, greedy for a fifth)
    games = 200000
    seed = 1
    batch_size = 10000
    rotate = true                   # seat rotation on shared seeds
    modules = ["gods-of-asgard"]    # rule modules
    options = { tie_break = "rage" }   # rule options (rules.toml [options])
    patches = ["smite4.toml"]       # card patches, paths relative to this file
    keep_rows = false               # also write clans/picks/plays.parquet
    sweep = "gods"                  # Valhalla: every ordered god combination ("god-sets": the 10 sets)
    mode = "rainbow-bridge"         # Blood Rage then Valhalla (lineup items BASE:VALHALLA)
    [patch."Tyr's Smite"]           # an inline card patch (same format as a patch file)
    value = 4

A malformed file raises ExperimentError naming the file, the key and the allowed values.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path


def default_lineup(players: int, ruleset: str = "blood-rage", mode: str | None = None) -> list[str]:
    """The default strategies for ``players`` clans of the engine that plays ``ruleset`` (or
    ``mode``): its default lineup (strategies.lineup.DEFAULT_LINEUPS), greedy for the seats
    beyond; all greedy for an unknown rule set (its error comes when it is loaded)."""
    from volva.simulator.engines import RulesError, engine_of
    from volva.strategies.lineup import default_lineup as engine_lineup
    try:
        engine = mode if mode is not None else engine_of(ruleset).name
    except RulesError:
        engine = None
    return engine_lineup(engine, players)


DEFAULT_LINEUP = default_lineup(4)  #: the main job's lineup (tuned-4p and three Blood Rage archetypes)


class ExperimentError(ValueError):
    """A malformed experiment file or value."""


@dataclass
class Experiment:
    """One study: rule set, lineup, games, seed, modules, options and card patches."""
    name: str = "default"
    ruleset: str = "blood-rage"
    players: int = 4
    lineup: list = field(default_factory=lambda: list(DEFAULT_LINEUP))
    games: int = 200_000
    seed: int = 1
    batch_size: int = 10_000
    rotate: bool = True
    modules: list = field(default_factory=list)
    options: dict = field(default_factory=dict)
    patches: list = field(default_factory=list)  # Paths
    inline_patch: dict = field(default_factory=dict)
    keep_rows: bool = False
    sweep: str | None = None
    mode: str | None = None
    lineup_given: bool = False  # False: the lineup follows players / ruleset / mode
    source: str = "(built-in default)"

    def with_(self, **kw) -> Experiment:
        out = replace(self, **{k: v for k, v in kw.items() if v is not None})
        if kw.get("lineup") is not None:
            out = replace(out, lineup_given=True)
        if not out.lineup_given:
            out = replace(out, lineup=default_lineup(out.players, out.ruleset, out.mode))
        return out

    def option_args(self) -> list[str]:
        def text(v):
            if isinstance(v, list):  # start_glory = [12, 8, 4, 0] -> 12/8/4/0
                return "/".join(str(x) for x in v)
            return "true" if v is True else "false" if v is False else str(v)
        return [f"{k}={text(v)}" for k, v in self.options.items()]


DEFAULT_EXPERIMENT = Experiment()
MAX_BATCH = 1_000_000  #: games per batch, held in memory at once (10 million ran 6 GB out of memory)

_TYPES = {
    "name": (str,), "ruleset": (str,), "players": (int,), "lineup": (str, list), "games": (int,),
    "seed": (int,), "batch_size": (int,), "rotate": (bool,), "modules": (list,), "options": (dict,),
    "patches": (list,), "patch": (dict,), "keep_rows": (bool,), "sweep": (str,), "mode": (str,),
}


def _bad(path, key, msg):
    raise ExperimentError(f"{path}: key '{key}': {msg}")


def load_experiment(path: Path) -> Experiment:
    """Read and check an experiment file. Raises ExperimentError naming the file and key."""
    from volva.simulator.core.loading import read_toml
    path = Path(path)
    d = read_toml(path, ExperimentError)
    for k, v in d.items():
        if k not in _TYPES:
            import difflib
            close = difflib.get_close_matches(str(k), sorted(_TYPES), n=1)
            _bad(path, k, f"unknown key; allowed: {sorted(_TYPES)}" + (f"; did you mean {close[0]!r}?" if close else ""))
        types = _TYPES[k]
        if isinstance(v, bool) and bool not in types or not isinstance(v, types):
            _bad(path, k, f"{v!r}; expected {' or '.join(t.__name__ for t in types)}")
    kw = {k: d[k] for k in ("name", "ruleset", "players", "games", "seed", "batch_size", "rotate", "keep_rows",
                            "sweep", "mode") if k in d}
    if "lineup" in d:
        lu = d["lineup"]
        if isinstance(lu, list):
            if not all(isinstance(x, str) for x in lu):
                _bad(path, "lineup", f"{lu!r}; expected a list of strategy names")
            lu = ",".join(lu)
        entries = []
        for x in (x.strip() for x in lu.split(",")):
            name, star, k = x.partition("*")
            # a strategy file (and an @lineup file) is read relative to the experiment file, like patches
            at = "@" if name.startswith("@") else ""
            f = name[len(at):]
            if (at or f.endswith(".toml")) and not Path(f).is_absolute() and (path.parent / f).is_file():
                name = at + str(path.parent / f)
            entries.append(name + star + k)
        kw["lineup"] = entries
        kw["lineup_given"] = True
    else:
        kw["lineup"] = default_lineup(d.get("players", 4), d.get("ruleset", "blood-rage"), d.get("mode"))
    if "modules" in d:
        if not all(isinstance(x, str) for x in d["modules"]):
            _bad(path, "modules", f"{d['modules']!r}; expected a list of module names")
        kw["modules"] = list(d["modules"])
    if "options" in d:
        for k, v in d["options"].items():
            ok_list = isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
            if not isinstance(v, (bool, int, str)) and not ok_list:
                _bad(path, f"options.{k}", f"{v!r}; expected an integer, true/false, a string or a list of "
                     "integers (start_glory = [12, 8, 4, 0])")
        kw["options"] = dict(d["options"])
        from volva.simulator.engines import MODULES  # a module turns its rule option on
        for m in kw.get("modules", []):
            key = MODULES.get(m)
            if key in kw["options"] and kw["options"][key] not in (True, "true"):
                _bad(path, f"options.{key}", f"{kw['options'][key]!r}: contradicts modules = [{m!r}] (which sets "
                     f"{key} = true); drop one of them")
    if "patches" in d:
        ps = []
        for x in d["patches"]:
            if not isinstance(x, str):
                _bad(path, "patches", f"{x!r}; expected a list of file paths")
            p = Path(x) if Path(x).is_absolute() else path.parent / x
            if p.is_dir():
                _bad(path, "patches", f"{x!r}: is a directory, not a patch file ({p})")
            if not p.is_file():
                _bad(path, "patches", f"{x!r}: file not found ({p.resolve()}; a relative path is read next to "
                     "the experiment file)")
            ps.append(p)
        kw["patches"] = ps
    if "patch" in d:
        kw["inline_patch"] = d["patch"]
    exp = Experiment(source=str(path), **kw)
    check(exp, str(path))
    return exp


def _players_range(exp: Experiment) -> tuple[int, int]:
    """The player range of the experiment's engine (simulator.engines; a mode's own engine);
    an unknown rule set gets the widest range here and its one-line error when it is loaded."""
    from volva.simulator import engines
    try:
        if exp.mode is not None:
            return engines.get(exp.mode).players
        return engines.engine_of(exp.ruleset).players
    except (engines.RulesError, KeyError, TypeError):
        lo, hi, _ = engines.player_ranges()
        return lo, hi


def check(exp: Experiment, where: str) -> None:
    """Range checks shared by files and command-line overrides. Raises ExperimentError."""
    lo, hi = _players_range(exp)
    if not lo <= exp.players <= hi:
        _bad(where, "players", f"{exp.players}; allowed: {lo}..{hi}")
    if exp.games < 1:
        _bad(where, "games", f"{exp.games}; allowed: 1..{10**12:,}")
    if exp.games > 10**12:
        _bad(where, "games", f"{exp.games}; allowed: 1..{10**12:,}")
    if not 1 <= exp.batch_size <= MAX_BATCH:
        _bad(where, "batch_size", f"{exp.batch_size}; allowed: 1..{MAX_BATCH:,}")
    if not 0 <= exp.seed < 2 ** 64:
        _bad(where, "seed", f"{exp.seed}; allowed: 0..{2 ** 64 - 1}")
