"""Strategy files (TOML) -> (policy kind, float64[N_PARAMS] parameter vector).

A strategy names a base policy and overrides its numbers; the engine's greedy policy
reads them (simulator/policy.py), so a new strategy is a file, never code.  Format:

    name = "thor-warlord"
    plan = "one line: the plan it plays"
    base = "greedy"                      # greedy | random
    [draft]                              # draft scoring (also the card carried over)
    battle = 1.4                         # per +STR of a battle card
    monster = 1.0                        # per STR of a Monster
    quest = 2.0                          # per 3 Glory of a quest
    upgrade = 1.5                        # Leader/Warrior/Ship/clan upgrades
    gods = { thor = 2.0, tyr = 1.0 }     # bonus per card of that god
    cards = { "Thor's Hammer" = 3.0 }    # bonus for a card (any age)
    [play]
    pillage_margin = 1.0                 # STR margin wanted before pillaging
    opponent_card = 2.0                  # card value assumed for each opponent
    late_rage = 2                        # at or below this Rage: go to the doomed province
    doom = 0.0                           # extra wish for the doomed province at any time
    pass_score = 0.0                     # pass when no action scores above this
    call_margin = 2.0                    # Call to Battle: stop joining once this far ahead
    hold_big = false                     # when no card wins, play the smallest (keep big cards)
    protect = true                       # pay for Frigga's Protection when possible
    stat_path = ["axes", "rage", "horns"]   # stat raise preference
    [draft] also takes synergy (bonus per held card of the same god) and hate (weight of a
    card's plain worth, to deny it to the next clan).

    [[rule]]                             # ordered rules, Geronimoo-style (at most 8, 4 overrides each):
    when = { age = [3], rage_max = 3 }   # age list, rage_min, rage_max (all optional)
    set = { doom = 6.0, quest = 4.0 }    # any scalar draft/play key above

Every matching rule applies when a decision is made, in file order (later rules win).

Errors: StrategyError naming the file, the key and what is allowed.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from volva.simulator.core import enums as E
from volva.simulator.core.loading import toml_bytes

LIBRARY = Path(__file__).parent / "library"


class StrategyError(ValueError):
    """A strategy file is malformed (message: file, key, allowed)."""


@dataclass
class Strategy:
    name: str
    plan: str
    kind: int
    params: np.ndarray  # float64[N_PARAMS]
    path: Path | None = None


WEIGHT = (-20.0, 20.0)
DRAFT_KEYS = {"battle": E.P_W_BATTLE, "monster": E.P_W_MONSTER, "quest": E.P_W_QUEST, "upgrade": E.P_W_UPGRADE,
              "synergy": E.P_SYNERGY, "hate": E.P_HATE}
PLAY_KEYS = {"pillage_margin": (E.P_PILLAGE_MARGIN, (-10.0, 20.0)), "opponent_card": (E.P_OPP_CARD, (0.0, 10.0)),
             "late_rage": (E.P_LATE_RAGE, (0.0, 20.0)), "doom": (E.P_DOOM, WEIGHT),
             "pass_score": (E.P_PASS_RAGE, WEIGHT), "call_margin": (E.P_CALL_MARGIN, (-10.0, 20.0))}
FLAG_KEYS = {"hold_big": E.P_HOLD_BIG, "protect": E.P_PROTECT}
#: every scalar a rule may set: name -> (param index, allowed range)
RULE_KEYS = {**{k: (i, WEIGHT) for k, i in DRAFT_KEYS.items()}, **PLAY_KEYS,
             **{k: (i, (0.0, 1.0)) for k, i in FLAG_KEYS.items()}}
TOP_KEYS = {"name", "plan", "base", "draft", "play", "rule", "provenance"}  # provenance: how a tuned file was made


def greedy_defaults() -> np.ndarray:
    """The built-in greedy policy's parameter vector."""
    p = np.zeros(E.N_PARAMS, np.float64)
    p[E.P_W_BATTLE], p[E.P_W_MONSTER], p[E.P_W_QUEST], p[E.P_W_UPGRADE] = 1.0, 1.2, 2.5, 1.5
    p[E.P_PILLAGE_MARGIN], p[E.P_OPP_CARD], p[E.P_LATE_RAGE] = 1.0, 2.0, 2.0
    p[E.P_STAT0], p[E.P_STAT1], p[E.P_STAT2] = E.STAT_AXES, E.STAT_RAGE, E.STAT_HORNS
    p[E.P_CALL_MARGIN], p[E.P_PROTECT] = 2.0, 1.0
    return p


def _fail(path, key, msg):
    raise StrategyError(f"{path}: {key}: {msg}")


def _num(path, key, v, lo, hi) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
        _fail(path, key, f"got {v!r}; allowed: a number {lo:g}..{hi:g}")
    return float(v)


def _table(path, key, v, allowed) -> dict:
    if not isinstance(v, dict):
        _fail(path, key, f"got {v!r}; allowed: a table")
    for k in v:
        if k not in allowed:
            _fail(path, f"{key}.{k}", f"unknown key; allowed: {sorted(allowed)}")
    return v


def parse_strategy(doc: dict, path, card_names: list[str]) -> Strategy:
    """Validate a parsed strategy document and compile it. Raises StrategyError."""
    for k in doc:
        if k not in TOP_KEYS:
            _fail(path, k, f"unknown key; allowed: {sorted(TOP_KEYS)}")
    name = doc.get("name")
    if name is None:  # Blood Rage: Valhalla's and the dice game's strategy files have no name
        _fail(path, "name", "missing; allowed: a non-empty name without commas (a Blood Rage strategy file names "
                            "itself; one of another rule set, Blood Rage: Valhalla or the dice game, is read with "
                            "that --ruleset)")
    if not isinstance(name, str) or not name.strip() or "," in name:
        _fail(path, "name", f"got {name!r}; allowed: a non-empty name without commas")
    plan = doc.get("plan", "")
    if not isinstance(plan, str):
        _fail(path, "plan", f"got {plan!r}; allowed: a string")
    base = doc.get("base", "greedy")
    if base not in ("greedy", "random"):
        _fail(path, "base", f"got {base!r}; allowed: 'greedy', 'random'")
    if base == "random":
        return Strategy(name, plan, E.POL_RANDOM, np.zeros(E.N_PARAMS), Path(path))
    p = greedy_defaults()
    draft = _table(path, "draft", doc.get("draft", {}), set(DRAFT_KEYS) | {"gods", "cards"})
    for k, idx in DRAFT_KEYS.items():
        if k in draft:
            p[idx] = _num(path, f"draft.{k}", draft[k], *WEIGHT)
    for g, w in _table(path, "draft.gods", draft.get("gods", {}), set(E.GOD_NAMES)).items():
        p[E.P_GOD_W0 + E.GOD_NAMES.index(g)] = _num(path, f"draft.gods.{g}", w, *WEIGHT)
    known = set(card_names)
    for c, w in _table(path, "draft.cards", draft.get("cards", {}), known).items():
        w = _num(path, f"draft.cards.{c!r}", w, *WEIGHT)
        for i, n in enumerate(card_names):
            if n == c:
                p[E.P_CARD_W0 + i] = w
    play = _table(path, "play", doc.get("play", {}), set(PLAY_KEYS) | set(FLAG_KEYS) | {"stat_path"})
    for k, (idx, rng) in PLAY_KEYS.items():
        if k in play:
            p[idx] = _num(path, f"play.{k}", play[k], *rng)
    for k, idx in FLAG_KEYS.items():
        if k in play:
            if not isinstance(play[k], bool):
                _fail(path, f"play.{k}", f"got {play[k]!r}; allowed: true, false")
            p[idx] = float(play[k])
    _rules(path, doc.get("rule", []), p)
    if "stat_path" in play:
        sp = play["stat_path"]
        if not isinstance(sp, list) or not all(isinstance(x, str) for x in sp) or sorted(sp) != sorted(E.STAT_NAMES):
            _fail(path, "play.stat_path", f"got {sp!r}; allowed: the three stats in order, e.g. {list(E.STAT_NAMES)}")
        for k, st in enumerate(sp):
            p[E.P_STAT0 + k] = E.STAT_NAMES.index(st)
    return Strategy(name, plan, E.POL_GREEDY, p, Path(path))


def _rules(path, rules, p) -> None:
    """[[rule]] tables -> the rule blocks of p (see simulator.policy.effective_params_nb)."""
    if not isinstance(rules, list) or len(rules) > E.MAX_RULES:
        _fail(path, "rule", f"allowed: at most {E.MAX_RULES} [[rule]] tables")
    for r, rule in enumerate(rules):
        key = f"rule[{r + 1}]"
        _table(path, key, rule, {"when", "set"})
        when = _table(path, f"{key}.when", rule.get("when", {}), {"age", "rage_min", "rage_max"})
        ages = when.get("age", [1, 2, 3])
        if not isinstance(ages, list) or not ages or any(a not in (1, 2, 3) for a in ages):
            _fail(path, f"{key}.when.age", f"got {ages!r}; allowed: a list of ages 1..3")
        lo = _num(path, f"{key}.when.rage_min", when.get("rage_min", 0), 0, 99)
        hi = _num(path, f"{key}.when.rage_max", when.get("rage_max", 99), 0, 99)
        if hi < lo:  # a rule that could never fire
            _fail(path, f"{key}.when.rage_max", f"got {hi:g}; allowed: {lo:g}..99 (at least rage_min)")
        sets = _table(path, f"{key}.set", rule.get("set", {}), set(RULE_KEYS))
        if not 1 <= len(sets) <= E.RULE_OVERRIDES:
            _fail(path, f"{key}.set", f"{len(sets)} keys; allowed: 1..{E.RULE_OVERRIDES} of {sorted(RULE_KEYS)}")
        o = E.P_RULES0 + r * E.RULE_W
        p[o:o + 5] = [1.0, sum(1 << (a - 1) for a in set(ages)), lo, hi, len(sets)]
        for k, (name, v) in enumerate(sets.items()):
            idx, rng = RULE_KEYS[name]
            v = float(v) if isinstance(v, bool) else v
            p[o + 5 + 2 * k] = idx
            p[o + 6 + 2 * k] = _num(path, f"{key}.set.{name}", v, *rng)


def load_strategy(path, card_names: list[str]) -> Strategy:
    """Read and validate a strategy file. Raises StrategyError (file, key, allowed)."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            doc = toml_bytes(fh.read())
    except FileNotFoundError:
        raise StrategyError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise StrategyError(f"{path}: is a directory, not a strategy file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise StrategyError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise StrategyError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return parse_strategy(doc, path, card_names)


def library(card_names: list[str]) -> dict[str, Strategy]:
    """The shipped archetypes (strategies/library/*.toml) by name."""
    out = {}
    for f in sorted(LIBRARY.glob("*.toml")):
        s = load_strategy(f, card_names)
        out[s.name] = s
    return out
