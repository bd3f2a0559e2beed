"""What `volva tune` may change in a strategy: the knobs of each engine's strategy-file format.

A knob is a dotted key of the strategy document (``draft.battle``, ``play.stat_path``,
``god_bonus.loki``) with its range and kind; a candidate is a document, compiled by the same
parser that reads strategy files, so a tuned strategy is an ordinary file anyone can read and edit.
[[rule]] blocks (Blood Rage) are not searched: the tuner starts from a document and keeps them.
"""
from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from volva.simulator.core import enums as E

from . import spec
from . import valhalla as vh
from . import valhalla_dice as vd

STAT_ORDERS = tuple(list(p) for p in itertools.permutations(E.STAT_NAMES))


@dataclass(frozen=True)
class Knob:
    """One searchable value of a strategy document."""
    key: str  #: dotted path in the document, e.g. "draft.battle"
    low: float = 0.0
    high: float = 1.0
    kind: str = "float"  #: float | int | bool | choice
    choices: tuple = ()  #: for kind "choice"

    def neighbours(self, value) -> list:
        """The one-step deviations of ``value``: +-10% of the range (float), +-1 (int), the other
        truth value (bool), every other choice (choice); clipped to the range."""
        if self.kind == "bool":
            return [not value]
        if self.kind == "choice":
            return [c for c in self.choices if c != value]
        step = 1 if self.kind == "int" else (self.high - self.low) / 10
        out = []
        for v in (value - step, value + step):
            v = min(max(v, self.low), self.high)
            v = int(v) if self.kind == "int" else round(float(v), 6)
            if v != value and v not in out:
                out.append(v)
        return out


def get_in(doc: dict, key: str, default=None):
    cur = doc
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    return cur


def set_in(doc: dict, key: str, value) -> dict:
    """A copy of ``doc`` with ``key`` (dotted) set to ``value``."""
    out = copy.deepcopy(doc)
    cur = out
    parts = key.split(".")
    for part in parts[:-1]:
        cur = cur.setdefault(part, {})
    cur[parts[-1]] = value
    return out


@dataclass
class SearchSpace:
    """The knobs of one engine's strategies and how a document becomes (kind, params)."""
    engine: str
    knobs: list[Knob]
    compile: Callable[[dict, list[str]], tuple[int, np.ndarray]]  #: (document, card names) -> (kind, params)
    start: dict = field(default_factory=dict)  #: the document a search starts from (greedy's values)
    #: params -> the knob values they hold (a document), where the format maps one to one (else None)
    decompile: Callable[[np.ndarray], dict] | None = None

    def knob(self, key: str) -> Knob:
        return next(k for k in self.knobs if k.key == key)


def _blood_rage_compile(doc: dict, card_names: list[str]) -> tuple[int, np.ndarray]:
    s = spec.parse_strategy({"name": "candidate", **{k: v for k, v in doc.items() if k != "provenance"}},
                            "<tuned>", card_names)
    return s.kind, s.params


def _valhalla_compile(doc: dict, card_names: list[str]) -> tuple[int, np.ndarray]:
    return vh.parse_strategy_doc({k: v for k, v in doc.items() if k not in ("name", "plan", "provenance")},
                                 "<tuned>", card_names)


def _blood_rage() -> SearchSpace:
    knobs = [Knob(f"draft.{k}", 0.0, 6.0) for k in ("battle", "monster", "quest", "upgrade")]
    knobs += [Knob("draft.synergy", 0.0, 3.0), Knob("draft.hate", 0.0, 2.0)]
    knobs += [Knob(f"draft.gods.{g}", 0.0, 4.0) for g in E.GOD_NAMES]
    knobs += [Knob("play.pillage_margin", -2.0, 6.0), Knob("play.opponent_card", 0.0, 5.0),
              Knob("play.late_rage", 0, 6, "int"), Knob("play.doom", 0.0, 6.0), Knob("play.pass_score", -2.0, 4.0),
              Knob("play.call_margin", 0.0, 6.0), Knob("play.hold_big", kind="bool"), Knob("play.protect", kind="bool"),
              Knob("play.stat_path", kind="choice", choices=STAT_ORDERS)]
    p = spec.greedy_defaults()
    start = {"base": "greedy",
             "draft": {"battle": p[E.P_W_BATTLE], "monster": p[E.P_W_MONSTER], "quest": p[E.P_W_QUEST],
                       "upgrade": p[E.P_W_UPGRADE], "synergy": 0.0, "hate": 0.0,
                       "gods": {g: 0.0 for g in E.GOD_NAMES}},
             "play": {"pillage_margin": p[E.P_PILLAGE_MARGIN], "opponent_card": p[E.P_OPP_CARD],
                      "late_rage": int(p[E.P_LATE_RAGE]), "doom": 0.0, "pass_score": 0.0,
                      "call_margin": p[E.P_CALL_MARGIN], "hold_big": False, "protect": True,
                      "stat_path": [E.STAT_NAMES[int(p[E.P_STAT0 + k])] for k in range(3)]}}
    return SearchSpace("blood-rage", knobs, _blood_rage_compile, start)


def _valhalla() -> SearchSpace:
    knobs = [Knob(k, 0.0, 8.0) for k in ("w_battle", "w_monster", "w_quest", "w_upgrade")]
    knobs += [Knob("contest_margin", -1.0, 5.0), Knob("opp_card", 0.0, 5.0), Knob("valor", 0.0, 5.0),
              Knob("pass", -1.0, 3.0), Knob("stat_order", kind="choice", choices=STAT_ORDERS)]
    knobs += [Knob(f"god_bonus.{g}", 0.0, 4.0) for g in E.VH_GOD_NAMES]
    v = vh.greedy_params()
    start = {"base": "greedy", **{k: float(v[i]) for k, i in vh.PARAM_KEYS.items()},
             "stat_order": [E.STAT_NAMES[int(v[E.VP_STAT0 + k])] for k in range(3)],
             "god_bonus": {g: 0.0 for g in E.VH_GOD_NAMES}}
    return SearchSpace("valhalla", knobs, _valhalla_compile, start, _valhalla_decompile)


def _valhalla_decompile(v: np.ndarray) -> dict:
    return {**{k: float(v[i]) for k, i in vh.PARAM_KEYS.items()},
            "stat_order": [E.STAT_NAMES[int(v[E.VP_STAT0 + k])] for k in range(3)],
            "god_bonus": {g: float(v[E.VP_GOD_W0 + j]) for j, g in enumerate(E.VH_GOD_NAMES)}}


def _valhalla_dice() -> SearchSpace:
    """Valhalla, the dice game: the heuristic's knobs (arming stays the keep rule: the exact DP is
    too slow to search with). The search starts from jarl-savvy (greedy keeping the Jarls whose
    clans win most, measured) and keeps its Jarl preferences: 25 more knobs would drown the search."""
    from volva.simulator.valhalla_dice.api import load
    from volva.simulator.valhalla_dice.policy import VD_JARL_W0
    ints = {"attack_team": (1, 5), "send_glory": (0, 6), "endgame_deck": (0, 30), "attack_tactics": (0, 3),
            "idle_attack": (0, 1), "hold_tactics": (0, 1)}
    floats = {"attack_value": (0.0, 20.0), "w_glory": (0.0, 6.0), "tactic_value": (0.0, 8.0), "target_set": (0.0, 6.0)}
    jarls = load().god_names
    knobs = [Knob(k, lo, hi, "int") for k, (lo, hi) in ints.items()] + [Knob(k, lo, hi) for k, (lo, hi) in floats.items()]
    v = vd.resolve("jarl-savvy")[1]

    def decompile(p: np.ndarray) -> dict:
        out = {k: (int(p[vd.PARAM_KEYS[k][0]]) if k in ints else float(p[vd.PARAM_KEYS[k][0]]))
               for k in (*ints, *floats)}
        out["jarl_bonus"] = {j: float(p[VD_JARL_W0 + i]) for i, j in enumerate(jarls)}
        return out

    def compile_(doc: dict, card_names: list[str]) -> tuple[int, np.ndarray]:
        return vd.parse_strategy_doc(doc, "<tuned>")

    return SearchSpace("valhalla-dice", knobs, compile_, {"base": "greedy", **decompile(v)}, decompile)


_SPACES = {"blood-rage": _blood_rage, "valhalla": _valhalla, "valhalla-dice": _valhalla_dice}


def space_for(engine: str) -> SearchSpace:
    """The search space of an engine's strategies. Raises KeyError naming the engines that have one."""
    if engine not in _SPACES:
        raise KeyError(f"no tunable strategies for rule set engine {engine!r}; allowed: {sorted(_SPACES)}")
    return _SPACES[engine]()
