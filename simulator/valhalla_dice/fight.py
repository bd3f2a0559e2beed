"""Valhalla dice game: a battle inside a game (003 l.90-130; DIGEST §5.6-5.8) and Ragnarök's
arming (003 l.138-142; DIGEST §5.10).

battle.py rolls and arms one side; this file builds the sides from the teams (Warrior powers,
Jarl effects), decides the Battle Tactics, moves the shield, sends Warriors to Valhalla and
discards the played Tactics.
"""
import numpy as np
from numba import njit

from ..core.canon import canonical
from ..core.record import log_nb
from ..core.rng import rand_int_nb
from . import battle as B
from .dice import ANY_PAIR, FACE_X, NF, XW_ALL_ONE
from .jarls import (
    EF_CLAN,
    EF_DICE,
    EF_FREE,
    EF_LOSS,
    EF_OPP_DIE,
    EF_STEAL,
    EF_STR,
    EF_TIES,
    EF_WIN_DRAW,
    EF_XWILD,
    N_EFF,
    ROLE_ATTACK,
    ROLE_DEFEND,
    ROLE_RAGNAROK,
    jarl_effects_nb,
)
from .modules import king_after_battle_nb, king_dice_nb, loki_bonus_nb
from .piles import discard_nb, draw_nb, hand_take_nb, team_take_nb, to_valhalla_nb, trigger_end_nb
from .policy import VD_ARM, VD_ATT_TACTICS, VD_HOLD_TACTICS, VD_SEND_GLORY, VDPOL_RANDOM
from .state import (
    C_ATTACK_WINS,
    C_ATTACKS,
    C_DEFENCE_WINS,
    C_DEFENCES,
    C_GLORY_ATTACK,
    C_GLORY_DEFENCE,
    C_GLORY_JARL,
    C_GLORY_RAGNAROK,
    C_NO_WINNER,
    C_SENT_DEFENCE,
    C_TACTICS_PLAYED,
    END_SHIELD,
    G_GREY,
    TEAM,
)
from .tables import ANY, KIND_TACTIC, O_WEAPONS_EXCHANGE

EV_BATTLE, EV_RAGNAROK = 3, 5
T_FURY, T_FURY_FEWER, T_HEROIC, T_NEW, T_PUSH, T_EXCHANGE, T_SEPARATE = 0, 1, 2, 3, 4, 5, 6
P_COUNTER, P_ALLY, P_MULTI, P_GIANT = 0, 1, 2, 3


@njit(cache=True)
def side_nb(T, S, p, opp, eff, glory):
    """p's team as battle.py's side tuple: powers (DIGEST §5.8: clan-counter against opp's team,
    ally-clan counting the other Warriors, multi-clan counting the Warrior itself) and Jarl clan
    bonuses added to each Warrior's strength; glory=True: the Warriors' Glory instead (Ragnarök)."""
    n = S.team_n[p]
    need = np.zeros((n, 5), np.int8)
    anyn = np.zeros(n, np.int8)
    st = np.zeros(n, np.int32)
    giant = np.zeros(n, np.bool_)
    clans = 0
    for i in range(n):
        clans |= 1 << T.clan[S.team[p, i]]
    nclans = 0
    for k in range(5):
        nclans += clans >> k & 1
    for i in range(n):
        c = S.team[p, i]
        for w in range(5):
            need[i, w] = T.need[c, w]
        anyn[i] = T.any_need[c]
        if glory:
            st[i] = T.glory[c]
            continue
        v = T.strength[c] + eff[EF_CLAN + T.clan[c]]
        pw, a, b, x = T.power[c], T.pargs[c, 0], T.pargs[c, 1], T.pargs[c, 2]
        if pw == P_COUNTER and opp >= 0:
            for k in range(S.team_n[opp]):
                if T.clan[S.team[opp, k]] == a:
                    v += b
                    break
        elif pw == P_ALLY:
            m = 0
            for k in range(n):
                if k != i and T.clan[S.team[p, k]] == a:
                    m += 1
            v += b if m == 1 else (x if m >= 2 else 0)
        elif pw == P_MULTI:
            v += a if nclans == 3 else (b if nclans >= 4 else 0)
        elif pw == P_GIANT and opp >= 0:
            giant[i] = True
        st[i] = v
    return need, anyn, st, giant


@njit(cache=True)
def tactics_held_nb(T, S, p, held):
    """held int64[7]: p's Battle Tactics in hand by opcode (T_*)."""
    held[:] = 0
    for i in range(S.hand_n[p]):
        c = S.hand[p, i]
        if T.kind[c] == KIND_TACTIC:
            held[T.tactic[c]] += 1


@njit(cache=True)
def hold_rerolls_nb(held, prm):
    """A strategy that keeps its dice Tactics for Ragnarök (VD_HOLD_TACTICS) counts none in a battle."""
    if prm[VD_HOLD_TACTICS] != 0:
        held[T_PUSH] = 0
        held[T_NEW] = 0
        held[T_EXCHANGE] = 0


@njit(cache=True)
def strength_held_nb(T, S, p):
    """The most strength p's held Tactics could add (Fury, Fury when smaller, Heroic attack)."""
    v = 0
    for i in range(S.hand_n[p]):
        c = S.hand[p, i]
        if T.kind[c] == KIND_TACTIC and (T.tactic[c] == T_FURY or T.tactic[c] == T_FURY_FEWER or T.tactic[c] == T_HEROIC):
            v += T.targs[c, 0]
    return v


@canonical("p", "op", "weapon")  # literal opcodes and weapons: one body, not six
@njit(cache=True)
def play_tactic_nb(T, S, p, op, weapon):
    """Discard one held Tactic with opcode op (and, for Heroic attack, that weapon argument; -2:
    any); returns its first argument (the strength it adds), or -1 when none is held."""
    for i in range(S.hand_n[p]):
        c = S.hand[p, i]
        if T.kind[c] == KIND_TACTIC and T.tactic[c] == op and (weapon == -2 or T.targs[c, 1] == weapon):
            v = T.targs[c, 0]
            discard_nb(S, hand_take_nb(S, p, i))
            k = S.cnt[p, C_TACTICS_PLAYED]
            if k < S.played.shape[1]:
                S.played[p, k] = c
            S.cnt[p, C_TACTICS_PLAYED] = k + 1
            return v
    return -1


@njit(cache=True)
def leftover_nb(pool, side, mask, x_wild, left):
    """left int8[6]: the dice of ``pool`` the armed set does not use (Heroic attack discards one)."""
    need, anyn = side[0], side[1]
    for f in range(NF):
        left[f] = pool[f]
    a = 0
    pairs = 0
    for t in range(need.shape[0]):
        if mask >> t & 1:
            a += anyn[t] % ANY_PAIR
            pairs += anyn[t] // ANY_PAIR
            for w in range(5):
                d = need[t, w]
                u = min(d, left[w])
                left[w] -= u
                if d > u:  # covered by a wild X (Weapons exchange), else a turned die (all_one)
                    for _ in range(d - u):
                        bw = FACE_X
                        if left[FACE_X] <= 0:
                            for v in range(5):
                                if left[v] > left[bw]:
                                    bw = v
                        left[bw] -= 1
    for _ in range(a):
        bw, bc = -1, 0
        for w in range(5):
            if left[w] > bc:
                bw, bc = w, left[w]
        if bw >= 0:
            left[bw] -= 1
        elif x_wild > 0 and left[FACE_X] > 0:
            left[FACE_X] -= 1
    used = np.zeros(NF, np.int8)
    B.keep_pairs_nb(left, used, pairs)  # a pair's two different weapons (two_any_reading=wild)
    for f in range(NF):
        left[f] -= used[f]
    short = 2 * pairs
    for f in range(NF):
        short -= used[f]
    left[FACE_X] -= min(short, left[FACE_X])  # wild X dice took the rest


@njit(cache=True)
def phase_cfg_nb(T, S, p, role, eff, held, prm, dice):
    """cfg int64[N_CFG] of p's phase: dice, rerolls, Push back / New weapons / Weapons exchange in
    hand (DIGEST §5.7; New weapons needs a grey die), Jarl free rerolls, X wild, defender_ties."""
    cfg = np.zeros(B.N_CFG, np.int64)
    cfg[B.B_REROLLS] = 9
    cfg[B.B_FREE] = eff[EF_FREE] + 2 * held[T_PUSH]
    cfg[B.B_NEW] = max(0, min(held[T_NEW], S.gs[G_GREY], 9 - dice))  # the DP's tables hold 9 dice
    cfg[B.B_XWILD] = eff[EF_XWILD]
    if held[T_EXCHANGE] > 0:  # x_only: every X wild (6 dice); all_one: XW_ALL_ONE (dice.armable_nb)
        cfg[B.B_XWILD] += 6 if T.opts[O_WEAPONS_EXCHANGE] == 0 else XW_ALL_ONE
    cfg[B.C_POLICY] = int(prm[VD_ARM])
    cfg[B.C_DICE] = dice
    cfg[B.C_TIES] = eff[EF_TIES] if role == ROLE_DEFEND else 0
    cfg[B.C_COLOUR] = 1 if role == ROLE_DEFEND else 0  # black defends; red attacks and plays Ragnarök
    return cfg


@njit(cache=True)
def settle_tactics_nb(T, S, p, eff, cfg, cfg0, x_needed):
    """Discard the Tactics the phase used: Push back cards for free rerolls beyond the Jarl's (2 a
    card), New weapons cards (each keeps a grey die out of the pool until clean-up), Weapons
    exchange when the X dice it turned were needed (``x_needed``: see exchange_needed_nb)."""
    used_free = cfg0[B.B_FREE] - cfg[B.B_FREE] - eff[EF_FREE]
    while used_free > 0:
        play_tactic_nb(T, S, p, T_PUSH, -2)
        used_free -= 2
    for _ in range(cfg0[B.B_NEW] - cfg[B.B_NEW]):
        play_tactic_nb(T, S, p, T_NEW, -2)
        S.gs[G_GREY] -= 1
    if x_needed:
        play_tactic_nb(T, S, p, T_EXCHANGE, -2)


@njit(cache=True)
def exchange_needed_nb(eff, cfg0, st, pool, side):
    """Whether the phase's strength st needed Weapons exchange's wild X dice (beyond a Jarl's)."""
    if cfg0[B.B_XWILD] <= eff[EF_XWILD]:
        return False
    without, _ = B.arm_nb(pool, side[0], side[1], side[2], eff[EF_XWILD])
    return without < st


@njit(cache=True)
def strength_tactics_nb(T, S, p, opp, left, limit, need_more):
    """Play strength Tactics (Fury +2, Fury when your team is smaller +3, Heroic attack discarding an
    unplaced die), at most ``limit``, stopping once ``need_more`` (> 0) is reached; returns the
    strength added. Heroic attack (+4) needs an unplaced die of its weapon (DIGEST §5.7)."""
    added = 0
    for _ in range(limit):
        if need_more > 0 and added >= need_more:
            break
        best_v, best_op, best_w = 0, -1, -2
        for i in range(S.hand_n[p]):
            c = S.hand[p, i]
            if T.kind[c] != KIND_TACTIC:
                continue
            op, v, w = T.tactic[c], T.targs[c, 0], T.targs[c, 1]
            ok = op == T_FURY or (op == T_FURY_FEWER and opp >= 0 and S.team_n[p] < S.team_n[opp])
            if op == T_HEROIC:
                if w == ANY:
                    tot = 0
                    for f in range(NF):
                        tot += left[f]
                    ok = tot > 0
                else:
                    ok = left[w] > 0
            if ok and v > best_v:
                best_v, best_op, best_w = v, op, (w if op == T_HEROIC else -2)
        if best_op < 0:
            break
        play_tactic_nb(T, S, p, best_op, best_w)
        if best_op == T_HEROIC:  # discard an unplaced die: of its weapon, or the most plentiful
            f = best_w
            if best_w == ANY:
                f, bc = 0, -1
                for x in range(NF):
                    if left[x] > bc:
                        f, bc = x, left[x]
            left[f] -= 1
        added += best_v
    return added


@canonical("n_max", "min_glory", "source")
@njit(cache=True)
def send_nb(T, S, p, mask, n_max, min_glory, source):
    """Send p's activated Warriors (mask bits over the team as it stood in the battle) to Valhalla:
    at most n_max of them, Glory ≥ min_glory, the most Glory first. Returns how many went."""
    n = S.team_n[p]
    sent = 0
    flag = np.zeros(TEAM, np.bool_)
    for _ in range(min(n_max, n)):
        bi, bg = -1, -1
        for i in range(n):
            if mask >> i & 1 and not flag[i] and T.glory[S.team[p, i]] >= min_glory and T.glory[S.team[p, i]] > bg:
                bi, bg = i, T.glory[S.team[p, i]]
        if bi < 0:
            break
        flag[bi] = True
        sent += 1
    for i in range(n - 1, -1, -1):  # from the back so indices stay valid
        if flag[i]:
            to_valhalla_nb(T, S, p, team_take_nb(S, p, i), source)
    return sent


@njit(cache=True)
def battle_game_nb(T, S, dts, a, d, kinds, params):
    """Seat a attacks seat d (action A3). DIGEST §5.6: attacker's phase, then the defender's (one
    die fewer after an attacking Ice Giant; fewer with a Jarl's opp_die), compare (tie: attacker,
    or a defender_ties Jarl), then the shield and the Valhalla sends; played Tactics discarded."""
    pa, pd = params[a], params[d]
    ea = np.zeros(N_EFF, np.int64)
    ed = np.zeros(N_EFF, np.int64)
    held = np.zeros(7, np.int64)
    tactics_held_nb(T, S, a, held)
    jarl_d = S.jarl[d]
    if held[T_SEPARATE] > 0 and jarl_d >= 0:  # Separate the leader: the defender's Jarl is off (§5.7)
        play_tactic_nb(T, S, a, T_SEPARATE, -2)
        S.jarl[d] = -1
    jarl_effects_nb(T, S, a, d, ROLE_ATTACK, ea)
    jarl_effects_nb(T, S, d, a, ROLE_DEFEND, ed)
    grey0 = S.gs[G_GREY]
    # attacker's phase
    side_a = side_nb(T, S, a, d, ea, False)
    extra = min(ea[EF_DICE], S.gs[G_GREY])
    S.gs[G_GREY] -= extra
    tactics_held_nb(T, S, a, held)
    hold_rerolls_nb(held, pa)
    # King of the Hill's bonus dice for attacking the King (003 l.200); the DP's tables hold 9 dice (R64)
    cfg = phase_cfg_nb(T, S, a, ROLE_ATTACK, ea, held, pa, min(T.dice_att + extra + king_dice_nb(T, S, d), 9))
    cfg[B.C_GREY] = extra  # a Jarl's extra dice are grey ones (003 l.72)
    cfg0 = cfg.copy()
    pool = np.zeros(NF, np.int8)
    left = np.zeros(NF, np.int8)
    sa, ma, _ = B.phase_nb(dts, S.rs, T.cum, side_a, cfg, cfg[B.C_DICE], 0, pool)
    settle_tactics_nb(T, S, a, ea, cfg, cfg0, exchange_needed_nb(ea, cfg0, sa, pool, side_a))
    outcome = B.NO_WINNER
    sd, md = 0, 0
    S.cnt[a, C_ATTACKS] += 1
    S.cnt[d, C_DEFENCES] += 1
    if ma != 0:
        leftover_nb(pool, side_a, ma, cfg0[B.B_XWILD], left)
        lim = 99 if kinds[a] == VDPOL_RANDOM else int(pa[VD_ATT_TACTICS])
        sa += ea[EF_STR] + strength_tactics_nb(T, S, a, d, left, lim, 0)
        # defender's phase: it knows the attacker's strength
        nd = T.dice_def - ea[EF_OPP_DIE]
        for t in range(side_a[3].shape[0]):
            if ma >> t & 1 and side_a[3][t]:
                nd -= 1  # an attacking Ice Giant takes one die, once (003 l.394)
                break
        side_d = side_nb(T, S, d, a, ed, False)
        extra = min(ed[EF_DICE], S.gs[G_GREY])
        S.gs[G_GREY] -= extra
        tactics_held_nb(T, S, d, held)
        hold_rerolls_nb(held, pd)
        cfg = phase_cfg_nb(T, S, d, ROLE_DEFEND, ed, held, pd, max(nd, 0) + extra)
        cfg[B.C_GREY] = extra
        cfg0 = cfg.copy()
        bonus_max = ed[EF_STR] + strength_held_nb(T, S, d)
        target = max(1, sa + 1 - cfg[B.C_TIES] - bonus_max)
        sd, md, _ = B.phase_nb(dts, S.rs, T.cum, side_d, cfg, cfg[B.C_DICE], target, pool)
        settle_tactics_nb(T, S, d, ed, cfg, cfg0, exchange_needed_nb(ed, cfg0, sd, pool, side_d))
        if md == 0:
            outcome = B.ATTACKER_WINS  # no Warrior activated: the defender loses (003 l.116)
        else:
            sd += ed[EF_STR]
            short = sa + 1 - cfg[B.C_TIES] - sd
            if short > 0:  # play strength Tactics only when they turn the battle
                leftover_nb(pool, side_d, md, cfg0[B.B_XWILD], left)
                if short <= bonus_max - ed[EF_STR]:
                    sd += strength_tactics_nb(T, S, d, a, left, 99, short)
            won = sd > sa or (cfg[B.C_TIES] == 1 and sd == sa)
            outcome = B.DEFENDER_WINS if won else B.ATTACKER_WINS  # a tie: the attacker (003 l.119)
    S.jarl[d] = jarl_d
    log_nb(S, EV_BATTLE, a, d, outcome, sa, sd, ma)
    if outcome == B.NO_WINNER:
        S.cnt[a, C_NO_WINNER] += 1
    elif outcome == B.ATTACKER_WINS:
        S.cnt[a, C_ATTACK_WINS] += 1
        S.own_shields[d] -= 1  # one of the defender's own shields (003 l.122)
        S.won[a, d] += 1
        send_nb(T, S, a, ma, TEAM, -99, C_GLORY_ATTACK)  # every activated attacker (003 l.123)
        if ed[EF_LOSS] > 0 and md != 0:
            send_nb(T, S, d, md, ed[EF_LOSS], -99, C_GLORY_JARL)
        for _ in range(ea[EF_WIN_DRAW]):
            draw_nb(S, a)
        for _ in range(min(ea[EF_STEAL], S.hand_n[d])):
            c = hand_take_nb(S, d, rand_int_nb(S.rs, S.hand_n[d]))
            S.hand[a, S.hand_n[a]] = c
            S.hand_n[a] += 1
        if S.own_shields[d] == 0:
            trigger_end_nb(S, END_SHIELD)  # a player lost the last own shield (003 l.132)
    else:
        S.cnt[d, C_DEFENCE_WINS] += 1
        g = -99 if kinds[d] == VDPOL_RANDOM and rand_int_nb(S.rs, 2) == 0 else int(pd[VD_SEND_GLORY])
        S.cnt[d, C_SENT_DEFENCE] += send_nb(T, S, d, md, TEAM, g, C_GLORY_DEFENCE)
        if ea[EF_LOSS] > 0:
            send_nb(T, S, a, ma, ea[EF_LOSS], -99, C_GLORY_JARL)
        for _ in range(ed[EF_WIN_DRAW]):
            draw_nb(S, d)
    if outcome != B.NO_WINNER:  # the modules act after every other effect of the battle (003 l.161)
        w, lo = (a, d) if outcome == B.ATTACKER_WINS else (d, a)
        loki_bonus_nb(T, S, lo, abs(sa - sd))
        king_after_battle_nb(T, S, w, lo)
    S.gs[G_GREY] = grey0  # clean-up: every grey die back in the pool (003 l.130)


@njit(cache=True)
def ragnarok_nb(T, S, dts, p, kinds, params):
    """003 l.138-142 / DIGEST §5.10: p rolls 6 dice as an attacker with no opponent, arms for
    Glory; the activated Warriors go to Valhalla, the rest of the team and the hand are discarded."""
    e = np.zeros(N_EFF, np.int64)
    held = np.zeros(7, np.int64)
    jarl_effects_nb(T, S, p, -1, ROLE_RAGNAROK, e)
    if S.team_n[p] > 0:
        side = side_nb(T, S, p, -1, e, True)
        extra = min(e[EF_DICE], S.gs[G_GREY])
        tactics_held_nb(T, S, p, held)
        cfg = phase_cfg_nb(T, S, p, ROLE_ATTACK, e, held, params[p], T.dice_att + extra)
        cfg[B.C_GREY] = extra
        cfg0 = cfg.copy()
        pool = np.zeros(NF, np.int8)
        g, m, _ = B.phase_nb(dts, S.rs, T.cum, side, cfg, cfg[B.C_DICE], 0, pool)
        settle_tactics_nb(T, S, p, e, cfg, cfg0, exchange_needed_nb(e, cfg0, g, pool, side))
        S.gs[G_GREY] = T.grey
        log_nb(S, EV_RAGNAROK, p, g, m, 0, 0, 0)
        send_nb(T, S, p, m, TEAM, -99, C_GLORY_RAGNAROK)
    while S.team_n[p] > 0:
        discard_nb(S, team_take_nb(S, p, S.team_n[p] - 1))
    while S.hand_n[p] > 0:
        discard_nb(S, hand_take_nb(S, p, S.hand_n[p] - 1))
