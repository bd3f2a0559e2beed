"""Blood Rage: Valhalla strategies: name -> (VPOL_* kind, float64[VP_N] params) (enums VP_*).

The greedy heuristic is in simulator/valhalla/policy.py; the archetypes below change its weights
the way the rulebook's drafting tips describe each god ("Strategy Tips for Drafting"): a devotee
of a god adds a draft bonus to that god's cards. Names: random, greedy, the five devotees
(thor, loki, freya, baldr, tyr), quester (quests first), warlord (battle cards, contests at a
smaller margin), valor (Prove Valor majorities).
"""
from __future__ import annotations

import numpy as np

from simulator import enums as E


def greedy_params() -> np.ndarray:
    """The greedy strategy's parameters (float64[VP_N])."""
    from simulator.valhalla.api import default_params
    return default_params()


def _devotee(god: str) -> np.ndarray:
    v = greedy_params()
    v[E.VP_GOD_W0 + E.VH_GOD_NAMES.index(god)] = 3.0
    return v


def _with(**kw) -> np.ndarray:
    v = greedy_params()
    for k, x in kw.items():
        v[getattr(E, k)] = x
    return v


def builtin() -> dict[str, tuple[int, np.ndarray]]:
    """name -> (kind, params) of every shipped Valhalla strategy (fresh arrays)."""
    out = {"random": (E.VPOL_RANDOM, np.zeros(E.VP_N)), "greedy": (E.VPOL_GREEDY, greedy_params())}
    for g in E.VH_GOD_NAMES:
        out[g] = (E.VPOL_GREEDY, _devotee(g))
    out["quester"] = (E.VPOL_GREEDY, _with(VP_W_QUEST=6.0, VP_STAT0=E.STAT_HORNS, VP_STAT1=E.STAT_RAGE,
                                           VP_STAT2=E.STAT_AXES))
    out["warlord"] = (E.VPOL_GREEDY, _with(VP_W_BATTLE=1.6, VP_W_MONSTER=1.6, VP_CONTEST_MARGIN=0.0,
                                           VP_W_QUEST=1.5))
    out["valor"] = (E.VPOL_GREEDY, _with(VP_VALOR=2.5, VP_W_MONSTER=0.8, VP_STAT0=E.STAT_RAGE))
    return out


DESCRIPTIONS = {
    "random": "uniform over legal choices",
    "greedy": "the built-in heuristic (simulator/valhalla/policy.py)",
    **{g: f"greedy, +3 draft bonus for {g.capitalize()}'s cards" for g in E.VH_GOD_NAMES},
    "quester": "greedy, quests weighted 6, raises Horns first",
    "warlord": "greedy, battle cards and Monsters weighted 1.6, contests at margin 0",
    "valor": "greedy, Prove Valor majorities weighted 2.5, raises Rage first",
}


def resolve(name: str) -> tuple[int, np.ndarray]:
    """Strategy name -> (VPOL_* kind, params). Raises ValueError naming the allowed names."""
    b = builtin()
    key = name.strip()
    if key in b:
        return b[key]
    raise ValueError(f"unknown strategy {name!r} for valhalla; allowed: {', '.join(sorted(b))}")
