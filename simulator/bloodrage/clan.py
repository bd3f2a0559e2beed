"""Clan-sheet mutations: stats, Glory, hand, discard, figure destruction.

The single place where these change, so every later card hook (on destroy,
on raise, ...) has one place to attach.
"""
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from .state import G_DISCARD_N, log_nb


@canonical("p", "s")
@njit(cache=True)
def raise_stat_nb(S, p, s, cause):
    """Raise clan p's stat s one step (DIGEST §1.4: a raise beyond step 6 is lost). Returns True if raised."""
    if S.stat[p, s] >= E.N_STEPS - 1:
        return False
    S.stat[p, s] += 1
    n = S.path_n[p]
    if n < E.MAX_PATH:
        S.path[p, n] = s
        S.path_n[p] = n + 1
    log_nb(S, E.EV_RAISE, p, s, S.stat[p, s], cause, 0, 0)
    return True


@canonical("p", "n")
@njit(cache=True)
def gain_glory_nb(S, p, src, n):
    """Add n Glory to clan p from source src (G_*)."""
    S.glory[p, src] += n


@canonical("p")
@njit(cache=True)
def total_glory_nb(S, p):
    t = 0
    for k in range(E.N_GLORY_SRC):
        t += S.glory[p, k]
    return t


@canonical("p")
@njit(cache=True)
def add_to_hand_nb(S, p, c):
    n = S.hand_n[p]
    S.hand[p, n] = c
    S.hand_n[p] = n + 1


@canonical("p", "i")
@njit(cache=True)
def take_from_hand_nb(S, p, i):
    """Remove and return hand[p, i]; the last card fills the hole."""
    c = S.hand[p, i]
    n = S.hand_n[p] - 1
    S.hand[p, i] = S.hand[p, n]
    S.hand[p, n] = -1
    S.hand_n[p] = n
    return c


@njit(cache=True)
def discard_nb(S, c):
    """Put card c on the discard pile."""
    n = S.gs[G_DISCARD_N]
    S.discard[n] = c
    S.gs[G_DISCARD_N] = n + 1


@njit(cache=True)
def to_valhalla_nb(S, p, f, cause):
    """Destroy figure f of clan p: it goes to Valhalla (DIGEST §1.6 step 6, §1.5 Ragnarök)."""
    log_nb(S, E.EV_DESTROY, p, f, S.loc[p, f], cause, 0, 0)
    if cause == E.CAUSE_BATTLE:
        S.game_shape[p, E.SH_LOST_BATTLE] += 1
    elif cause == E.CAUSE_RAGNAROK:
        S.game_shape[p, E.SH_LOST_RAGNAROK] += 1
    S.loc[p, f] = E.LOC_VALHALLA


@njit(cache=True)
def apply_reward_nb(T, S, p, reward):
    """Pillage reward (DIGEST §1.6): +1 step on a stat, +5 Glory, or +1 on all three."""
    if reward == E.REWARD_GLORY:
        gain_glory_nb(S, p, E.G_PILLAGE, T.glory_token)
    elif reward == E.REWARD_ALL:
        for s in range(E.N_STATS):
            raise_stat_nb(S, p, s, E.RAISE_REWARD)
    else:
        raise_stat_nb(S, p, reward, E.RAISE_REWARD)
