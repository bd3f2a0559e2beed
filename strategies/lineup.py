"""Which strategies play which engine: a strategy name -> (policy kind, parameter vector) for
each engine of simulator.engines, Rainbow Bridge pairs, each engine's strategy library and
default lineup, and scenarios run with them.

This is the one place that keys strategies by engine name (``simulator.engines`` names the
engines): a new engine adds a resolver, a library and a default lineup here (or calls
:func:`register`).
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import builtin, valhalla, valhalla_dice


def resolve_pair(name: str):
    """'base:valhalla' (or one name for both games) -> ((kind, params), (kind, params)).
    Raises ValueError naming the game whose strategy is unknown."""
    a, sep, b = name.partition(":")
    a, b = a.strip(), (b.strip() if sep else a.strip())
    try:
        pa = builtin.resolve(a)
    except ValueError as exc:
        raise ValueError(f"rainbow-bridge lineup item {name!r}: Blood Rage strategy: {exc}") from None
    try:
        pb = valhalla.resolve(b)
    except ValueError as exc:
        raise ValueError(f"rainbow-bridge lineup item {name!r}: Valhalla strategy: {exc}; "
                         "write BASE:VALHALLA, e.g. thor-warlord:thor") from None
    return pa, pb


def _blood_rage_library() -> list[tuple[str, str]]:
    """The built-ins, then the library archetypes (raises ValueError for a malformed library file)."""
    from .describe import BUILTIN_PLANS
    lib = builtin.archetypes()
    return [("random", BUILTIN_PLANS["random"]), ("greedy", BUILTIN_PLANS["greedy"])] + \
        [(n, lib[n].plan) for n in sorted(lib)]


#: engine name -> resolve(strategy name) -> (kind, float64 params); raises ValueError
_RESOLVERS: dict[str, Callable] = {"blood-rage": builtin.resolve, "valhalla": valhalla.resolve,
                                   "rainbow-bridge": resolve_pair, "valhalla-dice": valhalla_dice.resolve}
#: engine name -> its strategies as (name, plan) rows (``volva strategies list``)
_LIBRARIES: dict[str, Callable[[], list]] = {"blood-rage": _blood_rage_library,
                                             "valhalla": lambda: list((valhalla.DESCRIPTIONS
                                                                            | valhalla.library_plans()).items()),
                                             "valhalla-dice": lambda: list((valhalla_dice.DESCRIPTIONS
                                                                            | valhalla_dice.library_plans()).items())}
#: engine name -> the lineup of a study that names none (its first `players` seats; greedy beyond)
DEFAULT_LINEUPS: dict[str, list[str]] = {
    # the strongest tuned strategy (volva tune; strategies/library/tuned-4p.toml) against three archetypes
    "blood-rage": ["tuned-4p", "balanced", "ragnarok-diver", "thor-warlord"],
    "valhalla": ["thor", "loki", "quester", "warlord"],
    "rainbow-bridge": ["thor-warlord:thor", "balanced:loki", "ragnarok-diver:quester", "loki-martyr:warlord"],
    # the tuned strategy (strategies/library/valhalla-dice/tuned-4p.toml) against archetypes
    "valhalla-dice": ["tuned-4p", "raider", "turtle", "greedy-dp", "greedy", "hoarder"],
}

#: engine name -> the default bot populations of ``--population default`` (NAME -> lineup; ``*P``
#: is replaced by the player count): an archetype field, a greedy field and a tuned field
DEFAULT_POPULATIONS: dict[str, dict[str, str]] = {
    "blood-rage": {"archetypes": "balanced,ragnarok-diver,thor-warlord,tyr-brute", "greedy": "greedy*P",
                   "tuned": "tuned-4p*P"},
    "valhalla": {"archetypes": "thor,loki,quester,warlord", "greedy": "greedy*P", "tuned": "tuned-4p*P"},
    "valhalla-dice": {"archetypes": "raider,turtle,hoarder,set-collector", "greedy": "greedy*P",
                      "tuned": "tuned-4p*P", "exact-arming": "greedy-dp*P"},
}


def default_populations(engine: str, players: int) -> dict[str, str]:
    """``--population default`` for ``engine`` at ``players`` clans (the archetype field cut or
    padded with greedy to the player count). Raises ValueError for an engine without a set."""
    if engine not in DEFAULT_POPULATIONS:
        raise ValueError(f"--population default: no default populations for {engine!r}; allowed engines: "
                         f"{sorted(DEFAULT_POPULATIONS)} (or name them: NAME=LINEUP)")
    out = {}
    for name, lineup in DEFAULT_POPULATIONS[engine].items():
        if lineup.endswith("*P"):
            out[name] = f"{lineup[:-2]}*{players}"
        else:
            items = lineup.split(",")
            out[name] = ",".join((items + ["greedy"] * players)[:players])
    return out

#: engine name -> strategy name -> the library file behind it (None for a strategy written in code)
_FILES: dict[str, Callable] = {"blood-rage": lambda n: getattr(builtin.archetypes().get(n), "path", None),
                               "valhalla": lambda n: valhalla.library_files().get(n),
                               "valhalla-dice": lambda n: valhalla_dice.library_files().get(n)}


def show(engine: str, name: str):
    """``volva strategies show`` of ``engine`` (strategies.describe.show_*). Raises KeyError for an
    engine without one, ValueError for an unknown strategy or a malformed file."""
    from . import describe
    table = {"blood-rage": describe.show_blood_rage, "valhalla": describe.show_valhalla,
             "valhalla-dice": describe.show_valhalla_dice}
    if engine not in table:
        raise KeyError(f"no strategy descriptions for engine {engine!r}; known: {sorted(table)}")
    return table[engine](name)


def validate(engine: str, path: Path) -> str:
    """``volva strategies validate`` of ``engine``: the strategy's name. Raises KeyError, ValueError."""
    from . import describe
    table = {"blood-rage": describe.validate_blood_rage, "valhalla": describe.validate_valhalla,
             "valhalla-dice": describe.validate_valhalla_dice}
    if engine not in table:
        raise KeyError(f"no strategy files for engine {engine!r}; known: {sorted(table)}")
    return table[engine](path)


def strategy_file(engine: str, name: str) -> Path | None:
    """The TOML file behind a strategy: a path given as the name, or a library file; else None."""
    if name.endswith(".toml") and Path(name).is_file():
        return Path(name)
    return _FILES[engine](name) if engine in _FILES else None


def register(engine: str, resolve: Callable, library: Callable[[], list] | None = None,
             default_lineup: list[str] | None = None) -> None:
    """Name the strategy resolver (and optionally the library and default lineup) of an engine."""
    _RESOLVERS[engine] = resolve
    if library is not None:
        _LIBRARIES[engine] = library
    if default_lineup is not None:
        DEFAULT_LINEUPS[engine] = list(default_lineup)


def resolve_for(engine: str) -> Callable:
    """The strategy resolver of ``engine`` (Rainbow Bridge: :func:`resolve_pair`). Raises KeyError."""
    if engine not in _RESOLVERS:
        raise KeyError(f"no strategies for engine {engine!r}; known: {sorted(_RESOLVERS)}")
    return _RESOLVERS[engine]


def library(engine: str) -> list[tuple[str, str]]:
    """(name, plan) of every strategy of ``engine``'s library. Raises KeyError for an engine
    without one, ValueError for a malformed library file."""
    if engine not in _LIBRARIES:
        raise KeyError(f"no strategy library for engine {engine!r}; known: {sorted(_LIBRARIES)}")
    return _LIBRARIES[engine]()


def libraries() -> list[str]:
    """The engines that have a strategy library."""
    return sorted(_LIBRARIES)


def default_lineup(engine: str | None, players: int) -> list[str]:
    """The default lineup of ``engine`` for ``players`` clans: its first N strategies, greedy for
    the seats beyond (all greedy for an engine without one)."""
    base = DEFAULT_LINEUPS.get(engine, [])
    return (base + ["greedy"] * max(0, players - len(base)))[:max(players, 0)]


def run_scenario(path, check: bool = True) -> dict:
    """Run scenario file ``path`` (simulator.engines.run_scenario) with the shipped strategies."""
    from volva.simulator.engines import run_scenario as run
    return run(path, resolve_for, check)
