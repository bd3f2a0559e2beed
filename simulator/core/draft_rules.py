"""Who a draft rule binds (``volva ablate``), the same in both engines.

A rule set's ``card_draft`` marks cards forced or banned. With ``draft_one`` = 0 the marks bind
every clan (the forced-vs-banned regime of every clan); with ``draft_one`` = 1 they bind one clan
per game, the seat ``seed % P`` (so the rotations of a deal, which share the seed, put each
strategy in that seat in turn, and analysis can name the seat from the seed), and a forced card
binds it for one copy per age: once it holds a forced card of this age it drafts freely.
"""
import numpy as np
from numba import njit

from . import enums as E
from .record import G_AGE, G_FOCAL


@njit(cache=True)
def focal_seat_nb(T, seed, n_players):
    """The seat the draft rules bind in a game of ``seed``: seed % n_players, or -1 (every seat)."""
    if T.draft_one == 1:
        return np.int64(seed % np.uint64(n_players))
    return -1


@njit(cache=True)
def rules_bind_nb(T, S, q):
    """0: clan q drafts freely; 1: forced and banned marks bind it; 2: only banned marks bind it
    (one clan already holds its forced copy of this age)."""
    if T.draft_one == 0:
        return 1
    if q != S.gs[G_FOCAL]:
        return 0
    a = S.gs[G_AGE] - 1
    for k in range(S.picks.shape[2]):
        c = S.picks[q, a, k]
        if c >= 0 and T.card_draft[c] == E.DRAFT_FORCED:
            return 2
    return 1
