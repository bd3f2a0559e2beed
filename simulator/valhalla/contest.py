"""Blood Rage: Valhalla contests (rulebook 000_…txt "Contest": Call to Battle, Play Cards,
Resolution; DIGEST §3.1 god tiles, §3.2 kill piles): the battle, its card texts, region rewards
and god tiles, and figures leaving the board. T: VTABLES record, S: VSTATE record,
kinds int8[P] / params float64[P, VP_N]: the seats' policies.
"""
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from .board import (
    add_glory_nb,
    battle_op_nb,
    card_has_op_nb,
    card_op_sum_nb,
    contestable_nb,
    count_in_nb,
    deck_bottom_nb,
    draw_nb,
    fig_str_nb,
    hand_add_nb,
    hand_take_nb,
    has_enemy_nb,
    move_fig_nb,
    note_fired_nb,
    raise_stat_nb,
    sheet_sum_nb,
    total_glory_nb,
)
from .policy import battle_card_nb, call_choice_nb, card_worth_nb, choose_stat_nb, enemy_target_nb
from .state import G_NP, G_REMOVED, log_nb, note_use_nb
from .view import board_view_nb, region_claimed_nb


# --- figures leaving the board ----------------------------------------------------------------
@njit(cache=True, _nrt=False)
def remove_fig_nb(T, S, p, f, dest):
    """Send clan p's figure f to ``dest`` (a kill pile, the Feast Hall or the reserve)."""
    log_nb(S, E.VEV_KILL, p, f, S.loc[p, f], dest, 0, 0)
    move_fig_nb(T, S, p, f, dest)


@njit(cache=True, _nrt=False)
def lose_fig_nb(T, S, p, f, dest):
    """Clan p's figure f lost in the current battle goes to ``dest`` (a kill pile, or the Feast
    Hall in a tie), but Protect upgrades send the first ones lost in each battle, a tie's too, to
    the reserve (rulings R48). Returns True if it went to ``dest``."""
    S.lost_n[p] += 1
    if S.lost_n[p] <= sheet_sum_nb(T, S, p, E.VOP_PROTECT):
        remove_fig_nb(T, S, p, f, E.VH_LOC_RESERVE)
        return False
    remove_fig_nb(T, S, p, f, dest)
    return True


@njit(cache=True, _nrt=False)
def destroy_fig_nb(T, S, p, f, killer):
    """A figure destroyed by clan ``killer``'s ability goes to its kill pile ("Figures"), Protect
    permitting (lose_fig_nb)."""
    if lose_fig_nb(T, S, p, f, E.VH_LOC_KILL0 - killer):
        S.kills_now[killer] += 1


# --- contest ("Contest": Call to Battle, Play Cards, Resolution) ------------------------------
@njit(cache=True, _nrt=False)
def call_to_battle_nb(T, S, c, r, kinds, params):
    """Each clan from the contester's left, the contester last, may move one figure (1 + call_extra
    with upgrades; any number with option call_one = false) from adjacent regions into r, once."""
    P = S.gs[G_NP]
    for k in range(1, P + 1):
        q = (c + k) % P
        limit = 1 + sheet_sum_nb(T, S, q, E.VOP_CALL_EXTRA)
        if T.opts[E.VOPT_CALL_ONE] == 0:
            limit = E.VH_NFIG
        for m in range(limit):
            f = call_choice_nb(T, S, q, c, r, kinds[q], params[q])
            if f < 0:
                break
            l = S.loc[q, f]
            if l < 0 or l == r or T.adj[l, r] == 0:  # a policy may only name an adjacent figure
                break
            move_fig_nb(T, S, q, f, r)
            S.summoned[q, f] = 0
            log_nb(S, E.VEV_CALL, q, f, l, r, 0, 0)


@njit(cache=True, _nrt=False)
def battle_mask_nb(T, S, p, r):
    """Bits 1 << op of every opcode that clan p's revealed card, upgrades (S.sheet_ops, Monster
    upgrades too) or Monsters in r carry: from the cards revealed on, a battle's sources of clan p
    only leave (figures die), so battle_effects_nb and _count_op_nb skip an opcode outside it."""
    m = S.sheet_ops[p]
    c = S.played[p]
    if c >= 0:
        m |= T.card_opmask[c]
    for k in range(E.VH_N_MONSTERS):
        x = S.mon_card[p, k]
        if x >= 0 and S.loc[p, E.VH_FIG_MONSTER0 + k] == r:
            m |= T.card_opmask[x]
    return m


@njit(cache=True, _nrt=False)
def battle_effects_nb(T, S, p, r, op):
    """Sum of opcode op's argument acting for clan p in the battle in r: its revealed battle card,
    its upgrades, and its Monsters fighting there. 0 at once for an opcode none of them carries
    (S.w_bmask, battle_mask_nb: set by battle_nb once the cards are revealed)."""
    if (S.w_bmask[p] >> op) & 1 == 0:
        return 0
    s = 0
    c = S.played[p]
    if c >= 0 and T.card_type[c] == E.VCT_BATTLE:
        s += card_op_sum_nb(T, c, op)
    s += sheet_sum_nb(T, S, p, op)
    for k in range(E.VH_N_MONSTERS):
        if S.loc[p, E.VH_FIG_MONSTER0 + k] == r:
            s += card_op_sum_nb(T, S.mon_card[p, k], op)
    return s


@njit(cache=True, _nrt=False)
def _fire(T, S, p, r, op, mult):
    """Log and count each card behind an effect that acted (the revealed card, the upgrades, the
    fighting Monsters), each with its own amount: its argument x ``mult`` (the argument alone for
    mult = 1; ``mult`` for argument-less opcodes)."""
    c = S.played[p]
    if c >= 0 and T.card_type[c] == E.VCT_BATTLE and card_has_op_nb(T, c, op):
        note_fired_nb(S, c, p, op, max(card_op_sum_nb(T, c, op), 1) * mult)
    battle_op = battle_op_nb(op)
    for k in range(E.VH_N_SLOTS):
        x = S.slot[p, k]
        if x >= 0 and S.slot_quest[p, k] == 0 and not (battle_op and T.card_type[x] == E.VCT_MONSTER) \
                and card_has_op_nb(T, x, op):
            note_fired_nb(S, x, p, op, max(card_op_sum_nb(T, x, op), 1) * mult)
    for k in range(E.VH_N_MONSTERS):
        x = S.mon_card[p, k]
        if x >= 0 and S.loc[p, E.VH_FIG_MONSTER0 + k] == r and card_has_op_nb(T, x, op):
            note_fired_nb(S, x, p, op, max(card_op_sum_nb(T, x, op), 1) * mult)


@njit(cache=True, _nrt=False)
def battle_nb(T, S, c, r, kinds, params):
    """A battle in r started by a contest of clan c. Returns the winner, -1 for a tie.

    Play Cards: every clan with figures in r reveals one card from its hand (if it has any);
    battle cards add their STR. Resolution: the highest total wins, a tie for the highest and
    everyone loses. Losers' figures go to the winner's kill pile (tie: the Feast Hall); the winner
    discards its card, losers take theirs back; the winner gains its Axes as Glory.
    """
    P = S.gs[G_NP]
    part = S.w_part
    board_view_nb(T, S)  # figures' counts and STR per region, kept by the moves
    for q in range(P):
        part[q] = S.w_cnt[q, r] > 0
        S.played[q] = -1
        S.lost_n[q] = 0
        S.kills_now[q] = 0
    for k in range(P):  # choices are simultaneous: every clan chooses before any is revealed
        q = (c + k) % P
        if part[q]:
            i = battle_card_nb(T, S, q, r, kinds[q], params[q])
            if i >= 0:
                S.played[q] = hand_take_nb(S, q, i)
    for k in range(P):
        q = (c + k) % P
        if part[q] and S.played[q] >= 0:
            x = S.played[q]
            note_use_nb(S, q, x, E.USE_BATTLE)
            log_nb(S, E.VEV_PLAY, q, x, T.card_value[x] if T.card_type[x] == E.VCT_BATTLE else 0, 0, 0, 0)
    for q in range(P):
        S.w_bmask[q] = battle_mask_nb(T, S, q, r) if part[q] else 0
    # before STR is compared: destroy effects, from the contester clockwise
    for k in range(P):
        q = (c + k) % P
        if not part[q]:
            continue
        n = battle_effects_nb(T, S, q, r, E.VOP_DESTROY_ENEMY)
        if n <= 0:
            continue
        _fire(T, S, q, r, E.VOP_DESTROY_ENEMY, 1)
        for x in range(P):
            if x == q or not part[x]:
                continue
            for m in range(n):
                bf, bs = -1, -1
                for f in range(E.VH_NFIG):
                    if S.loc[x, f] == r:
                        s = fig_str_nb(T, S, x, f)
                        if s > bs:
                            bf, bs = f, s
                if bf < 0:
                    break
                destroy_fig_nb(T, S, x, bf, q)
    total = S.w_total
    total[:] = 0
    best, n_best, w = -1, 0, -1
    board_view_nb(T, S)  # the destroyed figures have left (the moves kept the view)
    for q in range(P):
        if not part[q]:
            continue
        figs = S.w_str[q, r]
        x = S.played[q]
        card = T.card_value[x] if x >= 0 and T.card_type[x] == E.VCT_BATTLE else 0
        total[q] = figs + card + battle_effects_nb(T, S, q, r, E.VOP_BATTLE_STR) - (
            card_op_sum_nb(T, x, E.VOP_BATTLE_STR) if x >= 0 and T.card_type[x] == E.VCT_BATTLE else 0)
        log_nb(S, E.VEV_TOTAL, q, figs, x, total[q], 0, 0)
        if total[q] > best:
            best, n_best, w = total[q], 1, q
        elif total[q] == best:
            n_best += 1
    if n_best > 1:
        w = -1
        log_nb(S, E.VEV_TIE, -1, r, 0, 0, 0, 0)
    for q in range(P):
        if not part[q] or q == w:
            continue
        saved = _count_op_nb(T, S, q, r, E.VOP_SAVE_ON_LOSE) > 0
        n_saved = 0
        for f in range(E.VH_NFIG):
            if S.loc[q, f] == r:
                if saved:
                    n_saved += 1
                    remove_fig_nb(T, S, q, f, E.VH_LOC_RESERVE)
                elif w < 0:
                    lose_fig_nb(T, S, q, f, E.VH_LOC_FEAST)
                else:
                    destroy_fig_nb(T, S, q, f, w)
        if n_saved > 0:
            _fire(T, S, q, r, E.VOP_SAVE_ON_LOSE, n_saved)
    if w >= 0:
        ax = T.track[E.STAT_AXES, S.stat[w, E.STAT_AXES]]
        add_glory_nb(S, w, ax, E.G_BATTLE)
        log_nb(S, E.VEV_WIN, w, r, ax, 0, 0, 0)
        _win_effects_nb(T, S, w, r, kinds, params)
    for q in range(P):
        if part[q] and q != w:
            _lose_effects_nb(T, S, q, w, r)
    # cards: the winner discards, losers take theirs back
    for q in range(P):
        x = S.played[q]
        if x < 0:
            continue
        if q == w:
            if S.discard_n[q] < S.discard.shape[1]:
                S.discard[q, S.discard_n[q]] = x
                S.discard_n[q] += 1
            else:
                S.gs[G_REMOVED] += 1
        else:
            hand_add_nb(S, q, x)
        S.played[q] = -1
    return w


@canonical("w")  # a literal -1 (no winner) and a seat: one body, not two
@njit(cache=True, _nrt=False)
def _win_effects_nb(T, S, w, r, kinds, params):
    g = battle_effects_nb(T, S, w, r, E.VOP_GLORY_ON_WIN)
    if g > 0:
        _fire(T, S, w, r, E.VOP_GLORY_ON_WIN, 1)
        add_glory_nb(S, w, g, E.G_CARDS)
    g = battle_effects_nb(T, S, w, r, E.VOP_GLORY_PER_KILL) * S.kills_now[w]
    if g > 0:
        _fire(T, S, w, r, E.VOP_GLORY_PER_KILL, S.kills_now[w])
        add_glory_nb(S, w, g, E.G_CARDS)
    g = battle_effects_nb(T, S, w, r, E.VOP_RAGE_ON_WIN)
    if g > 0:
        _fire(T, S, w, r, E.VOP_RAGE_ON_WIN, 1)
        S.rage[w] += g
    n = _count_op_nb(T, S, w, r, E.VOP_RAISE_ON_WIN)  # no argument: count the sources
    for k in range(n):
        st = choose_stat_nb(T, S, w, kinds[w], params[w])
        if st >= 0:
            raise_stat_nb(S, w, st, E.RAISE_CARD)
    if n > 0:
        _fire(T, S, w, r, E.VOP_RAISE_ON_WIN, 1)
    g = battle_effects_nb(T, S, w, r, E.VOP_DRAW_ON_WIN)
    if g > 0:
        _fire(T, S, w, r, E.VOP_DRAW_ON_WIN, 1)
        for k in range(g):
            x = draw_nb(S)
            if x >= 0:
                hand_add_nb(S, w, x)
                log_nb(S, E.VEV_DRAW, w, x, 0, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _count_op_nb(T, S, p, r, op):
    """Sources (revealed card, upgrades, fighting Monsters) carrying an argument-less opcode
    (none when battle_mask_nb's S.w_bmask has not its bit)."""
    if (S.w_bmask[p] >> op) & 1 == 0:
        return 0
    n = 0
    c = S.played[p]
    if c >= 0 and T.card_type[c] == E.VCT_BATTLE and (T.card_op[c, 0] == op or T.card_op[c, 1] == op):
        n += 1
    for k in range(E.VH_N_SLOTS):
        x = S.slot[p, k]
        if x >= 0 and S.slot_quest[p, k] == 0 and T.card_type[x] != E.VCT_MONSTER and (
                T.card_op[x, 0] == op or T.card_op[x, 1] == op):
            n += 1
    for k in range(E.VH_N_MONSTERS):
        x = S.mon_card[p, k]
        if x >= 0 and S.loc[p, E.VH_FIG_MONSTER0 + k] == r and (T.card_op[x, 0] == op or T.card_op[x, 1] == op):
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _lose_effects_nb(T, S, q, w, r):
    g = battle_effects_nb(T, S, q, r, E.VOP_GLORY_ON_LOSE)
    if g > 0:
        _fire(T, S, q, r, E.VOP_GLORY_ON_LOSE, 1)
        add_glory_nb(S, q, g, E.G_CARDS)
    g = battle_effects_nb(T, S, q, r, E.VOP_RAGE_ON_LOSE)
    if g > 0:
        _fire(T, S, q, r, E.VOP_RAGE_ON_LOSE, 1)
        S.rage[q] += g
    g = battle_effects_nb(T, S, q, r, E.VOP_STEAL_ON_LOSE)
    if g > 0 and w >= 0:
        g = min(g, max(total_glory_nb(S, w), 0))
        if g > 0:
            _fire(T, S, q, r, E.VOP_STEAL_ON_LOSE, 1)
            _take_glory_nb(S, w, g)
            add_glory_nb(S, q, g, E.G_CARDS)
            log_nb(S, E.VEV_STEAL, q, g, w, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _take_glory_nb(S, w, g):
    """Take g Glory from clan w: from its card Glory first, then the other sources in order
    (never below 0 in total)."""
    order = (E.G_CARDS, E.G_CONTEST, E.G_BATTLE, E.G_QUEST, E.G_VALOR, E.G_BONUS, E.G_PILLAGE, E.G_RAGNAROK)
    left = g
    for s in order:
        t = min(left, S.glory[w, s])
        if t > 0:
            S.glory[w, s] -= t
            left -= t
        if left == 0:
            break


@njit(cache=True, _nrt=False)
def reward_nb(T, S, c, r, losers, kinds, params):
    """The contester c won the contest in r: the region's reward, or the god tile where a god is
    (+1 step on a stat of c's choice and the god's power, DIGEST §3.1); c claims it this age."""
    S.claimed[r] = c
    region_claimed_nb(T, S, r)
    S.claims[c] += 1
    g = S.god_at[r]
    log_nb(S, E.VEV_REWARD, c, r, E.VR_GOD if g >= 0 else S.reward[r], g, 0, 0)
    if g < 0:
        rw = S.reward[r]
        if rw == E.VR_GLORY:
            add_glory_nb(S, c, T.glory_reward, E.G_CONTEST)
        elif rw == E.VR_ALL:
            for st in range(E.N_STATS):
                raise_stat_nb(S, c, st, E.RAISE_REWARD)
        else:
            raise_stat_nb(S, c, rw, E.RAISE_REWARD)
    else:
        S.god_fired[g] += 1
        st = choose_stat_nb(T, S, c, kinds[c], params[c])
        if st >= 0:
            raise_stat_nb(S, c, st, E.RAISE_REWARD)
        pw = T.god_power[g]
        amt = T.god_amount[g]
        if pw == E.VGP_THOR:
            add_glory_nb(S, c, amt, E.G_CONTEST)
        elif pw == E.VGP_LOKI:
            n = 0
            for q in range(S.gs[G_NP]):
                if losers[q]:
                    n += 1
                    t = min(amt, max(total_glory_nb(S, q), 0))
                    if t > 0:
                        _take_glory_nb(S, q, t)
                        add_glory_nb(S, c, t, E.G_CONTEST)
                        log_nb(S, E.VEV_STEAL, c, t, q, 0, 0, 0)
            if n == 0:
                add_glory_nb(S, c, amt, E.G_CONTEST)
        elif pw == E.VGP_FREYA:
            n = 0
            for f in range(E.VH_NFIG):
                if n < amt and (S.loc[c, f] == E.VH_LOC_FEAST or S.loc[c, f] <= E.VH_LOC_KILL0):
                    log_nb(S, E.VEV_RETURN, c, f, S.loc[c, f], 0, 0, 0)
                    move_fig_nb(T, S, c, f, E.VH_LOC_RESERVE)
                    n += 1
        elif pw == E.VGP_BALDR:
            bi, bw = -1, -1e18
            drawn = S.w_drawn
            drawn[:] = -1
            nd = 0
            for k in range(min(amt, 8)):
                x = draw_nb(S)
                if x >= 0:
                    drawn[nd] = x
                    nd += 1
            for k in range(nd):
                wv = card_worth_nb(T, S, c, drawn[k], params[c])
                if wv > bw:
                    bi, bw = k, wv
            for k in range(nd):
                if k == bi:
                    hand_add_nb(S, c, drawn[k])
                    log_nb(S, E.VEV_DRAW, c, drawn[k], 0, 0, 0, 0)
                else:
                    deck_bottom_nb(S, drawn[k])
        elif pw == E.VGP_TYR:
            for k in range(amt):
                q, f = enemy_target_nb(T, S, c)
                if q < 0:
                    break
                remove_fig_nb(T, S, q, f, E.VH_LOC_KILL0 - c)
    cg = sheet_sum_nb(T, S, c, E.VOP_CONTEST_GLORY)
    if cg > 0:
        for k in range(E.VH_N_SLOTS):
            x = S.slot[c, k]
            if x >= 0 and S.slot_quest[c, k] == 0 and card_op_sum_nb(T, x, E.VOP_CONTEST_GLORY) > 0:
                note_fired_nb(S, x, c, E.VOP_CONTEST_GLORY, card_op_sum_nb(T, x, E.VOP_CONTEST_GLORY))
        add_glory_nb(S, c, cg, E.G_CARDS)


@njit(cache=True, _nrt=False)
def contest_nb(T, S, c, r, kinds, params):
    """Contest (no Rage): clan c, with a figure in r whose reward is still available, calls to
    battle; unopposed it takes the reward (no battle Glory); otherwise a battle, and c takes the
    reward only if it wins."""
    if not contestable_nb(T, S, r) or count_in_nb(S, c, r) == 0:
        return False
    log_nb(S, E.VEV_CONTEST, c, r, 0, 0, 0, 0)
    if S.contests[c, r] < 127:
        S.contests[c, r] += 1
    call_to_battle_nb(T, S, c, r, kinds, params)
    P = S.gs[G_NP]
    losers = S.w_losers
    losers[:] = 0
    if not has_enemy_nb(S, c, r):
        log_nb(S, E.VEV_NOBATTLE, c, r, 0, 0, 0, 0)
        reward_nb(T, S, c, r, losers, kinds, params)
        return True
    for q in range(P):
        losers[q] = count_in_nb(S, q, r) > 0
    w = battle_nb(T, S, c, r, kinds, params)
    if w == c:
        losers[c] = False
        reward_nb(T, S, c, r, losers, kinds, params)
    return True

