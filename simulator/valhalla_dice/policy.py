"""Valhalla dice game strategies: parameter vectors (float64[VD_N]) read by the decision kernels.

kind (int8): VDPOL_RANDOM (uniform over legal choices; battles armed by the greedy keep rule)
or VDPOL_GREEDY (the heuristics below, tuned by params). New strategies are parameter vectors,
never callbacks.
"""
import numpy as np
from numba import njit

from ..core.rng import rand_int_nb
from .tables import KIND_WARRIOR

VDPOL_RANDOM = 0
VDPOL_GREEDY = 1

VD_ARM = 0  #: arming policy (battle.ARM_GREEDY / ARM_DP / ARM_NONE)
VD_ATTACK_TEAM = 1  #: attack only with at least this many Warriors on the team
VD_ATTACK_VALUE = 2  #: ... and this expected strength (Σ strength × P(armed) of the team)
VD_W_GLORY = 3  #: card value: weight of a Warrior's Glory beside strength × P(armed)
VD_TACTIC_VALUE = 4  #: card value of a Battle Tactic
VD_SEND_GLORY = 5  #: a winning defender sends activated Warriors with at least this Glory to Valhalla
VD_ENDGAME_DECK = 6  #: with this few cards left in the deck, attack whenever allowed
VD_ATT_TACTICS = 7  #: strength Tactics the attacker plays at most in a battle
VD_N = 8


def greedy_params() -> np.ndarray:
    """The greedy strategy's parameters (float64[VD_N])."""
    v = np.zeros(VD_N)
    v[VD_ARM] = 0
    v[VD_ATTACK_TEAM] = 2
    v[VD_ATTACK_VALUE] = 5.0
    v[VD_W_GLORY] = 1.0
    v[VD_TACTIC_VALUE] = 3.0
    v[VD_SEND_GLORY] = 2
    v[VD_ENDGAME_DECK] = 8
    v[VD_ATT_TACTICS] = 1
    return v


@njit(cache=True)
def card_value_nb(T, c, prm):
    """A card's worth to keep: strength × P(armed alone) + w × Glory; a Tactic's fixed value."""
    if T.kind[c] == KIND_WARRIOR:
        return T.strength[c] * T.p_armed[c] + prm[VD_W_GLORY] * T.glory[c]
    return prm[VD_TACTIC_VALUE]


@njit(cache=True)
def pick_nb(S, T, kind, prm, cards, n, worst):
    """Index in cards[:n] of the best card to keep (worst=True: the one to let go). Random: any."""
    if kind == VDPOL_RANDOM:
        return rand_int_nb(S.rs, n)
    best, bi = 0.0, -1
    for i in range(n):
        v = card_value_nb(T, cards[i], prm)
        if bi < 0 or (v < best if worst else v > best):
            best, bi = v, i
    return bi


@njit(cache=True)
def team_value_nb(S, T, p):
    """Expected strength of p's team, Warriors armed alone: Σ strength × P(armed)."""
    v = 0.0
    for i in range(S.team_n[p]):
        c = S.team[p, i]
        v += T.strength[c] * T.p_armed[c]
    return v
