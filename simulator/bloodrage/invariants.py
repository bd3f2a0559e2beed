"""Invariants every reachable state keeps (the harness of tests/test_invariants.py).

check_invariants_nb returns the first violated invariant's code (0 = none);
the engine calls it after every action and every phase when gs[G_CHECK] is set.
"""
from numba import njit

from ..core import enums as E
from ..core.record import record_violation_nb
from .board import fjord_usable_nb, horns_nb, is_shiplike_nb, occupied_nb, on_board_nb, sheet_opmask_nb
from .state import G_AGE, G_CHECK, G_DISCARD_N, G_NP, G_PHASE, G_VIOLATION

INV_OK = 0
INV_LOC = 1  #: a figure's location code is invalid, or the wrong kind of place for it
INV_HORNS = 2  #: more figures on the board than Horns allow (DIGEST §1.4)
INV_VILLAGES = 3  #: a province holds more figures than it has villages (DIGEST §1.2)
INV_DESTROYED = 4  #: a figure in a destroyed province or unusable fjord (DIGEST §1.3)
INV_RAGE = 5  #: negative Rage
INV_CARDS = 6  #: cards not conserved across deck, hands, discard, clan sheets and battle
INV_MONSTER = 7  #: a Monster figure in play without its upgrade card, or the reverse
INV_GLORY = 8  #: negative Glory from a source
INV_UNFINISHED = 9  #: the game did not end after the third age
INV_OPMASK = 10  #: the kept opcode mask of a clan's upgrades (S.opmask) differs from its sheet's
#: code -> name (Blood Rage's codes are 1..31: core.record)
INV_NAMES = dict(enumerate(("ok", "figure location", "Horns limit", "village capacity", "destroyed province",
                            "negative Rage", "card conservation", "monster slot", "negative Glory", "unfinished game",
                            "opcode mask")))


@njit(cache=True)
def deck_total_nb(T, P):
    """Cards in the three age decks for P players."""
    n = 0
    for c in range(T.n_cards):
        n += T.card_copies[c, P]
    return n


@njit(cache=True, _nrt=False)  # no allocation: the Action phase (_nrt=False) calls it
def check_invariants_nb(T, S):
    """First violated invariant code for state S, or INV_OK."""
    P = S.gs[G_NP]
    for p in range(P):
        if S.rage[p] < 0:
            return INV_RAGE
        tot = 0
        for k in range(E.N_GLORY_SRC):  # card Glory may be taken by Loki's Backstab; the total never < 0
            tot += S.glory[p, k]
            if S.glory[p, k] < 0 and k != E.G_CARDS:
                return INV_GLORY
        if tot < 0:
            return INV_GLORY
        for f in range(E.NFIG):
            l = S.loc[p, f]
            if l < E.LOC_NONE or l >= E.LOC_FJORD0 + E.N_FJORDS:
                return INV_LOC
            if f >= E.FIG_MONSTER0:  # a Monster figure is in play exactly while its card is
                if (S.upg[p, E.SLOT_MONSTER0 + f - E.FIG_MONSTER0] < 0) != (l == E.LOC_NONE):
                    return INV_MONSTER
            elif l == E.LOC_NONE:
                return INV_LOC
            if l >= E.LOC_FJORD0:
                if not is_shiplike_nb(T, S, p, f):
                    return INV_LOC
                if not fjord_usable_nb(T, S, l - E.LOC_FJORD0):
                    return INV_DESTROYED
            elif l >= 0:
                if is_shiplike_nb(T, S, p, f):
                    return INV_LOC
                if S.destroyed[l]:
                    return INV_DESTROYED
        if on_board_nb(S, p) > horns_nb(T, S, p):
            return INV_HORNS
        if S.opmask[p] != sheet_opmask_nb(T, S, p):
            return INV_OPMASK
    for pr in range(E.N_PROVINCES):
        if occupied_nb(S, pr) > T.prov_villages[pr]:
            return INV_VILLAGES
    for k in range(2):  # gods: never in a destroyed province, never two on one (DIGEST §2)
        g = S.god_loc[k]
        if g >= 0 and (S.destroyed[g] or g == S.god_loc[1 - k]):
            return INV_DESTROYED
    n = S.gs[G_DISCARD_N]
    for a in range(3):
        n += S.deck_n[a]
    for p in range(P):
        n += S.hand_n[p] + S.quest_n[p] + S.played_n[p]
        if S.carried[p] >= 0:
            n += 1
        for s in range(E.N_SLOTS):
            if S.upg[p, s] >= 0:
                n += 1
    if n != deck_total_nb(T, P):
        return INV_CARDS
    if S.gs[G_PHASE] == E.PH_END and S.gs[G_AGE] != 3:
        return INV_UNFINISHED
    return INV_OK


@njit(cache=True, _nrt=False)
def checkpoint_nb(T, S):
    """When checking is on, record the first violation (code, and the turn count when it happened)."""
    if S.gs[G_CHECK] == 1 and S.gs[G_VIOLATION] == 0:
        record_violation_nb(S, check_invariants_nb(T, S))
