"""Valhalla dice game modules (modules.toml; DIGEST §5.12 items 1-2): Loki's Deception (003
l.157-162) and King of the Hill (003 l.192-205). Every kernel here is a no-op while its rule
option is off, so the base game's random stream and decisions do not change.
"""
from numba import njit

from ..core.record import G_NP, log_nb
from ..core.rng import rand_int_nb
from .piles import draw_nb
from .state import C_GLORY_KING, C_GLORY_LOKI, C_KING_TAKEN, C_LOKI_BONUSES, G_KING, G_KING_LEVEL, G_LOKI
from .tables import LOKI_RANDOM, O_KING, O_LOKI

EV_LOKI, EV_KING = 8, 9  #: log events: a loser's bonus (seat, difference, bonus, n); a King's event (seat, card, what, n)
KING_GLORY, KING_TAKES, KING_RETURNED = 0, 1, 2  #: EV_KING's "what"
BONUS_GLORY, BONUS_DRAW = 0, 1  #: tables.BONUSES


@njit(cache=True)
def setup_modules_nb(T, S):
    """The Loki card in play (LOKI_RANDOM: one drawn from the game's stream, 003 l.160) and both
    King cards in the middle. Returns the card's change to the pre-discard (003 l.159; 0 when off)."""
    S.gs[G_LOKI] = -1
    for k in range(2):
        S.gs[G_KING + k] = -1
        S.gs[G_KING_LEVEL + k] = 0
    if T.opts[O_LOKI] == 0:
        return 0
    k = T.loki_card
    if k == LOKI_RANDOM:
        k = rand_int_nb(S.rs, T.loki_n)
    S.gs[G_LOKI] = k
    return T.loki_pre[k]


@njit(cache=True)
def loki_bonus_nb(T, S, loser, diff):
    """003 l.161: after a battle with a winner, the loser gains the bonus of the highest tier of the
    Loki card whose difference (winner's Battle Strength - loser's) it reaches; the rulebook lets
    it take a lesser one, the bots always take the highest (rulings R63)."""
    k = S.gs[G_LOKI]
    if k < 0:
        return
    best = -1
    for i in range(T.loki_n_tiers[k]):
        if diff >= T.loki_tiers[k, i, 0]:
            best = i
    if best < 0:
        return
    op, n = T.loki_tiers[k, best, 1], T.loki_tiers[k, best, 2]
    S.cnt[loser, C_LOKI_BONUSES] += 1
    log_nb(S, EV_LOKI, loser, diff, op, n, 0, 0)  # before the draws: the last card's end trigger follows it
    if op == BONUS_GLORY:
        S.cnt[loser, C_GLORY_LOKI] += n  # Glory as points (R63: not cards from the discard pile)
    else:
        for _ in range(n):
            draw_nb(S, loser)  # the last card of the deck triggers the end, as any draw (003 l.133)


@njit(cache=True)
def king_of_nb(S, p):
    """The King card p holds (0 or 1), -1 none."""
    for k in range(2):
        if S.gs[G_KING + k] == p:
            return k
    return -1


@njit(cache=True)
def king_turn_nb(T, S, p):
    """003 l.199: at the start of the King's turn, with Warriors on the team, the King gains the
    level's Glory and the level rises (at the last level it stays, rulings R64)."""
    if T.opts[O_KING] == 0:
        return
    k = king_of_nb(S, p)
    if k < 0 or S.team_n[p] == 0:
        return
    P = S.gs[G_NP]
    lvl = S.gs[G_KING_LEVEL + k]
    g = T.king_glory[P, lvl - 1]
    S.cnt[p, C_GLORY_KING] += g
    if lvl < T.king_levels[P]:
        S.gs[G_KING_LEVEL + k] = lvl + 1
    log_nb(S, EV_KING, p, k, KING_GLORY, g, lvl, 0)


@njit(cache=True)
def king_dice_nb(T, S, d):
    """Bonus dice of an attacker of seat d: d's King card from Level 2 (003 l.200), else 0."""
    if T.opts[O_KING] == 0:
        return 0
    k = king_of_nb(S, d)
    if k < 0:
        return 0
    return T.king_dice[S.gs[G_NP], S.gs[G_KING_LEVEL + k] - 1]


@njit(cache=True)
def king_take_nb(S, k, w):
    S.gs[G_KING + k] = w
    S.gs[G_KING_LEVEL + k] = 1
    S.cnt[w, C_KING_TAKEN] += 1
    log_nb(S, EV_KING, w, k, KING_TAKES, 0, 1, 0)


@njit(cache=True)
def king_after_battle_nb(T, S, w, loser):
    """003 l.198, 203-204, after a battle won by w against ``loser``: beating a King takes that
    King card at Level 1; a King beaten by the other King returns the card to the middle; a card in
    the middle goes to the winner of a battle without a King (the first battle of the game)."""
    if T.opts[O_KING] == 0:
        return
    kw, kl = king_of_nb(S, w), king_of_nb(S, loser)
    if kl >= 0:
        if kw >= 0:
            S.gs[G_KING + kl] = -1
            S.gs[G_KING_LEVEL + kl] = 0
            log_nb(S, EV_KING, loser, kl, KING_RETURNED, 0, 0, 0)
        else:
            king_take_nb(S, kl, w)
    elif kw < 0:
        for k in range(T.kings[S.gs[G_NP]]):
            if S.gs[G_KING + k] < 0:
                king_take_nb(S, k, w)
                break


@njit(cache=True)
def king_end_nb(T, S):
    """003 l.201: each King at the end of the game gains end_glory."""
    if T.opts[O_KING] == 0:
        return
    for k in range(2):
        p = S.gs[G_KING + k]
        if p >= 0:
            S.cnt[p, C_GLORY_KING] += T.king_end
            log_nb(S, EV_KING, p, k, KING_GLORY, T.king_end, 0, 0)
