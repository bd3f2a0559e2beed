"""Strategies of Valhalla, the dice game: parameter vectors (simulator/valhalla_dice/policy.py
VD_*) under a name. ``greedy`` is the heuristic player; the archetypes play as named."""
from __future__ import annotations

import numpy as np

from volva.simulator.valhalla_dice.battle import ARM_DP, ARM_NONE
from volva.simulator.valhalla_dice.policy import (
    VD_ARM,
    VD_ATT_TACTICS,
    VD_ATTACK_TEAM,
    VD_ATTACK_VALUE,
    VD_ENDGAME_DECK,
    VD_SEND_GLORY,
    VDPOL_GREEDY,
    VDPOL_RANDOM,
    greedy_params,
)


def _with(changes: dict) -> np.ndarray:
    """greedy_params() with {VD_* index: value} changed."""
    v = greedy_params()
    for k, x in changes.items():
        v[k] = x
    return v


#: name -> (policy kind, parameters, what it does)
STRATEGIES = {
    "random": (VDPOL_RANDOM, greedy_params, "uniform over the legal actions, targets and keeps; greedy keep rule"),
    "greedy": (VDPOL_GREEDY, greedy_params, "builds to 2 Warriors worth 5 strength, then attacks the weakest team; "
               "greedy keep rule when rolling"),
    "raider": (VDPOL_GREEDY, lambda: _with({VD_ATTACK_TEAM: 1, VD_ATTACK_VALUE: 0.0, VD_ATT_TACTICS: 3}),
               "attacks whenever it may, with every strength Tactic"),
    "turtle": (VDPOL_GREEDY, lambda: _with({VD_ATTACK_TEAM: 4, VD_ATTACK_VALUE: 14.0, VD_SEND_GLORY: 1,
                                            VD_ENDGAME_DECK: 3}),
               "fills its team before attacking; banks every won defence in Valhalla"),
    "greedy-dp": (VDPOL_GREEDY, lambda: _with({VD_ARM: ARM_DP}),
                  "greedy, arming by the exact DP (optimal rerolls) instead of the keep rule"),
    "no-reroll": (VDPOL_GREEDY, lambda: _with({VD_ARM: ARM_NONE}), "greedy that never rerolls (a baseline)"),
}
DESCRIPTIONS = {n: d for n, (_, _, d) in STRATEGIES.items()}


def resolve(name: str):
    """A strategy name -> (kind, float64[VD_N] params). Raises ValueError naming the allowed ones."""
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; allowed: {', '.join(STRATEGIES)}")
    kind, params, _ = STRATEGIES[name]
    return kind, params()
