"""Pillage and battle (DIGEST §1.6).

pillage_nb runs the whole pillage action: Call to Battle, the unopposed case,
card play, comparison and resolution.  Card-text hooks (reveal, before compare,
late play, win/lose, on destroy) attach at the points marked ``HOOK``; the cards
issue fills them.
"""
import numpy as np
from numba import njit

from . import enums as E
from .board import (card_op_index_nb, card_value_nb, clan_str_nb, fjord_loc_of_nb, free_villages_nb,
                    has_enemy_nb, is_shiplike_nb, present_nb)
from .clan import (add_to_hand_nb, apply_reward_nb, discard_nb, gain_glory_nb, take_from_hand_nb,
                   to_valhalla_nb)
from .policy import choose_call_nb, choose_card_nb
from .state import G_NP, log_nb


@njit(cache=True)
def call_to_battle_nb(T, S, pillager, prov, kinds, params):
    """DIGEST §1.6 step 1: from the pillager's left, the pillager last, each may move one
    figure from an adjacent province into an empty village; rounds repeat until a full
    round of passes or no village is left."""
    P = S.gs[G_NP]
    cand = np.empty(E.NFIG, np.int64)
    while True:
        moved = False
        for k in range(1, P + 1):
            q = (pillager + k) % P
            if free_villages_nb(T, S, prov) <= 0:
                return
            nc = 0
            for f in range(E.NFIG):
                l = S.loc[q, f]
                if 0 <= l < E.N_PROVINCES and l != prov and T.adj[l, prov] == 1 \
                        and not is_shiplike_nb(T, S, q, f):
                    cand[nc] = f
                    nc += 1
            if nc == 0:
                continue
            i = choose_call_nb(T, S, q, pillager, prov, cand, nc, kinds[q], params[q])
            if i >= 0:
                f = cand[i]
                log_nb(S, E.EV_CALL, q, f, S.loc[q, f], prov, 0, 0)
                S.loc[q, f] = prov
                moved = True
        if not moved:
            return


@njit(cache=True)
def card_values_nb(T, S, part, out):
    """out[q] = total +STR of the cards clan q revealed (DIGEST §1.6 step 3, §1.7 Sight).

    Heimdall's Sight (copy_highest) takes the highest value among opponents'
    revealed cards, ignoring other Sights.
    """
    P = S.gs[G_NP]
    for q in range(P):
        out[q] = 0
        for j in range(S.played_n[q]):
            out[q] += card_value_nb(T, S.played[q, j])
    for q in range(P):
        for j in range(S.played_n[q]):
            c = S.played[q, j]
            if card_op_index_nb(T, c, E.OP_COPY_HIGHEST) >= 0:
                m = 0
                for r in range(P):
                    if r != q and part[r]:
                        for i in range(S.played_n[r]):
                            d = S.played[r, i]
                            if card_op_index_nb(T, d, E.OP_COPY_HIGHEST) < 0 and card_value_nb(T, d) > m:
                                m = card_value_nb(T, d)
                out[q] += m


@njit(cache=True)
def destroy_in_battle_nb(T, S, q, prov):
    """A loser's figures in the battle (province and supporting fjord) go to Valhalla. Returns the count."""
    floc = fjord_loc_of_nb(T, prov)
    n = 0
    for f in range(E.NFIG):
        l = S.loc[q, f]
        if l == prov or (floc >= 0 and l == floc):
            to_valhalla_nb(S, q, f, E.CAUSE_BATTLE)  # HOOK destroy (Protection, Witch, Dragons)
            n += 1
    return n


@njit(cache=True)
def battle_nb(T, S, pillager, prov, kinds, params):
    """DIGEST §1.6 steps 3–6. Returns the winning clan, or -1 when the top totals tie (all lose)."""
    P = S.gs[G_NP]
    part = np.zeros(P, np.bool_)
    for q in range(P):
        part[q] = present_nb(T, S, q, prov)
        S.played_n[q] = 0
    for k in range(P):  # play one card each, from the pillager clockwise; revealed together
        q = (pillager + k) % P
        if not part[q]:
            continue
        if S.hand_n[q] > 0:
            c = take_from_hand_nb(S, q, choose_card_nb(T, S, q, prov, kinds[q], params[q]))
            S.played[q, 0] = c
            S.played_n[q] = 1
        else:
            log_nb(S, E.EV_NOCARD, q, prov, 0, 0, 0, 0)
    # HOOK reveal / before compare / late cards (DIGEST §1.6 step 4) go here.
    cardv = np.zeros(P, np.int64)
    card_values_nb(T, S, part, cardv)
    best, nbest, winner = -1, 0, -1
    for k in range(P):
        q = (pillager + k) % P
        if not part[q]:
            continue
        for j in range(S.played_n[q]):
            c = S.played[q, j]
            log_nb(S, E.EV_PLAY, q, c, card_value_nb(T, c) if card_op_index_nb(T, c, E.OP_COPY_HIGHEST) < 0
                   else cardv[q], 0, 0, 0)
        fs = clan_str_nb(T, S, q, prov)
        tot = fs + cardv[q]
        log_nb(S, E.EV_TOTAL, q, fs, cardv[q], tot, 0, 0)
        if tot > best:
            best, nbest, winner = tot, 1, q
        elif tot == best:
            nbest += 1
    if nbest > 1:
        winner = -1  # DIGEST §1.6 step 5: on a tie every clan loses
        log_nb(S, E.EV_TIE, pillager, prov, best, 0, 0, 0)
    for k in range(P):
        q = (pillager + k) % P
        if not part[q]:
            continue
        if q == winner:
            for j in range(S.played_n[q]):
                discard_nb(S, S.played[q, j])
            axes = T.track[E.STAT_AXES, S.stat[q, E.STAT_AXES]]
            gain_glory_nb(S, q, E.G_BATTLE, axes)
            log_nb(S, E.EV_WIN, q, prov, axes, best, 0, 0)  # HOOK win
        else:
            for j in range(S.played_n[q]):
                add_to_hand_nb(S, q, S.played[q, j])  # losers take their cards back
            destroy_in_battle_nb(T, S, q, prov)  # HOOK lose
        S.played_n[q] = 0
    return winner


@njit(cache=True)
def pillage_nb(T, S, p, prov, kinds, params):
    """The Pillage action (DIGEST §1.5, §1.6). Returns True if the pillage succeeded."""
    log_nb(S, E.EV_PILLAGE, p, prov, S.token[prov], 0, 0, 0)
    call_to_battle_nb(T, S, p, prov, kinds, params)
    if has_enemy_nb(T, S, p, prov):
        ok = battle_nb(T, S, p, prov, kinds, params) == p
    else:
        log_nb(S, E.EV_NOBATTLE, p, prov, 0, 0, 0, 0)
        ok = True
    if ok:
        log_nb(S, E.EV_REWARD, p, prov, S.token[prov], 0, 0, 0)
        apply_reward_nb(T, S, p, S.token[prov])  # HOOK pillage (Frost Giant, Lords, Grace)
        S.pillaged[prov] = 1
    return ok
