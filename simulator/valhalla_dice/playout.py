"""Complete Valhalla dice games: one seeded game, or numba-parallel batches (each game owns its
random stream, so results do not depend on thread count or batch size)."""
import numpy as np
from numba import njit

from ..core.draft_rules import focal_seat_nb
from ..core.record import G_CAPPED, G_CHECK, G_FOCAL, G_LOG_ON, G_NP, G_TURNS, G_VIOLATION, copy1_nb, log_nb, record_violation_nb
from .engine import setup_nb, turn_nb
from .fight import ragnarok_nb
from .jarls import J_SHIELD_GLORY, ROLE_RAGNAROK, ability_arg_nb
from .modules import king_end_nb
from .state import (
    C_GLORY_JARL,
    C_GLORY_KING,
    C_GLORY_LOKI,
    C_GLORY_SETS,
    C_GLORY_SHIELDS,
    G_DECK_N,
    G_DISC_N,
    G_END,
    G_FINAL_LEFT,
    G_GREY,
    G_OVER,
)
from .tables import O_RAGNAROK_ORDER

EV_SCORE = 6
MAX_TURNS = 1000  #: safety cap (G_CAPPED); games take 20-60 turns
# invariant codes (core.record namespaces them per engine: this engine's from 65)
INV_CARDS, INV_SHIELDS, INV_TEAM, INV_GREY, INV_UNFINISHED = 65, 66, 67, 68, 69


@njit(cache=True)
def init_state_nb(S, P, seed, log_on, check_on):
    S.gs[:] = 0
    S.gs[G_NP] = P
    S.gs[G_LOG_ON] = 1 if log_on else 0
    S.gs[G_CHECK] = 1 if check_on else 0
    S.gs[G_FINAL_LEFT] = -1
    S.rs[0] = seed
    S.deck[:] = -1
    S.discard[:] = -1
    S.hand[:, :] = -1
    S.hand_n[:] = 0
    S.team[:, :] = -1
    S.team_n[:] = 0
    S.valhalla[:, :] = -1
    S.valhalla_n[:] = 0
    S.own_shields[:] = 0
    S.won[:, :] = 0
    S.jarl[:] = -1
    S.glory[:] = 0
    S.rank[:] = 0
    S.cnt[:, :] = 0
    S.opening[:, :] = -1
    S.played[:, :] = -1


@njit(cache=True)
def check_nb(T, S):
    """Invariants between turns (design note T24): every card in exactly one place, own + lost
    shields = 4 per seat, teams within the cap, every grey die back in the pool."""
    if S.gs[G_CHECK] == 0:
        return
    P = S.gs[G_NP]
    n = S.gs[G_DECK_N] + S.gs[G_DISC_N]
    for p in range(P):
        n += S.hand_n[p] + S.team_n[p] + S.valhalla_n[p]
    if n != T.n_deck:
        record_violation_nb(S, INV_CARDS)
    for p in range(P):
        lost = 0
        for q in range(P):
            lost += S.won[q, p]
        if S.own_shields[p] + lost != T.shields or S.own_shields[p] < 0:
            record_violation_nb(S, INV_SHIELDS)
        if S.team_n[p] > T.team_cap:
            record_violation_nb(S, INV_TEAM)
    if S.gs[G_GREY] != T.grey:
        record_violation_nb(S, INV_GREY)


@njit(cache=True)
def score_nb(T, S, shield_glory):
    """DIGEST §5.11: Glory = Valhalla Glory + shields by the points card of the player count (2 p:
    won shields only) + the best partition of won shields into sets of different opponents, a
    Jarl's shield_glory (shield_glory[p]: its Glory per won shield, -1 when it does not act; booked
    as Jarl Glory) + the modules' Glory (Loki's Deception, King of the Hill); ranks with the
    tie-breaks of 003 l.144 (opponents' shields, then own)."""
    P = S.gs[G_NP]
    for p in range(P):
        g = 0
        for i in range(S.valhalla_n[p]):
            g += T.glory[S.valhalla[p, i]]
        won = 0
        idx = 0
        k = 0
        for q in range(P):
            if q == p:
                continue
            won += S.won[p, q]
            idx += min(S.won[p, q], 4) * 5 ** k
            k += 1
        sh = T.per_shield * (won + (S.own_shields[p] if T.own_score[P] == 1 else 0))
        sets = T.set_bonus[P, idx]
        jg = max(shield_glory[p], 0) * won  # a Jarl's shield_glory, when it acts (rulings R62)
        S.cnt[p, C_GLORY_SHIELDS] = sh
        S.cnt[p, C_GLORY_SETS] = sets
        S.cnt[p, C_GLORY_JARL] += jg
        S.glory[p] = g + sh + sets + jg + S.cnt[p, C_GLORY_LOKI] + S.cnt[p, C_GLORY_KING]
    for p in range(P):
        r = 1
        for q in range(P):
            if q != p and _beats_nb(S, q, p):
                r += 1
        S.rank[p] = r
        log_nb(S, EV_SCORE, p, S.glory[p], r, 0, 0, 0)
    S.gs[G_OVER] = 1


@njit(cache=True)
def _beats_nb(S, q, p):
    if S.glory[q] != S.glory[p]:
        return S.glory[q] > S.glory[p]
    wq, wp = 0, 0
    for x in range(S.gs[G_NP]):
        wq += S.won[q, x]
        wp += S.won[p, x]
    if wq != wp:
        return wq > wp
    return S.own_shields[q] > S.own_shields[p]


@njit(cache=True)
def play_game_nb(T, S, dts, seed, kinds, params, log_on, check_on):
    """One game (003 "Gameplay", "End of the Game", "Ragnarök"): setup, turns clockwise from the
    starting player until an end trigger, the trigger turn's end, one final turn each (the
    trigger player last), Ragnarök, scoring."""
    P = kinds.shape[0]
    init_state_nb(S, P, seed, log_on, check_on)
    S.gs[G_FOCAL] = focal_seat_nb(T, seed, P)
    p = start = setup_nb(T, S, kinds, params)
    check_nb(T, S)
    while True:
        turn_nb(T, S, dts, p, kinds, params)
        S.gs[G_TURNS] += 1
        check_nb(T, S)
        if S.gs[G_END] != 0 and S.gs[G_FINAL_LEFT] < 0:
            S.gs[G_FINAL_LEFT] = P  # the active player completed the turn; one final turn each
        elif S.gs[G_FINAL_LEFT] > 0:
            S.gs[G_FINAL_LEFT] -= 1
        if S.gs[G_FINAL_LEFT] == 0:
            break
        if S.gs[G_TURNS] >= MAX_TURNS:
            S.gs[G_CAPPED] += 1
            break
        p = (p + 1) % P
    first = (p + 1) % P  # from the left of the last final turn (DIGEST §5.10), or the first player
    if T.opts[O_RAGNAROK_ORDER] == 1:
        first = start
    end_game_nb(T, S, dts, first, kinds, params)
    if S.gs[G_CHECK] == 1 and S.gs[G_FINAL_LEFT] != 0:
        record_violation_nb(S, INV_UNFINISHED)


@njit(cache=True)
def end_game_nb(T, S, dts, first, kinds, params):
    """After the final round (003 l.136-146): end-of-game Jarl abilities read their condition
    (R62), Ragnarök for each player from seat ``first`` clockwise, the Kings' end Glory, scoring."""
    P = S.gs[G_NP]
    shield_glory = np.full(P, -1, np.int64)
    for i in range(P):
        shield_glory[i] = ability_arg_nb(T, S, i, J_SHIELD_GLORY, -1, ROLE_RAGNAROK, 0)
    for i in range(P):
        ragnarok_nb(T, S, dts, (first + i) % P, kinds, params)
    check_nb(T, S)
    king_end_nb(T, S)
    score_nb(T, S, shield_glory)


@njit(cache=True, nogil=True)
def play_chunk_nb(Tarr, dts, seeds, kinds, params, span, out, buf):
    """Games span[0]..span[1]-1 of a batch (span: first, end, check as 1/0) on the state buffer
    ``buf`` (1-element VDSTATE_DTYPE array, allocated and held by the caller: see the base
    engine's ``play_chunk_nb``)."""
    T = Tarr[0]
    check = span[2] != 0
    for g in range(span[0], span[1]):
        S = buf[0]
        play_game_nb(T, S, dts, seeds[g], kinds, params, False, check)
        P = kinds.shape[0]
        for p in range(P):
            out.glory[g, p] = S.glory[p]
            out.rank[g, p] = S.rank[p]
            for k in range(out.cnt.shape[2]):
                out.cnt[g, p, k] = S.cnt[p, k]
            out.jarl[g, p] = S.jarl[p]
            out.own[g, p] = S.own_shields[p]
            copy1_nb(out.opening[g, p], S.opening[p])
            copy1_nb(out.played[g, p], S.played[p])
            for i in range(S.valhalla_n[p]):
                k = T.clan[S.valhalla[p, i]]
                if 0 <= k < out.vclan.shape[2]:
                    out.vclan[g, p, k] += 1
        out.turns[g] = S.gs[G_TURNS]
        out.end[g] = S.gs[G_END]
        out.violation[g] = S.gs[G_VIOLATION]
