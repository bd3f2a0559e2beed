"""The engine registry: the one place that knows which rule sets exist and which engine plays each.

An engine is a package (``simulator/<engine>/``) whose ``__init__`` is its facade:

- ``load(name, options, data_dir, cards_path, patch)`` -> a rule set object with ``.name`` and
  ``.engine`` (the registry key), ``check_players(P)``, card and god names, and its tables;
- ``play_batch(rs, lineup, seeds, check, game_ids, period)`` -> :class:`~simulator.core.batch.BatchOut`;
- ``play_game(rs, lineup, seed, log, check)`` -> the final state record (its ``.log`` readable);
- ``replay_text(rs, lineup_names, lineup, master_seed, game_id, rotate)`` -> the game's log as text;
- ``load_scenario(path, data, resolve)`` -> a scenario set up from its file (``.run()``, ``.result()``).

Everything else (runner, CLI, analysis, reports) asks this module, never a rule set's name, so
a new rule set is one folder of data, one engine package and one :func:`register` call.
Facades are imported on first use: a command compiles only the engine it plays.
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from pathlib import Path

from .core.batch import BatchOut, game_plan, game_seeds, rotated, rotation_period  # noqa: F401  (the public batch API)
from .core.loading import DATA_DIR, RulesError, ScenarioError, load_toml, read_toml


@dataclass(frozen=True)
class Engine:
    """One registered engine: ``facade`` is the module path of its api (imported lazily)."""
    name: str  #: the registry key, also the rule set object's ``.engine``
    facade: str  #: module with load/play_batch/play_game/replay_text/load_scenario
    title: str  #: the game's name in logs and reports
    players: tuple[int, int]  #: fewest and most players
    by_game_id: bool = False  #: games depend on their id too (a god sweep), not only the seed
    #: the game's own words for what the report shows (written into each run's statistics)
    terms: dict = field(default_factory=lambda: dict(BLOOD_RAGE_TERMS))

    @property
    def api(self):
        return importlib.import_module(self.facade)


BLOOD_RAGE_TERMS = {
    "board_count_at": "Ragnarök",  # when the figures on the board are counted (BatchOut.board_rag)
    "stat_raises": "quests and pillage rewards raise stats",
    "kept": "carried over at Discard",
}
VALHALLA_TERMS = {
    "board_count_at": "Prove Valor",
    "stat_raises": "quests, contest rewards, god tiles and cards raise stats",
    "kept": "kept on the clan symbol for the next age (Valhalla: age = the age of use)",
}

VALHALLA_DICE_TERMS = {
    "board_count_at": "Ragnarök",
    "stat_raises": "no clan stats in this game",
    "clan_stats": False,  # no Rage/Axes/Horns tracks: the report leaves out stat paths
    "kept": "kept in hand",
    # Glory by source as this game says it (the slots BatchOut shares with the other games)
    "glory_sources": {"battle": "attacks won", "contest": "defences won", "ragnarok": "Ragnarök",
                      "bonus": "shields", "cards": "shield sets", "mission": "Jarl",
                      "pillage": "Loki's Deception", "quest": "King of the Hill"},
    # the game-shape counters it fills (valhalla_dice.api.SHAPE_COUNTERS), per clan and per game
    "shape": {"actions": "turns", "pillages": "attacks", "pillages_won": "attacks won",
              "battle_ties": "attacks arming no Warrior", "battles": "defences", "battles_won": "defences won",
              "quests": "Tactics played", "quests_done": "Warriors sent from won defences",
              "lost_battle": "own shields lost"},
    "shape_per_game": {"turns": ["actions", None], "battles": ["pillages", None],
                       "won by the attacker": ["pillages_won", None], "Tactics played": ["quests", None]},
    "shape_rates": {"attacker win rate": ["pillages_won", "pillages"]},
    "shape_note": "Per clan: means per game. The attacker win rate is attacks won / attacks (ties go to the "
                  "attacker, 003 l.119); its interval counts battles as independent.",
    "drafted": "started with",  # BatchOut.picks: the kept hand and the table Warrior
    "cards_note": "started with = in the hand kept at setup (7 keep 5) or the table Warrior picked; iwd = win "
                  "rate when started with − when not (same strategy); p_adj = Benjamini–Hochberg adjusted p of "
                  "the z-test of iwd clustered by seed block; played = a Tactic played in a battle; ata and age "
                  "have no meaning in this game (no draft, one deck). Starting with a card is partly the "
                  "player's keep choice: `volva ablate CARD` measures its effect.",
}

#: --module NAME -> the rule option it turns on (the rule sets whose rules.toml [options] list it)
MODULES = {"gods-of-asgard": "gods_of_asgard", "loki-deception": "loki_deception", "king-of-the-hill": "king_of_the_hill"}

_ENGINES: dict[str, Engine] = {}
#: rule set name (a folder of simulator/data/) -> engine; a data folder not listed here names
#: its engine in rules.toml ``engine = "..."`` (default blood-rage)
_RULESETS: dict[str, str] = {}


def register(engine: Engine, rulesets: tuple[str, ...] = ()) -> None:
    """Add an engine (and the rule set names it plays) to the registry; replaces one of the same name."""
    _ENGINES[engine.name] = engine
    for r in rulesets:
        _RULESETS[r] = engine.name


def unregister(name: str) -> None:
    """Remove an engine and its rule set names (tests register toy engines)."""
    _ENGINES.pop(name, None)
    for r in [r for r, e in _RULESETS.items() if e == name]:
        del _RULESETS[r]


register(Engine("blood-rage", f"{__package__}.bloodrage", "Blood Rage", (2, 5)), ("blood-rage",))
register(Engine("valhalla", f"{__package__}.valhalla", "Blood Rage: Valhalla", (3, 5), True, dict(VALHALLA_TERMS)),
         ("valhalla",))
register(Engine("rainbow-bridge", f"{__package__}.rainbow", "Rainbow Bridge", (3, 5), True, dict(VALHALLA_TERMS)))
register(Engine("valhalla-dice", f"{__package__}.valhalla_dice", "Valhalla (dice game)", (2, 6), False,
                dict(VALHALLA_DICE_TERMS)), ("valhalla-dice",))


def names() -> list[str]:
    """Rule set names ``--ruleset`` accepts: registered ones and the data folders."""
    folders = {p.name for p in DATA_DIR.iterdir() if p.is_dir()} if DATA_DIR.is_dir() else set()
    return sorted(set(_RULESETS) | folders)


def player_ranges() -> tuple[int, int, list[str]]:
    """(fewest, most, ['blood-rage: 2..5', 'valhalla: 3..5', ...]) players over the registered rule
    sets and data folders, each rule set's own range listed."""
    ranges = {}
    for name in names():
        try:
            ranges[name] = engine_of(name).players
        except RulesError:  # a malformed data folder: its own error comes on load
            pass
    lo, hi = min(r[0] for r in ranges.values()), max(r[1] for r in ranges.values())
    return lo, hi, [f"{n}: {a}..{b}" for n, (a, b) in sorted(ranges.items())]


def get(rs_or_name) -> Engine:
    """The engine of a loaded rule set (its ``.engine``) or of an engine name. Raises KeyError."""
    key = rs_or_name if isinstance(rs_or_name, str) else getattr(rs_or_name, "engine", "blood-rage")
    if key not in _ENGINES:
        raise KeyError(f"unknown engine {key!r}; registered: {sorted(_ENGINES)}")
    return _ENGINES[key]


def engine_of(name: str, data_dir: Path = DATA_DIR) -> Engine:
    """The engine that plays rule set ``name``. Raises RulesError for an unknown rule set."""
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise RulesError(f"unknown rule set {name!r}; allowed: {', '.join(names())} (or a directory name "
                         f"under {data_dir})")
    if name in _RULESETS:
        return _ENGINES[_RULESETS[name]]
    root = Path(data_dir) / name
    if not root.is_dir():
        raise RulesError(f"unknown rule set {name!r}; allowed: {', '.join(names())}")
    eng = load_toml(root / "rules.toml").get("engine", "blood-rage") if (root / "rules.toml").is_file() \
        else "blood-rage"
    if eng not in _ENGINES:
        raise RulesError(f"{root / 'rules.toml'}: field 'engine': {eng!r}; allowed: {sorted(_ENGINES)}")
    return _ENGINES[eng]


def load_ruleset(name: str = "blood-rage", options: dict | None = None, cards_path: Path | None = None,
                 data_dir: Path = DATA_DIR, patch=None):
    """Load and validate rule set ``name`` with its engine's loader; ``options`` override its
    rules.toml [options]; ``patch`` is a card patch (TOML). Raises RulesError naming the file,
    entry and field for an unknown rule set, option or malformed file."""
    return engine_of(name, data_dir).api.load(name, options=options, data_dir=data_dir, cards_path=cards_path,
                                              patch=patch)


def play_batch(rs, lineup, seeds, check: bool = False, game_ids=None, period: int = 1) -> BatchOut:
    """Play one complete game per seed (seat i: lineup[i] = (policy kind, float64 params)).
    ``game_ids``/``period`` matter to engines whose games depend on the id (a god sweep)."""
    return get(rs).api.play_batch(rs, lineup, seeds, check, game_ids, period)


def play_batches(rs, batches: list) -> list[BatchOut]:
    """:func:`play_batch` of each ``(lineup, seeds, game_ids, period)`` in ``batches``, the batches
    shared out over the numba threads, one batch per thread at a time (many small batches scale
    where each alone is too small to split); the same results, in order, as one call per batch."""
    from .core.threads import spread_calls
    return spread_calls([functools.partial(play_batch, rs, lineup, seeds, False, ids, period)
                         for lineup, seeds, ids, period in batches])


def play_game(rs, lineup, seed: int, log: bool = True, check: bool = False):
    """Play one game; its final state record (``.glory``, ``.rank``, ``.log`` ...)."""
    return get(rs).api.play_game(rs, lineup, seed, log, check)


def replay_text(rs, lineup_names, lineup, master_seed: int, game_id: int = 0, rotate: bool = True) -> str:
    """The readable log of game ``game_id`` of an experiment (the game ``volva run`` plays)."""
    return get(rs).api.replay_text(rs, lineup_names, lineup, master_seed, game_id, rotate)


def scenario_engine(data: dict) -> Engine:
    """The engine of a scenario file's table (its ``ruleset`` key; default blood-rage)."""
    name = data.get("ruleset", "blood-rage") if isinstance(data, dict) else "blood-rage"
    return engine_of(name)


def run_scenario(path, resolve_for, check: bool = True) -> dict:
    """Set up scenario file ``path`` with the engine its ``ruleset`` names, run its steps and
    return the resulting position as a JSON-ready dict. ``resolve_for(engine)`` gives the strategy
    resolver of an engine (strategies.lineup.resolve_for). With ``check``, the file's [expect]
    table is compared with the result (any mismatch: one ScenarioError listing every failing
    path). Raises ScenarioError."""
    from .core.scenario import check_expect
    path = Path(path)
    d = read_toml(path, ScenarioError)
    try:
        eng = scenario_engine(d)
    except RulesError as exc:
        raise ScenarioError(f"{path}: field 'ruleset': {exc}") from None
    sc = eng.api.load_scenario(path, d, resolve_for(eng.name))
    sc.run()
    result = sc.result()
    if check:
        check_expect(sc, result)
    return result
