"""Valhalla dice game strategies: parameter vectors (float64[VD_N]) read by the decision kernels.

kind (int8): VDPOL_RANDOM (uniform over legal choices; battles armed by the greedy keep rule)
or VDPOL_GREEDY (the heuristics below, tuned by params). New strategies are parameter vectors,
never callbacks.
"""
import numpy as np
from numba import njit

from ..core.canon import canonical
from ..core.record import G_FOCAL
from ..core.rng import rand_int_nb
from .tables import KIND_WARRIOR, MAX_JARLS

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
VD_TARGET_SET = 8  #: target choice: weight of the set bonus one more shield from that opponent adds
VD_IDLE_ATTACK = 9  #: 1: attack when there is nothing to build (team full or no Warrior in hand); 0: draw
VD_HOLD_TACTICS = 10  #: 1: keep Push back, New weapons and Weapons exchange for Ragnarök (none in battles)
VD_JARL_W0 = 11  #: VD_JARL_W0 + j: preference for Jarl j (jarls.csv row) when choosing 1 of those dealt
VD_KING_TARGET = VD_JARL_W0 + MAX_JARLS  #: target choice: preference for attacking a King (King of the Hill)
VD_N = VD_KING_TARGET + 1


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
    v[VD_TARGET_SET] = 0.0
    v[VD_IDLE_ATTACK] = 1
    v[VD_HOLD_TACTICS] = 0
    return v


@njit(cache=True)
def card_value_nb(T, c, prm):
    """A card's worth to keep: strength × P(armed alone) + w × Glory; a Tactic's fixed value."""
    if T.kind[c] == KIND_WARRIOR:
        return T.strength[c] * T.p_armed[c] + prm[VD_W_GLORY] * T.glory[c]
    return prm[VD_TACTIC_VALUE]


@canonical("p", "c")
@njit(cache=True)
def mark_nb(T, S, p, c):
    """The ``volva ablate`` mark binding seat p on card c: DRAFT_FORCED (1), DRAFT_BANNED (-1) or 0
    (free; every card when no rule is set). One-clan rules bind the seat S.gs[G_FOCAL] only."""
    if T.draft_rules == 0 or (S.gs[G_FOCAL] >= 0 and S.gs[G_FOCAL] != p):
        return 0
    return T.draft[c]


@canonical("p", "n", bools=("worst",))
@njit(cache=True)
def pick_nb(S, T, p, kind, prm, cards, n, worst):
    """Index in cards[:n] of seat p's best card to keep (worst=True: the one to let go). Random:
    any. Under an ablation rule a bound seat keeps a forced card and lets a banned one go first,
    whenever it has the choice (rulings R61)."""
    if T.draft_rules != 0:
        return marked_pick_nb(S, T, p, kind, prm, cards, n, worst)
    return pick_nb_free(S, T, kind, prm, cards, n, worst)


@njit(cache=True)
def marked_pick_nb(S, T, p, kind, prm, cards, n, worst):
    """pick_nb under ablation marks: the marked card the choice must take first (banned when letting
    go, forced when keeping), else the policy's choice among the cards it may take."""
    first = -1 if worst else 1
    for i in range(n):
        if mark_nb(T, S, p, cards[i]) == first:
            return i
    allowed = 0
    for i in range(n):
        if mark_nb(T, S, p, cards[i]) != -first:
            allowed += 1
    if allowed == 0:  # every card is one it may not take: the policy chooses among them all
        return pick_nb_free(S, T, kind, prm, cards, n, worst)
    if kind == VDPOL_RANDOM:
        r = rand_int_nb(S.rs, allowed)
        for i in range(n):
            if mark_nb(T, S, p, cards[i]) != -first:
                if r == 0:
                    return i
                r -= 1
    best, bi = 0.0, -1
    for i in range(n):
        if mark_nb(T, S, p, cards[i]) == -first:
            continue
        v = card_value_nb(T, cards[i], prm)
        if bi < 0 or (v < best if worst else v > best):
            best, bi = v, i
    return bi


@njit(cache=True)
def pick_nb_free(S, T, kind, prm, cards, n, worst):
    """pick_nb without ablation marks."""
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
