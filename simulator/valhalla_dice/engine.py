"""Valhalla dice game rules kernels: setup, the turn, battles in a game, the end, Ragnarök and
scoring (rulebook 003; DIGEST §5.4–5.11). Decisions go through policy.py; dice through battle.py.

Every kernel takes the tables record T (tables.VDTABLES_DTYPE) and the state S
(state.VDSTATE_DTYPE); ``dts`` holds the DP arming policy's dice tables (dice.arming_bank: lumped dice
for pools of up to 6, 7, 8 and 9 dice).
"""
import numpy as np
from numba import njit

from ..core.enums import DRAFT_BANNED, DRAFT_FORCED
from ..core.record import G_FOCAL, G_NP, G_TURNS, log_nb
from ..core.rng import rand_int_nb, shuffle_nb
from .fight import battle_game_nb
from .jarls import J_DRAW_KEEP, J_PAIR, ROLE_ATTACK, ability_arg_nb
from .modules import king_of_nb, king_turn_nb, setup_modules_nb
from .piles import add_to_team_nb, discard_nb, draw_keep_nb, draw_nb, hand_take_nb
from .policy import (
    VD_ATTACK_TEAM,
    VD_ATTACK_VALUE,
    VD_ENDGAME_DECK,
    VD_IDLE_ATTACK,
    VD_JARL_W0,
    VD_KING_TARGET,
    VD_TARGET_SET,
    VDPOL_RANDOM,
    card_value_nb,
    mark_nb,
    pick_nb,
    team_value_nb,
)
from .state import C_TURNS, G_ACTIVE, G_DECK_N, G_DISC_N, G_GREY
from .tables import KIND_WARRIOR, O_JARL_DEAL, O_START_HAND

# log events
EV_TURN, EV_ACTION, EV_SETUP = 1, 2, 7
#: the draft (start_hand=draft): seat, what (0 placed / 1 took / 2 left the draft / 3 face up, seat -1 /
#: 4 leftovers discarded, seat -1 / 5 the first player opens it), card (or the leftovers' count)
EV_DRAFT = 10
# actions (003 l.80-88)
A_ADD1, A_ADD2, A_ATTACK, A_DRAW = 1, 2, 3, 4


# --- setup (DIGEST §5.4; 003 l.40-68) -----------------------------------------------------------
@njit(cache=True)
def setup_nb(T, S, kinds, params):
    P = S.gs[G_NP]
    n = T.n_deck
    for i in range(n):
        S.deck[i] = T.deck[i]
    S.gs[G_DECK_N] = n
    shuffle_nb(S.rs, S.deck, n)
    for p in range(P):
        S.own_shields[p] = T.shields
    S.gs[G_GREY] = T.grey
    deal_jarls_nb(T, S, kinds, params)
    start = rand_int_nb(S.rs, P)
    for _ in range(max(0, T.pre_discard[P] + setup_modules_nb(T, S))):  # a Loki card may change it (003 l.159)
        if S.gs[G_DECK_N] == 0:  # the loader refuses such content (rules.check_setup_fits); never loop on it
            break
        c = S.deck[S.gs[G_DECK_N] - 1]
        S.gs[G_DECK_N] -= 1
        S.deck[S.gs[G_DECK_N]] = -1
        discard_nb(S, c)
    table_warriors_nb(T, S, start, kinds, params)
    draw = T.hand_draw
    drop = T.hand_discard
    if T.opts[O_START_HAND] == 1:  # simplified: draw 5
        draw, drop = draw - drop, 0
    if T.opts[O_START_HAND] == 2:  # the advanced draft variant: draw 5, then draft (003 l.304-313)
        draw, drop = draw - drop, 0
    back0 = S.gs[G_DISC_N]
    for p in range(P):
        for _ in range(draw):
            draw_nb(S, p)
        if T.draft_rules != 0:
            deal_forced_nb(T, S, p)
        for _ in range(drop):
            i = pick_nb(S, T, p, kinds[p], params[p], S.hand[p], S.hand_n[p], True)
            discard_nb(S, hand_take_nb(S, p, i))
    if T.opts[O_START_HAND] == 2:
        draft_hands_nb(T, S, start, kinds, params)
    if P == T.reshuffle_at:  # 6 players: the hand discards go back into the deck (003 l.61)
        for i in range(back0, S.gs[G_DISC_N]):
            S.deck[S.gs[G_DECK_N]] = S.discard[i]
            S.gs[G_DECK_N] += 1
            S.discard[i] = -1
        S.gs[G_DISC_N] = back0
        shuffle_nb(S.rs, S.deck, S.gs[G_DECK_N])
    record_opening_nb(S, P)
    S.gs[G_ACTIVE] = start
    log_nb(S, EV_SETUP, start, S.gs[G_DECK_N], S.gs[G_DISC_N], 0, 0, 0)
    return start


@njit(cache=True)
def pool_draw_nb(S, pool, n, k):
    """Up to k cards from the top of the deck face up into the draft pool (pool[:n]); -> new n."""
    for _ in range(k):
        m = S.gs[G_DECK_N]
        if m == 0:  # a deck this short is the content's; the pool still refills every hand
            break
        pool[n] = S.deck[m - 1]
        S.deck[m - 1] = -1
        S.gs[G_DECK_N] = m - 1
        log_nb(S, EV_DRAFT, -1, 3, pool[n], 0, 0, 0)
        n += 1
    return n


@njit(cache=True)
def draft_wants_nb(T, S, p, kind, prm, pool, n):
    """A seat's draft choice (003 l.307-309): True = option A, place its worst card in the pool.
    Random: either, by a coin. Otherwise A while the pool already holds more cards worth more than
    its worst card than the places it has opened (each A is a card to take back at B)."""
    if kind == VDPOL_RANDOM:
        return rand_int_nb(S.rs, 2) == 0
    w = pick_nb(S, T, p, kind, prm, S.hand[p], S.hand_n[p], True)
    worst = card_value_nb(T, S.hand[p, w], prm)
    better = 0
    for i in range(n):
        if card_value_nb(T, pool[i], prm) > worst:
            better += 1
    return better > T.hand_draw - T.hand_discard - S.hand_n[p]


@njit(cache=True)
def draft_hands_nb(T, S, start, kinds, params):
    """The advanced variant's draft of starting hands (003 l.304-313): 2 cards face up; clockwise
    from the first player, each in the draft either places a card of its hand in the pool (A) or
    fills its hand to 5 from the pool and drops out (B; then 2 more cards join the pool). A seat
    with no card must take B; the last seat in the draft may take A once more. The pool's
    leftovers are discarded (and go back into the deck at 6 players, as the 7-2 discards; R65)."""
    P = S.gs[G_NP]
    size = T.hand_draw - T.hand_discard
    pool = np.empty(T.n_deck, np.int64)
    log_nb(S, EV_DRAFT, start, 5, 0, 0, 0, 0)
    n = pool_draw_nb(S, pool, 0, 2)
    in_draft = np.ones(P, np.bool_)
    left, last_a = P, 0
    p = start
    while left > 0:
        if in_draft[p]:
            a = S.hand_n[p] > 0 and (left > 1 or last_a == 0) and draft_wants_nb(T, S, p, kinds[p], params[p], pool, n)
            if a:  # option A: one card of the hand to the pool
                if left == 1:
                    last_a = 1
                i = pick_nb(S, T, p, kinds[p], params[p], S.hand[p], S.hand_n[p], True)
                pool[n] = hand_take_nb(S, p, i)
                n += 1
                log_nb(S, EV_DRAFT, p, 0, pool[n - 1], 0, 0, 0)
            else:  # option B: fill the hand to 5 from the pool, drop out
                while S.hand_n[p] < size and n > 0:
                    i = pick_nb(S, T, p, kinds[p], params[p], pool, n, False)
                    c = pool[i]
                    pool[i] = pool[n - 1]
                    n -= 1
                    S.hand[p, S.hand_n[p]] = c
                    S.hand_n[p] += 1
                    log_nb(S, EV_DRAFT, p, 1, c, 0, 0, 0)
                log_nb(S, EV_DRAFT, p, 2, 0, 0, 0, 0)
                in_draft[p] = False
                left -= 1
                if left > 0:
                    n = pool_draw_nb(S, pool, n, 2)
        p = (p + 1) % P
    for i in range(n):
        discard_nb(S, pool[i])
    log_nb(S, EV_DRAFT, -1, 4, n, 0, 0, 0)


@njit(cache=True)
def deal_forced_nb(T, S, p):
    """``volva ablate``: a seat bound to a forced card and not dealt one takes a copy from the deck,
    else from the discard pile (pre-discarded), else from another seat's dealt hand, in place of a
    random card of its own hand (which takes the copy's place; another seat's hand only under a
    one-clan rule), so it starts with it (pick_nb keeps it; rulings R61). Nothing when every copy
    is out of reach (a table Warrior already taken)."""
    if S.hand_n[p] == 0:
        return
    for i in range(S.hand_n[p]):
        if mark_nb(T, S, p, S.hand[p, i]) == DRAFT_FORCED:
            return
    for i in range(S.gs[G_DECK_N]):
        if mark_nb(T, S, p, S.deck[i]) == DRAFT_FORCED:
            S.deck[i] = swap_in_nb(S, p, S.deck[i])
            return
    for i in range(S.gs[G_DISC_N]):
        if mark_nb(T, S, p, S.discard[i]) == DRAFT_FORCED:
            S.discard[i] = swap_in_nb(S, p, S.discard[i])
            return
    if S.gs[G_FOCAL] < 0:  # every seat bound: a copy another seat holds stays there
        return
    for q in range(S.gs[G_NP]):
        for i in range(S.hand_n[q]):
            if q != p and mark_nb(T, S, p, S.hand[q, i]) == DRAFT_FORCED:
                S.hand[q, i] = swap_in_nb(S, p, S.hand[q, i])
                return


@njit(cache=True)
def swap_in_nb(S, p, c):
    """Card c replaces a random card of p's hand; returns the card it replaced."""
    k = rand_int_nb(S.rs, S.hand_n[p])
    out = S.hand[p, k]
    S.hand[p, k] = c
    return out


@njit(cache=True)
def record_opening_nb(S, P):
    """Each seat's start for the analyses (the "picks" of this game): the hand it kept, then its
    table Warriors, up to S.opening's width."""
    for p in range(P):
        k = 0
        for i in range(S.hand_n[p]):
            if k < S.opening.shape[1]:
                S.opening[p, k] = S.hand[p, i]
                k += 1
        for i in range(S.team_n[p]):
            if k < S.opening.shape[1]:
                S.opening[p, k] = S.team[p, i]
                k += 1


@njit(cache=True)
def deal_jarls_nb(T, S, kinds, params):
    """Deal jarl_deal Jarls to each seat, keep 1 (003 l.48-50): 3+ Jarls out at 2 players; option
    recommended deals 1 recommended Jarl; none plays without Jarls."""
    P = S.gs[G_NP]
    mode = T.opts[O_JARL_DEAL]
    if mode == 0 or T.n_jarls == 0:
        return
    pool = np.empty(T.n_jarls, np.int16)
    m = 0
    for j in range(T.n_jarls):
        if T.j_min_players[j] <= P and (mode != 1 or T.j_recommended[j] == 1):
            pool[m] = j
            m += 1
    shuffle_nb(S.rs, pool, m)
    k = 1 if mode == 1 else mode
    k = min(k, m // P)
    if T.draft_rules != 0:
        marked_jarl_deal_nb(T, S, pool, m, k)
    for p in range(P):
        if k == 0:
            break
        S.jarl[p] = pool[p * k + choose_jarl_nb(T, S, p, kinds[p], params[p], pool[p * k:p * k + k])]


@njit(cache=True)
def choose_jarl_nb(T, S, p, kind, prm, dealt):
    """Index of the Jarl seat p keeps of those dealt: a forced one (volva ablate), else random, or
    greedy among those it may keep (not banned): the highest preference prm[VD_JARL_W0 + j], then
    a recommended Jarl, then the first dealt (rulings R59)."""
    k = dealt.shape[0]
    allowed = 0
    for i in range(k):
        mk = jarl_mark_nb(T, S, p, dealt[i])
        if mk == DRAFT_FORCED:
            return i
        if mk != DRAFT_BANNED:
            allowed += 1
    free = allowed == 0  # every Jarl dealt is banned: it keeps one all the same
    if kind == VDPOL_RANDOM:
        r = rand_int_nb(S.rs, k if free else allowed)
        for i in range(k):
            if free or jarl_mark_nb(T, S, p, dealt[i]) != DRAFT_BANNED:
                if r == 0:
                    return i
                r -= 1
    best, bw, br = -1, 0.0, 0
    for i in range(k):
        if free or jarl_mark_nb(T, S, p, dealt[i]) != DRAFT_BANNED:
            w, r = prm[VD_JARL_W0 + dealt[i]], T.j_recommended[dealt[i]]
            if best < 0 or w > bw or (w == bw and r > br):
                best, bw, br = i, w, r
    return max(best, 0)


@njit(cache=True)
def jarl_mark_nb(T, S, p, j):
    """The ablation mark binding seat p on Jarl j (as policy.mark_nb for cards)."""
    if S.gs[G_FOCAL] >= 0 and S.gs[G_FOCAL] != p:
        return 0
    return T.j_draft[j]


@njit(cache=True)
def marked_jarl_deal_nb(T, S, pool, m, k):
    """``volva ablate`` on a Jarl (one seat bound, rulings R61): a forced Jarl is dealt to the bound
    seat; a banned one dealt to it, with nothing else dealt to choose (1 Jarl each), is swapped for
    an undealt Jarl when there is one."""
    P = S.gs[G_NP]
    f = S.gs[G_FOCAL]
    if f < 0:
        return
    for i in range(m):
        if T.j_draft[pool[i]] == DRAFT_FORCED and i // k != f:
            x = pool[f * k]
            pool[f * k] = pool[i]
            pool[i] = x
    banned_only = True
    for i in range(k):
        if T.j_draft[pool[f * k + i]] != DRAFT_BANNED:
            banned_only = False
    if banned_only and m > P * k:
        x = pool[f * k]
        pool[f * k] = pool[P * k]
        pool[P * k] = x


@njit(cache=True)
def table_warriors_nb(T, S, start, kinds, params):
    """Reveal until P + 1 Warriors (Tactics go back, shuffled); pick counter-clockwise from the
    seat right of the starting player, who takes 1 of the last 2; the leftover goes back into the
    deck, reshuffled (003 l.63-65)."""
    P = S.gs[G_NP]
    table = np.empty(P + 1, np.int16)
    back = np.empty(T.n_deck, np.int16)
    nt, nb = 0, 0
    while nt < P + 1 and S.gs[G_DECK_N] > 0:
        S.gs[G_DECK_N] -= 1
        c = S.deck[S.gs[G_DECK_N]]
        S.deck[S.gs[G_DECK_N]] = -1
        if T.kind[c] == KIND_WARRIOR:
            table[nt] = c
            nt += 1
        else:
            back[nb] = c
            nb += 1
    for i in range(P):
        if nt == 0:
            break
        p = (start - 1 - i) % P
        k = pick_nb(S, T, p, kinds[p], params[p], table, nt, False)
        S.team[p, 0] = table[k]
        S.team_n[p] = 1
        table[k] = table[nt - 1]
        nt -= 1
    for i in range(nt):
        back[nb] = table[i]
        nb += 1
    for i in range(nb):
        S.deck[S.gs[G_DECK_N]] = back[i]
        S.gs[G_DECK_N] += 1
    shuffle_nb(S.rs, S.deck, S.gs[G_DECK_N])


# --- the turn (DIGEST §5.5; 003 l.73-89) ------------------------------------------------------
@njit(cache=True)
def can_attack_nb(S, p, q):
    """003 l.86, 92: not a seat with no Warriors or no own shields left; the attacker needs a team."""
    return q != p and S.team_n[p] > 0 and S.team_n[q] > 0 and S.own_shields[q] > 0


@njit(cache=True)
def pair_cap_nb(T, S, p):
    """Weapons action A2 may add (003 l.85), or a Jarl's pair_limit when it acts (R55)."""
    a = ability_arg_nb(T, S, p, J_PAIR, -1, ROLE_ATTACK, 0)
    return a if a >= 0 else T.pair_cap


@njit(cache=True)
def best_pair_nb(T, S, p, kind, prm):
    """(i, j) hand indices of the two Warriors action A2 adds (symbols ≤ the cap, 003 l.85), the
    most valuable pair (random: a random fitting pair); (-1, -1) when none fits."""
    cap = pair_cap_nb(T, S, p)
    bi, bj, bv, m = -1, -1, -1e18, 0
    for i in range(S.hand_n[p]):
        ci = S.hand[p, i]
        if T.kind[ci] != KIND_WARRIOR:
            continue
        for j in range(i + 1, S.hand_n[p]):
            cj = S.hand[p, j]
            if T.kind[cj] != KIND_WARRIOR or T.symbols[ci] + T.symbols[cj] > cap:
                continue
            m += 1
            v = card_value_nb(T, ci, prm) + card_value_nb(T, cj, prm)
            if kind == VDPOL_RANDOM:
                v = -rand_int_nb(S.rs, 1000) * 1.0  # a random fitting pair
            if v > bv:
                bi, bj, bv = i, j, v
    return bi, bj


@njit(cache=True)
def best_warrior_nb(T, S, p, kind, prm):
    """Hand index of the Warrior action A1 adds (-1: none)."""
    bi, bv = -1, -1e18
    for i in range(S.hand_n[p]):
        c = S.hand[p, i]
        if T.kind[c] == KIND_WARRIOR:
            v = card_value_nb(T, c, prm) if kind != VDPOL_RANDOM else rand_int_nb(S.rs, 1000) * 1.0
            if v > bv:
                bi, bv = i, v
    return bi


@njit(cache=True)
def choose_target_nb(T, S, p, kind, prm):
    """The seat p attacks (-1: none allowed): greedy, the weakest expected defence (ties: most own
    shields left), less VD_TARGET_SET x the set bonus a shield won from it adds; random, any
    allowed seat."""
    P = S.gs[G_NP]
    best, bv, m = -1, 1e18, 0
    for q in range(P):
        if not can_attack_nb(S, p, q):
            continue
        m += 1
        v = team_value_nb(S, T, q) - 0.01 * S.own_shields[q]
        if prm[VD_TARGET_SET] != 0.0:
            v -= prm[VD_TARGET_SET] * set_gain_nb(T, S, p, q)
        if prm[VD_KING_TARGET] != 0.0 and king_of_nb(S, q) >= 0:
            v -= prm[VD_KING_TARGET]
        if kind == VDPOL_RANDOM:
            if rand_int_nb(S.rs, m) == 0:
                best = q
        elif v < bv:
            best, bv = q, v
    return best


@njit(cache=True)
def choose_action_nb(T, S, p, kind, prm):
    """(action, target): the forced plays of 003 l.83 first, then the strategy."""
    has_w = False
    for i in range(S.hand_n[p]):
        if T.kind[S.hand[p, i]] == KIND_WARRIOR:
            has_w = True
    pi, _ = best_pair_nb(T, S, p, kind, prm) if has_w else (-1, -1)
    if S.team_n[p] == 0:  # no team: add (A1/A2); no Warrior in hand either: reveal, draw (A4)
        if not has_w:
            return A_DRAW, -1
        return (A_ADD2 if pi >= 0 and kind != VDPOL_RANDOM else A_ADD1), -1
    q = choose_target_nb(T, S, p, kind, prm)
    if kind == VDPOL_RANDOM:
        opts = np.empty(4, np.int64)
        m = 0
        if has_w:
            opts[m] = A_ADD1
            m += 1
        if pi >= 0:
            opts[m] = A_ADD2
            m += 1
        if q >= 0:
            opts[m] = A_ATTACK
            m += 1
        opts[m] = A_DRAW
        m += 1
        return opts[rand_int_nb(S.rs, m)], q
    if q >= 0 and S.gs[G_DECK_N] <= prm[VD_ENDGAME_DECK]:
        return A_ATTACK, q
    if q >= 0 and S.team_n[p] >= prm[VD_ATTACK_TEAM] and team_value_nb(S, T, p) >= prm[VD_ATTACK_VALUE]:
        return A_ATTACK, q
    room = T.team_cap - S.team_n[p]
    if has_w and room >= 2 and pi >= 0:
        return A_ADD2, -1
    if has_w and room >= 1:
        return A_ADD1, -1
    if q >= 0 and prm[VD_IDLE_ATTACK] != 0:
        return A_ATTACK, q
    return A_DRAW, -1


@njit(cache=True)
def set_gain_nb(T, S, p, q):
    """Set bonus (DIGEST §5.11, best partition) that one more shield won by p from q would add."""
    P = S.gs[G_NP]
    idx, add, k = 0, 0, 0
    for x in range(P):
        if x == p:
            continue
        idx += min(S.won[p, x], 4) * 5 ** k
        if x == q and S.won[p, x] < 4:
            add = 5 ** k
        k += 1
    return T.set_bonus[P, idx + add] - T.set_bonus[P, idx]


@njit(cache=True)
def act_nb(T, S, dts, p, move, kinds, params):
    """Phase A's action of seat p, ``move`` = (a, q, i, j) (003 l.80-88): a = A_ADD1 adds hand card
    i, A_ADD2 hand cards i < j, A_ATTACK attacks seat q, A_DRAW draws 2 and keeps 1. The caller has
    checked that it is legal (choose_action_nb, or the scenario runner)."""
    a, q, i, j = move
    kind, prm = kinds[p], params[p]
    if a == A_ADD1:
        ci = hand_take_nb(S, p, i)
        log_nb(S, EV_ACTION, p, a, q, ci, -1, 0)
        add_to_team_nb(T, S, p, ci, kind, prm)
    elif a == A_ADD2:
        cj = hand_take_nb(S, p, j)  # j > i: take j first so i keeps its index
        ci = hand_take_nb(S, p, i)
        log_nb(S, EV_ACTION, p, a, q, ci, cj, 0)
        add_to_team_nb(T, S, p, ci, kind, prm)
        add_to_team_nb(T, S, p, cj, kind, prm)
    elif a == A_ATTACK:
        log_nb(S, EV_ACTION, p, a, q, -1, -1, 0)
        battle_game_nb(T, S, dts, p, q, kinds, params)
    else:
        log_nb(S, EV_ACTION, p, a, q, -1, -1, 0)
        draw_keep_nb(T, S, p, T.draw, T.keep, kind, prm)


@njit(cache=True)
def phase_b_nb(T, S, p, kind, prm):
    """Phase B (003 l.88-89): draw 2, keep 1, or a Jarl's draw_keep (R55)."""
    n, k = T.draw, T.keep
    if ability_arg_nb(T, S, p, J_DRAW_KEEP, -1, ROLE_ATTACK, 0) >= 0:
        n = ability_arg_nb(T, S, p, J_DRAW_KEEP, -1, ROLE_ATTACK, 0)
        k = ability_arg_nb(T, S, p, J_DRAW_KEEP, -1, ROLE_ATTACK, 1)
    draw_keep_nb(T, S, p, n, k, kind, prm)


@njit(cache=True)
def start_turn_nb(T, S, p):
    """The start of p's turn: King of the Hill's Glory (003 l.199)."""
    S.gs[G_ACTIVE] = p
    S.cnt[p, C_TURNS] += 1
    log_nb(S, EV_TURN, p, S.gs[G_TURNS], 0, 0, 0, 0)
    king_turn_nb(T, S, p)


@njit(cache=True)
def turn_nb(T, S, dts, p, kinds, params):
    """One turn: Phase A (one action, the strategy's), Phase B (draw 2, keep 1; a Jarl's draw_keep)."""
    kind, prm = kinds[p], params[p]
    start_turn_nb(T, S, p)
    a, q = choose_action_nb(T, S, p, kind, prm)
    i, j = -1, -1
    if a == A_ADD1:
        i = best_warrior_nb(T, S, p, kind, prm)
    elif a == A_ADD2:
        i, j = best_pair_nb(T, S, p, kind, prm)
    act_nb(T, S, dts, p, (a, q, i, j), kinds, params)
    phase_b_nb(T, S, p, kind, prm)
