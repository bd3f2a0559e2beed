"""Blood Rage: Valhalla rules kernels (rulebook 000_…txt, sections named in each docstring;
DIGEST §3 where the rulebook is silent): setup, God Arrives, the draft, the actions and the
Action phase, Quest, Prove Valor, Release, end of age and game (contests: contest.py). T: VTABLES record, S: VSTATE record,
kinds int8[P] / params float64[P, VP_N]: the seats' policies.
"""
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from ..core.draft_rules import rules_bind_nb
from ..core.rng import rand_int_nb, shuffle_nb
from .board import (
    add_glory_nb,
    board_changed_nb,
    card_op_sum_nb,
    count_in_nb,
    deck_bottom_nb,
    draw_nb,
    free_base_nb,
    free_slot_nb,
    hand_add_nb,
    hand_take_nb,
    is_common_nb,
    move_fig_nb,
    note_fired_nb,
    raise_stat_nb,
    sheet_refresh_nb,
    sheet_sum_nb,
    str_in_nb,
    total_glory_nb,
)
from .contest import contest_nb, remove_fig_nb
from .invariants import checkpoint_nb
from .policy import card_worth_nb, choose_action_nb, choose_stat_nb, draft_pick_nb, march_dest_nb
from .state import G_AGE, G_CAPPED, G_DECK_N, G_DECK_TOTAL, G_FIRST, G_NP, G_REMOVED, G_TURNS, log_nb, note_use_nb
from .view import region_view_nb


# --- setup ("Setup": Prepare Your Clan, Prepare the Board) -----------------------------------
@njit(cache=True)
def setup_nb(T, S, god_plan, start):
    """Clans: Elites and Warriors in reserve, 6 Rage, stats on step 1, starting Glory (0, or the
    Rainbow Bridge's: T.start_glory + start int16[P]). Board: Region Tokens on `region_tokens` random outer regions, rewards
    shuffled onto the outer regions, 3 random gods on the Age track, the deck of their cards plus
    3 random Monsters per player, shuffled. god_plan int8[4]: the three gods in age order (-1:
    drawn at random) and 1 to shuffle their order (a sweep over god sets)."""
    P = S.gs[G_NP]
    for p in range(P):
        for k in range(T.n_elites):
            S.loc[p, E.VH_FIG_ELITE0 + k] = E.VH_LOC_RESERVE
        for k in range(T.n_warriors):
            S.loc[p, E.VH_FIG_WARRIOR0 + k] = E.VH_LOC_RESERVE
        S.rage[p] = T.track[E.STAT_RAGE, 0]
        g0 = T.start_glory[p] + start[p]
        if g0 != 0:
            add_glory_nb(S, p, g0, E.G_START)
    no = T.n_outer
    order = S.w_shuf  # the state's buffers: no allocation per game
    for r in range(no):
        order[r] = r
    shuffle_nb(S.rs, order, no)
    for k in range(T.region_tokens):
        S.token[order[k]] = 1
        S.token0[order[k]] = 1
    rw = S.w_rw
    for r in range(no):
        rw[r] = T.outer_rewards[r]
    shuffle_nb(S.rs, rw, no)
    for r in range(no):
        S.reward[r] = rw[r]
    S.reward[T.valhalla] = T.valhalla_reward
    gods = S.w_shuf  # order is read no more
    for g in range(T.n_gods):
        gods[g] = g
    shuffle_nb(S.rs, gods, T.n_gods)
    if god_plan[0] >= 0:  # a god sweep fixes the gods (and their order unless god_plan[3] == 1)
        for a in range(3):
            gods[a] = god_plan[a]
        if god_plan[3] == 1:
            shuffle_nb(S.rs, gods, 3)
    for a in range(3):
        S.gods[a] = gods[a]
    n = 0
    mons = S.w_shuf  # the gods are in S.gods
    nm = 0
    for c in range(T.n_cards):
        if T.card_type[c] == E.VCT_MONSTER:
            for k in range(T.card_copies[c]):
                mons[nm] = c
                nm += 1
        else:
            g = T.card_vgod[c]
            if g == S.gods[0] or g == S.gods[1] or g == S.gods[2]:
                for k in range(T.card_copies[c]):
                    S.deck[n] = c
                    n += 1
    shuffle_nb(S.rs, mons, nm)
    for k in range(min(T.monsters_pp * P, nm)):
        S.deck[n] = mons[k]
        n += 1
    shuffle_nb(S.rs, S.deck, n)
    S.gs[G_DECK_N] = n
    S.gs[G_DECK_TOTAL] = n
    S.gs[G_FIRST] = 0
    region_view_nb(T, S)


@njit(cache=True)
def give_rewards_nb(S, rewards):
    """Rainbow Bridge Reward Cards won in the Blood Rage game (rulebook "The Rainbow Bridge Module":
    placed on the clan symbol at setup, added to the hand after the age-1 draft); rewards
    int16[P, MAX_MISSIONS], -1 none. They join the game's cards (card conservation)."""
    for p in range(S.gs[G_NP]):
        for k in range(rewards.shape[1]):
            S.rewards[p, k] = rewards[p, k]
            if rewards[p, k] >= 0:
                S.gs[G_DECK_TOTAL] += 1


# --- God Arrives ------------------------------------------------------------------------------
@njit(cache=True)
def god_arrives_nb(T, S):
    """God Arrives Phase: this age's god goes to the region with the lowest-numbered Region Token,
    and the token leaves the game. With no token left (a board or rule change with fewer tokens),
    the god goes to the lowest-numbered outer region without a god (rulings R46)."""
    g = S.gods[S.gs[G_AGE] - 1]
    r = -1
    for x in range(T.n_outer):
        if S.token[x] == 1:
            r = x
            break
    if r < 0:
        for x in range(T.n_outer):
            if S.god_at[x] < 0:
                r = x
                break
    if r < 0:
        return
    S.token[r] = 0
    S.god_at[r] = g
    region_view_nb(T, S)
    log_nb(S, E.VEV_GOD, -1, g, r, 0, 0, 0)


# --- Draft Gods' Gifts ------------------------------------------------------------------------
@njit(cache=True)
def _ruled_pick_nb(T, S, q, pack, n, kind, params):
    """Pick under the ablation rules (T.card_draft): a forced card is taken; banned ones are
    skipped unless every card left is banned. Whom the marks bind: core.draft_rules."""
    bind = rules_bind_nb(T, S, q)
    if bind == 0:
        return draft_pick_nb(T, S, q, pack, n, kind, params)
    for i in range(n):
        if T.card_draft[pack[i]] == E.DRAFT_FORCED and bind == 1:
            return i
    if T.draft_rules == 0:
        return draft_pick_nb(T, S, q, pack, n, kind, params)
    k = 0
    for i in range(n):
        if T.card_draft[pack[i]] != E.DRAFT_BANNED:
            c = pack[k]
            pack[k] = pack[i]
            pack[i] = c
            k += 1
    if k == 0:
        k = n
    return draft_pick_nb(T, S, q, pack, k, kind, params)


@njit(cache=True)
def draft_nb(T, S, kinds, params):
    """Draft Gods' Gifts Phase: deal 6 to each clan, keep 1 and pass (left in ages 1 and 3, right
    in age 2) until 5 are kept; the last card of each pack goes to the bottom of the deck. The
    cards saved on the clan symbol then join the hand (and draw_age effects draw)."""
    P = S.gs[G_NP]
    age = S.gs[G_AGE]
    deal = T.deal
    packs, pn = S.w_packs, S.w_pn  # the state's buffers: no allocation per age
    for p in range(P):
        pn[p] = 0
        for k in range(deal):
            packs[p, k] = -1
        for k in range(deal):
            c = draw_nb(S)
            if c >= 0:
                packs[p, pn[p]] = c
                pn[p] += 1
    d = 1 if T.pass_left[age - 1] == 1 else -1
    for k in range(T.keep):
        for p in range(P):
            pk = (p - d * k) % P  # the pack clan p holds at pick k
            if pn[pk] == 0:
                continue
            i = _ruled_pick_nb(T, S, p, packs[pk], pn[pk], kinds[p], params[p])
            c = packs[pk, i]
            packs[pk, i] = packs[pk, pn[pk] - 1]
            packs[pk, pn[pk] - 1] = -1
            pn[pk] -= 1
            hand_add_nb(S, p, c)
            if k < E.MAX_PICKS:
                S.picks[p, age - 1, k] = c
            log_nb(S, E.VEV_PICK, p, c, k + 1, 0, 0, 0)
    for p in range(P):
        for i in range(pn[p]):
            deck_bottom_nb(S, packs[p, i])
    for p in range(P):
        for i in range(S.saved_n[p]):
            hand_add_nb(S, p, S.saved[p, i])
            log_nb(S, E.VEV_CARRY, p, S.saved[p, i], 0, 0, 0, 0)
            S.saved[p, i] = -1
        S.saved_n[p] = 0
        if age == 1:
            for k in range(S.rewards.shape[1]):
                if S.rewards[p, k] >= 0:
                    hand_add_nb(S, p, S.rewards[p, k])
                    log_nb(S, E.VEV_CARRY, p, S.rewards[p, k], 1, 0, 0, 0)
                    S.rewards[p, k] = -1
        for k in range(sheet_sum_nb(T, S, p, E.VOP_DRAW_AGE)):
            c = draw_nb(S)
            if c >= 0:
                hand_add_nb(S, p, c)
                log_nb(S, E.VEV_DRAW, p, c, 0, 0, 0, 0)



# --- actions ("Action Phase") -----------------------------------------------------------------
@njit(cache=True)
def summon_nb(T, S, p, f, r):
    """Summon: a figure from the reserve into a common region; 1 Rage for Elites and Warriors,
    0 for Monsters; at least 1 Rage needed. Returns True if done."""
    if S.loc[p, f] != E.VH_LOC_RESERVE or not is_common_nb(T, S, r) or S.rage[p] < 1:
        return False
    cost = 0 if f >= E.VH_FIG_MONSTER0 else 1
    S.rage[p] -= cost
    move_fig_nb(T, S, p, f, r)
    S.summoned[p, f] = 1
    log_nb(S, E.VEV_SUMMON, p, f, r, cost, 0, 0)
    return True


@njit(cache=True)
def march_nb(T, S, p, src, dests):
    """March (1 Rage): clan p's figures in region src move, each to a region adjacent to src
    (dests int64[VH_NFIG]: destination per figure, -1 or src = stays). Figures elsewhere cannot
    join (the rulebook's invalid example: two regions into one). Returns False, changing nothing,
    if Rage is short, no figure moves or a destination is not joined to src by a pathway."""
    if S.rage[p] < 1:
        return False
    n = 0
    for f in range(E.VH_NFIG):
        d = dests[f]
        if d < 0 or d == src:
            continue
        if S.loc[p, f] != src or d >= T.n_regions or T.adj[src, d] == 0:
            return False
        n += 1
    if n == 0:
        return False
    S.rage[p] -= 1
    for f in range(E.VH_NFIG):
        d = dests[f]
        if d >= 0 and d != src:
            move_fig_nb(T, S, p, f, d)
            S.summoned[p, f] = 0
            log_nb(S, E.VEV_MARCH, p, f, src, d, 0, 0)
    return True


@njit(cache=True)
def _hand_index(S, p, c):
    for i in range(S.hand_n[p]):
        if S.hand[p, i] == c:
            return i
    return -1


@njit(cache=True)
def upgrade_nb(T, S, p, c):
    """Upgrade: pay Rage equal to the card's STR, place it on an open slot (7 shared with quests);
    a Monster needs a free clan base and goes to the reserve (not summoned)."""
    i = _hand_index(S, p, c)
    k = free_slot_nb(S, p)
    t = T.card_type[c]
    if i < 0 or k < 0 or t == E.VCT_BATTLE or t == E.VCT_QUEST or T.card_value[c] > S.rage[p] or S.rage[p] < 1:
        return False
    base = -1
    if t == E.VCT_MONSTER:
        base = free_base_nb(T, S, p)
        if base < 0:
            return False
    hand_take_nb(S, p, i)
    S.rage[p] -= T.card_value[c]
    S.slot[p, k] = c
    S.slot_quest[p, k] = 0
    sheet_refresh_nb(T, S, p)
    if base >= 0:
        S.mon_card[p, base] = c
        S.loc[p, E.VH_FIG_MONSTER0 + base] = E.VH_LOC_RESERVE
        board_changed_nb(S, p)
    note_use_nb(S, p, c, E.USE_UPGRADE)
    log_nb(S, E.VEV_UPGRADE, p, c, k, T.card_value[c], 0, 0)
    return True


@njit(cache=True)
def quest_nb(T, S, p, c):
    """Quest: commit a Quest Card face down on an open slot (no Rage)."""
    i = _hand_index(S, p, c)
    k = free_slot_nb(S, p)
    if i < 0 or k < 0 or T.card_type[c] != E.VCT_QUEST:
        return False
    hand_take_nb(S, p, i)
    S.slot[p, k] = c
    S.slot_quest[p, k] = 1
    note_use_nb(S, p, c, E.USE_QUEST)
    log_nb(S, E.VEV_QUEST, p, c, k, 0, 0, 0)
    return True



@njit(cache=True)
def all_claimed_nb(T, S):
    """Every region without a Region Token has been successfully contested this age: none is
    contestable (board.contestable_nb), counted in the kept region view (view.region_view_nb)."""
    return S.rv_nopen[0] == 0


@canonical("p")  # the Action phase's seat is int32 on the first turn, int64 after: one body, not two
@njit(cache=True)
def take_action_nb(T, S, p, kinds, params, act):
    """Clan p takes one action (the policy's choice; an illegal choice becomes a pass)."""
    kind = choose_action_nb(T, S, p, kinds[p], params[p], act)
    a, b = act[1], act[2]
    ok = False
    if kind == E.VA_SUMMON:
        ok = summon_action_nb(T, S, p, a, b)
    elif kind == E.VA_MARCH:
        dests = S.w_dests
        dests[:] = -1
        for f in range(E.VH_NFIG):
            if S.loc[p, f] == a:
                dests[f] = march_dest_nb(T, S, p, f, a, b, kinds[p], params[p])
        ok = march_nb(T, S, p, a, dests)
    elif kind == E.VA_UPGRADE:
        ok = upgrade_nb(T, S, p, a)
    elif kind == E.VA_QUEST:
        ok = quest_nb(T, S, p, a)
    elif kind == E.VA_CONTEST:
        ok = contest_nb(T, S, p, a, kinds, params)
    if not ok:
        pass_nb(S, p)


@njit(cache=True)
def pass_nb(S, p):
    """Pass: Rage drops to 0 and the clan takes no further action this Action phase, even if it
    gains Rage later (DIGEST §1.5, §3)."""
    log_nb(S, E.VEV_PASS, p, S.rage[p], 0, 0, 0, 0)
    S.rage[p] = 0
    S.passed[p] = 1


@njit(cache=True)
def can_act_nb(S, p):
    """True if clan p takes a turn now: it has Rage and has not passed this Action phase."""
    return S.passed[p] == 0 and S.rage[p] > 0


@njit(cache=True)
def summon_action_nb(T, S, p, f, r):
    """The Summon action: figure f into region r; with a summon_two upgrade a second figure
    from the reserve follows into the same region (paying its own cost)."""
    ok = summon_nb(T, S, p, f, r)
    if ok and (S.sheet_ops[p] >> E.VOP_SUMMON_TWO) & 1:  # an upgrade with summon_two
        for g in range(E.VH_NFIG):
            if S.loc[p, g] == E.VH_LOC_RESERVE and (g >= E.VH_FIG_MONSTER0 or S.rage[p] >= 1):
                summon_nb(T, S, p, g, r)
                break
    return ok


@njit(cache=True, _nrt=False)  # no reference counts in the phase (numba extends it to the callees)
def action_phase_nb(T, S, kinds, params):
    """Action Phase: Rage refilled to the Rage stat; clockwise from the first player, one action
    per turn, until every clan has passed or is at 0 Rage, or every region without a Region Token
    has been claimed."""
    P = S.gs[G_NP]
    for p in range(P):
        S.rage[p] = T.track[E.STAT_RAGE, S.stat[p, E.STAT_RAGE]]
        S.passed[p] = 0
    act = S.w_act
    act[:] = 0
    turn = 0
    p = S.gs[G_FIRST]
    idle = 0
    while True:
        if all_claimed_nb(T, S):
            break
        if idle >= P:
            break
        if can_act_nb(S, p):
            take_action_nb(T, S, p, kinds, params, act)
            S.gs[G_TURNS] += 1
            turn += 1
            idle = 0
            checkpoint_nb(T, S)
            if turn >= T.opts[E.VOPT_MAX_ACTIONS]:
                S.gs[G_CAPPED] += 1
                break
        else:
            idle += 1
        p = (p + 1) % P
    for q in range(P):
        S.rage_end[q] = S.rage[q]


# --- Quest, Prove Valor, Release Warriors, end of age, end of game -----------------------------
@njit(cache=True)
def strictly_most_str_nb(T, S, p, r):
    mine = str_in_nb(T, S, p, r)
    if mine <= 0:
        return False
    for q in range(S.gs[G_NP]):
        if q != p and str_in_nb(T, S, q, r) >= mine:
            return False
    return True


@njit(cache=True)
def quest_met_nb(T, S, p, c):
    """Whether clan p meets quest c's requirement now (opcodes q_*, opcodes.toml)."""
    for e in range(2):
        op = T.card_op[c, e]
        a = T.card_a[c, e]
        if op == E.VOP_Q_REGION:
            for r in range(T.n_outer):
                if strictly_most_str_nb(T, S, p, r):
                    return True
            return False
        if op == E.VOP_Q_VALHALLA:
            return strictly_most_str_nb(T, S, p, T.valhalla)
        if op == E.VOP_Q_GOD:
            for r in range(T.n_regions):
                if S.god_at[r] >= 0 and strictly_most_str_nb(T, S, p, r):
                    return True
            return False
        if op == E.VOP_Q_FIGURES:
            n = 0
            for f in range(E.VH_NFIG):
                if S.loc[p, f] >= 0:
                    n += 1
            return n >= a
        if op == E.VOP_Q_SPREAD:
            n = 0
            for r in range(T.n_regions):
                if count_in_nb(S, p, r) > 0:
                    n += 1
            return n >= a
        if op == E.VOP_Q_KILLS:
            n = 0
            for q in range(S.gs[G_NP]):
                for f in range(E.VH_NFIG):
                    if S.loc[q, f] == E.VH_LOC_KILL0 - p:
                        n += 1
            return n >= a
        if op == E.VOP_Q_FALLEN:
            n = 0
            for f in range(E.VH_NFIG):
                if S.loc[p, f] == E.VH_LOC_FEAST or S.loc[p, f] <= E.VH_LOC_KILL0:
                    n += 1
            return n >= a
        if op == E.VOP_Q_CLAIMS:
            return S.claims[p] >= a
    return False


@njit(cache=True)
def quest_phase_nb(T, S, kinds, params):
    """Quest Phase: each committed quest is revealed; if met, raise any stat one step, then gain
    Glory equal to the Horns stat (after a Horns raise from that quest: the rulebook's 8, not 6).
    Every revealed quest returns to the hand."""
    for p in range(S.gs[G_NP]):
        for k in range(E.VH_N_SLOTS):
            c = S.slot[p, k]
            if c < 0 or S.slot_quest[p, k] == 0:
                continue
            met = quest_met_nb(T, S, p, c)
            g = 0
            if met:
                st = choose_stat_nb(T, S, p, kinds[p], params[p])
                if st >= 0:
                    raise_stat_nb(S, p, st, E.RAISE_QUEST)
                g = T.track[E.STAT_HORNS, S.stat[p, E.STAT_HORNS]]
                add_glory_nb(S, p, g, E.G_QUEST)
                qg = sheet_sum_nb(T, S, p, E.VOP_QUEST_GLORY)
                if qg > 0:
                    for j in range(E.VH_N_SLOTS):
                        x = S.slot[p, j]
                        if x >= 0 and S.slot_quest[p, j] == 0 and card_op_sum_nb(T, x, E.VOP_QUEST_GLORY) > 0:
                            note_fired_nb(S, x, p, E.VOP_QUEST_GLORY, card_op_sum_nb(T, x, E.VOP_QUEST_GLORY))
                    add_glory_nb(S, p, qg, E.G_CARDS)
            log_nb(S, E.VEV_QUESTRES, p, c, 1 if met else 0, g, 0, 0)
            S.slot[p, k] = -1
            S.slot_quest[p, k] = 0
            hand_add_nb(S, p, c)


@njit(cache=True)
def valor_phase_nb(T, S):
    """Prove Valor Phase: in Valhalla and each region with a god, the clan(s) with the most
    figures (not STR) remove all their figures there to the Feast Hall and gain 3/4/5 Glory per
    figure by age. A tie: every tied clan scores (option valor_tie = "all": every clan there
    scores its own figures; rulings R53)."""
    P = S.gs[G_NP]
    vg = T.valor_glory[S.gs[G_AGE] - 1]
    for p in range(P):
        for f in range(E.VH_NFIG):
            if S.loc[p, f] >= 0:
                S.board_valor[p] += 1
    for r in range(T.n_regions):
        if not (r == T.valhalla or S.god_at[r] >= 0):
            continue
        m = 0
        n_top = 0
        for p in range(P):
            c = count_in_nb(S, p, r)
            if c > m:
                m, n_top = c, 1
            elif c == m and c > 0:
                n_top += 1
        if m == 0:
            continue
        every = n_top > 1 and T.opts[E.VOPT_VALOR_TIE] == 1
        for p in range(P):
            cnt = count_in_nb(S, p, r)
            if cnt != m and not (every and cnt > 0):
                continue
            # cnt: the majority's count, or (valor_tie = all, after a tie) the clan's own figures
            log_nb(S, E.VEV_VALOR, p, r, cnt, vg * cnt, 1 if n_top > 1 else 0, 0)
            for f in range(E.VH_NFIG):
                if S.loc[p, f] == r:
                    remove_fig_nb(T, S, p, f, E.VH_LOC_FEAST)
            add_glory_nb(S, p, vg * cnt, E.G_VALOR)
            extra = sheet_sum_nb(T, S, p, E.VOP_VALOR_GLORY)
            if extra > 0:
                for j in range(E.VH_N_SLOTS):
                    x = S.slot[p, j]
                    if x >= 0 and S.slot_quest[p, j] == 0 and card_op_sum_nb(T, x, E.VOP_VALOR_GLORY) > 0:
                        note_fired_nb(S, x, p, E.VOP_VALOR_GLORY, card_op_sum_nb(T, x, E.VOP_VALOR_GLORY) * cnt)
                add_glory_nb(S, p, extra * cnt, E.G_CARDS)


@njit(cache=True)
def release_nb(T, S):
    """Release Warriors Phase: every figure in a kill pile or the Feast Hall returns to its
    owner's reserve (kill_glory / fallen_glory texts score first)."""
    P = S.gs[G_NP]
    for p in range(P):
        kg = sheet_sum_nb(T, S, p, E.VOP_KILL_GLORY)
        fg = sheet_sum_nb(T, S, p, E.VOP_FALLEN_GLORY)
        if kg > 0:
            n = 0
            for q in range(P):
                for f in range(E.VH_NFIG):
                    if S.loc[q, f] == E.VH_LOC_KILL0 - p:
                        n += 1
            if n > 0:
                _fire_sheet(T, S, p, E.VOP_KILL_GLORY, n)
                add_glory_nb(S, p, kg * n, E.G_CARDS)
        if fg > 0:
            n = 0
            for f in range(E.VH_NFIG):
                if S.loc[p, f] == E.VH_LOC_FEAST or S.loc[p, f] <= E.VH_LOC_KILL0:
                    n += 1
            if n > 0:
                _fire_sheet(T, S, p, E.VOP_FALLEN_GLORY, n)
                add_glory_nb(S, p, fg * n, E.G_CARDS)
    for p in range(P):
        n = 0
        for f in range(E.VH_NFIG):
            if S.loc[p, f] == E.VH_LOC_FEAST or S.loc[p, f] <= E.VH_LOC_KILL0:
                move_fig_nb(T, S, p, f, E.VH_LOC_RESERVE)
                n += 1
        if n > 0:
            log_nb(S, E.VEV_RELEASE, p, n, 0, 0, 0, 0)


@njit(cache=True)
def _fire_sheet(T, S, p, op, mult):
    """Log each upgrade on clan p's sheet whose opcode op acted: its argument x mult."""
    for j in range(E.VH_N_SLOTS):
        x = S.slot[p, j]
        if x >= 0 and S.slot_quest[p, j] == 0 and card_op_sum_nb(T, x, op) > 0:
            note_fired_nb(S, x, p, op, card_op_sum_nb(T, x, op) * mult)


@njit(cache=True)
def end_age_nb(T, S, kinds, params):
    """End of an Age: Reward Tokens leave the board; each clan gathers its discard pile into its
    hand and keeps at most 3 cards (+carry_extra) on its clan symbol for the next age, the rest
    leave the game; the First Player Token passes left."""
    P = S.gs[G_NP]
    for r in range(T.n_regions):
        S.claimed[r] = -1
    region_view_nb(T, S)
    for p in range(P):
        S.claims[p] = 0
        for r in range(T.n_regions):
            S.contests[p, r] = 0
        for i in range(S.discard_n[p]):
            hand_add_nb(S, p, S.discard[p, i])
            S.discard[p, i] = -1
        S.discard_n[p] = 0
        keep = T.carry + sheet_sum_nb(T, S, p, E.VOP_CARRY_EXTRA)
        while S.hand_n[p] > 0:
            bi, bw = 0, -1e18
            for i in range(S.hand_n[p]):
                if kinds[p] == E.VPOL_RANDOM:
                    w = float(rand_int_nb(S.rs, 1000))
                else:
                    w = card_worth_nb(T, S, p, S.hand[p, i], params[p])
                if w > bw:
                    bi, bw = i, w
            c = hand_take_nb(S, p, bi)
            if S.saved_n[p] < keep and S.saved_n[p] < S.saved.shape[1]:
                S.saved[p, S.saved_n[p]] = c
                S.saved_n[p] += 1
                note_use_nb(S, p, c, E.USE_KEEP)
                log_nb(S, E.VEV_KEEP, p, c, 0, 0, 0, 0)
            else:
                S.gs[G_REMOVED] += 1
                log_nb(S, E.VEV_DROP, p, c, 0, 0, 0, 0)
    S.gs[G_FIRST] = (S.gs[G_FIRST] + 1) % P


@njit(cache=True)
def end_game_nb(T, S):
    """End of Game: +10 Glory per stat on the 4th or 5th step, +20 on the last; most Glory wins,
    ties broken by the most Rage left (option tie_break = shared: tied clans share)."""
    P = S.gs[G_NP]
    for p in range(P):
        for st in range(E.N_STATS):
            b = T.bonus[S.stat[p, st]]
            if b > 0:
                add_glory_nb(S, p, b, E.G_BONUS)
                log_nb(S, E.VEV_BONUS, p, st, b, 0, 0, 0)
    tot = S.w_glory
    for p in range(P):
        tot[p] = total_glory_nb(S, p)
    for p in range(P):
        rk = 1
        for q in range(P):
            if tot[q] > tot[p]:
                rk += 1
            elif tot[q] == tot[p] and q != p and T.opts[E.VOPT_TIE_BREAK] == 0 and S.rage_end[q] > S.rage_end[p]:
                rk += 1
        S.rank[p] = rk
    for p in range(P):
        log_nb(S, E.VEV_FINAL, p, tot[p], S.rank[p], S.rage_end[p], 0, 0)
