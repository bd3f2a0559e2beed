"""Valhalla dice game piles: deck, discard, hands, teams and Valhallas (DIGEST §5.5; 003 l.69-89)."""
from numba import njit

from ..core.canon import canonical
from ..core.record import log_nb
from .policy import pick_nb
from .state import END_DECK, G_ACTIVE, G_DECK_N, G_DISC_N, G_END, G_END_SEAT

EV_END = 4  #: log event: the end of the game is triggered (reason, seat)


# --- piles ------------------------------------------------------------------------------------
@njit(cache=True)
def draw_nb(S, p):
    """The top card of the deck into p's hand (-1: the deck is empty, nothing drawn, DIGEST §5.5).
    Drawing the last card triggers the end of the game (003 l.133)."""
    n = S.gs[G_DECK_N]
    if n == 0:
        return -1
    c = S.deck[n - 1]
    S.deck[n - 1] = -1
    S.gs[G_DECK_N] = n - 1
    if n == 1 and S.gs[G_END] == 0:
        trigger_end_nb(S, END_DECK)
    S.hand[p, S.hand_n[p]] = c
    S.hand_n[p] += 1
    return c


@njit(cache=True)
def trigger_end_nb(S, why):
    """The first end trigger only (DIGEST §5.9: no second trigger)."""
    if S.gs[G_END] == 0:
        S.gs[G_END] = why
        S.gs[G_END_SEAT] = S.gs[G_ACTIVE]
        log_nb(S, EV_END, S.gs[G_ACTIVE], why, 0, 0, 0, 0)


@njit(cache=True)
def discard_nb(S, c):
    S.discard[S.gs[G_DISC_N]] = c
    S.gs[G_DISC_N] += 1


@canonical("p", "i")
@njit(cache=True)
def row_take_nb(rows, counts, p, i):
    """Remove and return rows[p, i] of a seat's pile (hand or team; order of the rest kept)."""
    c = rows[p, i]
    n = counts[p]
    for k in range(i, n - 1):
        rows[p, k] = rows[p, k + 1]
    rows[p, n - 1] = -1
    counts[p] = n - 1
    return c


@canonical("p", "i")
@njit(cache=True)
def hand_take_nb(S, p, i):
    return row_take_nb(S.hand, S.hand_n, p, i)


@njit(cache=True)
def team_take_nb(S, p, i):
    return row_take_nb(S.team, S.team_n, p, i)


@canonical("c", "source")
@njit(cache=True)
def to_valhalla_nb(T, S, p, c, source):
    S.valhalla[p, S.valhalla_n[p]] = c
    S.valhalla_n[p] += 1
    S.cnt[p, source] += T.glory[c]


@njit(cache=True)
def add_to_team_nb(T, S, p, c, kind, prm):
    """A Warrior joins p's team; past the cap the owner discards team Warriors down to it
    (003 l.84-85: the least valuable by the policy)."""
    S.team[p, S.team_n[p]] = c
    S.team_n[p] += 1
    while S.team_n[p] > T.team_cap:
        i = pick_nb(S, T, p, kind, prm, S.team[p], S.team_n[p], True)
        discard_nb(S, team_take_nb(S, p, i))


@canonical("p", "n", "k")  # n, k: the tables' int16 counts or a card's int64: one body
@njit(cache=True)
def draw_keep_nb(T, S, p, n, k, kind, prm):
    """Draw n, keep k, discard the rest face up (Phase B and action A4; 003 l.88-89)."""
    start = S.hand_n[p]
    for _ in range(n):
        draw_nb(S, p)
    got = S.hand_n[p] - start
    while got > k:
        i = pick_nb(S, T, p, kind, prm, S.hand[p, start:], got, True)
        discard_nb(S, hand_take_nb(S, p, start + i))
        got -= 1


