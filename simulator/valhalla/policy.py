"""Blood Rage: Valhalla strategies: every decision of the engine goes through these kernels.

kind (int8): VPOL_RANDOM (uniform over legal choices), VPOL_GREEDY (a heuristic tuned by
params, float64[VP_N], enums VP_*) or VPOL_SCRIPT (scenarios: the draft pick, stat, Call to
Battle figure and battle card come from the clan's script queue while it lasts, then greedy).
New strategies are parameter vectors, never callbacks.
"""
from numba import njit

from ..core import enums as E
from ..core.rng import rand_int_nb
from ..core.script import script_pop_nb, script_refused_nb
from .board import (
    contestable_nb,
    count_in_nb,
    fig_str_nb,
    free_base_nb,
    free_slot_nb,
    has_enemy_nb,
    is_common_nb,
    sheet_sum_nb,
)
from .state import G_AGE, G_NP, G_SCRIPT_BAD, G_SCRIPT_BAD_AT
from .view import adjacent_str_nb, board_view_nb

NEG = -1e18


@njit(cache=True, _nrt=False)
def script_bad_nb(S, p):
    """Clan p's scripted value named no legal option: counted and the first one kept (the scenario
    reports it); greedy decides."""
    script_refused_nb(S, p, G_SCRIPT_BAD, G_SCRIPT_BAD_AT)


@njit(cache=True, _nrt=False)
def card_worth_nb(T, S, p, c, params):
    """Greedy worth of holding card c (draft, keep): type weight + effects + god and card bonus;
    read from the row's column VP_N + c when ``params`` carries draft_table_nb's columns."""
    if params.shape[0] > E.VP_N:
        return params[E.VP_N + c]
    return _card_worth(T, c, params)


@njit(cache=True, _nrt=False)
def draft_table_nb(T, S, P):
    """Each seat's card_worth_nb for every card c < T.n_cards, for the batch path: columns VP_N + c
    of S.pol_params[p] (float64[VP_N + VH_MAX_CARDS]), from the parameters in its first VP_N
    columns (load_policies_nb's): the worth depends on the card and parameters alone."""
    for p in range(P):
        params = S.pol_params[p, :E.VP_N]
        for c in range(T.n_cards):
            S.pol_params[p, E.VP_N + c] = _card_worth(T, c, params)


@njit(inline="always")
def _card_worth(T, c, params):
    t = T.card_type[c]
    v = 0.0
    if t == E.VCT_BATTLE:
        v = params[E.VP_W_BATTLE] * T.card_value[c]
    elif t == E.VCT_MONSTER:
        v = params[E.VP_W_MONSTER] * T.card_value[c]
    elif t == E.VCT_QUEST:
        v = params[E.VP_W_QUEST]
    else:
        v = params[E.VP_W_UPGRADE] - 0.3 * T.card_value[c]
    for e in range(2):
        op = T.card_op[c, e]
        if op >= 0 and op not in E.VOP_QUESTS:
            v += 0.6 * max(T.card_a[c, e], 1)
    g = T.card_vgod[c]
    if g >= 0:
        v += params[E.VP_GOD_W0 + T.god_power[g]]
    v += params[E.VP_CARD_W0 + c]
    return v


@njit(cache=True, _nrt=False)
def draft_pick_nb(T, S, p, pack, n, kind, params):
    """Index in pack[:n] of the card clan p keeps. Script: a card id."""
    if kind == E.VPOL_RANDOM:
        return rand_int_nb(S.rs, n)
    if kind == E.VPOL_SCRIPT:
        v = script_pop_nb(S, p)
        if v != E.SCRIPT_NONE:
            for i in range(n):
                if pack[i] == v:
                    return i
            script_bad_nb(S, p)
    best, bi = NEG, 0
    for i in range(n):
        w = card_worth_nb(T, S, p, pack[i], params)
        if w > best:
            best, bi = w, i
    return bi


@njit(cache=True, _nrt=False)
def choose_stat_nb(T, S, p, kind, params):
    """Stat code clan p raises when it may choose (-1 if every track is at its last step).
    Script: a stat code."""
    if kind == E.VPOL_SCRIPT:
        v = script_pop_nb(S, p)
        if v != E.SCRIPT_NONE:
            if 0 <= v < E.N_STATS and S.stat[p, v] < E.N_STEPS - 1:
                return v
            script_bad_nb(S, p)
    if kind == E.VPOL_RANDOM:
        n = 0
        for s in range(E.N_STATS):
            if S.stat[p, s] < E.N_STEPS - 1:
                n += 1
        if n == 0:
            return -1
        k = rand_int_nb(S.rs, n)
        for s in range(E.N_STATS):
            if S.stat[p, s] < E.N_STEPS - 1:
                if k == 0:
                    return s
                k -= 1
    for i in range(3):
        s = int(params[E.VP_STAT0 + i])
        if 0 <= s < E.N_STATS and S.stat[p, s] < E.N_STEPS - 1:
            return s
    for s in range(E.N_STATS):
        if S.stat[p, s] < E.N_STEPS - 1:
            return s
    return -1


@njit(cache=True, _nrt=False)
def best_battle_value_nb(T, S, p):
    """Highest +STR among clan p's battle cards in hand, 0 if none."""
    b = 0
    for i in range(S.hand_n[p]):
        b = max(b, T.card_bv[S.hand[p, i]])  # a battle card's +STR, else 0 (rules.VTABLES_DTYPE)
    return b


@njit(cache=True, _nrt=False)
def best_adjacent_nb(T, S, p, r):
    """(figure, STR) of clan p's strongest figure (the first of equals) in a region adjacent to r,
    (-1, 0) if none. Reads board_view_nb's tables: call it first."""
    n = 0
    for k in range(T.adj_n[r]):  # most clans have no figure next to a contested region
        n += S.w_cnt[p, T.adj_to[r, k]]
    if n == 0:
        return -1, 0
    bf, bs = -1, -1
    for f in range(E.VH_NFIG):
        l = S.loc[p, f]
        if l >= 0 and l != r and T.adj[l, r] == 1:
            s = S.w_fstr[p, f]
            if s > bs:
                bf, bs = f, s
    return bf, max(bs, 0)


@njit(cache=True, _nrt=False)
def contest_score_nb(T, S, p, r, params, bbv):
    """Greedy score of contesting r now (NEG if unwise); reads board_view_nb's tables; bbv: clan
    p's best battle card value (best_battle_value_nb)."""
    cnt, st = S.w_cnt, S.w_str
    if not S.rv_open[r] or cnt[p, r] == 0:
        return NEG
    if S.contests[p, r] >= 2:  # two failed contests there this age: free actions must not loop
        return NEG
    mine = st[p, r] + max(adjacent_str_nb(T, S, p, r), 0) + bbv
    enemy = 0.0
    opposed = False
    for q in range(S.gs[G_NP]):
        if q == p:
            continue
        n_in = cnt[q, r]
        a = adjacent_str_nb(T, S, q, r)
        if n_in == 0 and a < 0:
            continue
        opposed = True
        e = st[q, r] + max(a, 0) + (params[E.VP_OPP_CARD] if S.hand_n[q] > 0 else 0.0)
        if e > enemy:
            enemy = e
    w = S.rv_worth[r]
    if not opposed:
        return w + 3.0
    if mine - enemy < params[E.VP_CONTEST_MARGIN]:
        return NEG
    return w + T.track[E.STAT_AXES, S.stat[p, E.STAT_AXES]]


@njit(cache=True, _nrt=False)
def summon_target_nb(T, S, p, params):
    """(region, score) where a Summon would help most: a common region with an unclaimed reward
    where clan p is strongest relative to its rivals, next to god regions and Valhalla. Reads
    board_view_nb's and region_view_nb's tables. A region whose score could not beat the best
    one so far even without the rivals' term (which only subtracts) is not scored further."""
    cnt, st = S.w_cnt, S.w_str
    br, bs = -1, NEG
    for r in range(T.n_regions):
        if not S.rv_common[r]:
            continue
        s = 0.0
        if S.rv_open[r]:
            s += S.rv_worth[r] * 0.4
            if cnt[p, r] == 0:
                s += 1.0
        if s + 0.3 * S.rv_near[r] + 0.011 <= bs:  # above its score even before the rivals' term
            continue
        rival = 0
        for q in range(S.gs[G_NP]):
            if q != p:
                rival = max(rival, st[q, r])
        s -= 0.5 * max(rival - st[p, r], 0)
        for _ in range(S.rv_near[r]):  # next to a Prove Valor region (added one by one: the same sum)
            s += 0.3
        s += T.spread[p, r]  # stable spread between clans
        if s > bs:
            br, bs = r, s
    return br, bs


@njit(cache=True, _nrt=False)
def summon_cap_nb(T, S, monster):
    """An upper bound of choose_action_nb's Summon score (3 + summon_target_nb's + 1 for a
    Monster), from the region view (S.rv_smax: summon_room_nb); the rivals' term only subtracts.
    With a better action already found, the Summon target need not be sought."""
    return 3.0 + S.rv_smax[0] + (1.0 if monster else 0.0) + 1e-9


@njit(cache=True, _nrt=False)
def valor_cap_nb(T, S, p, params):
    """An upper bound of valor_region_nb's score: its Glory term for every figure of clan p on
    the board (S.w_onb, board_view_nb), with its discount while Rage remains, + 1. With a better
    action already found, the March need not be sought."""
    g = abs(params[E.VP_VALOR] * T.valor_glory[S.gs[G_AGE] - 1]) * S.w_onb[p] * (0.35 if S.rage[p] > 2 else 1.0)
    return g * (1.0 + 1e-12) + 1.0 + 1e-9


@njit(cache=True, _nrt=False)
def valor_region_nb(T, S, p, params):
    """(source region, target region, score) for a March into a Prove Valor region (god or
    Valhalla) where clan p would reach the majority. Reads board_view_nb's and region_view_nb's
    tables."""
    cnt = S.w_cnt
    best_s, bsrc, bdst = NEG, -1, -1
    vg = T.valor_glory[S.gs[G_AGE] - 1]
    for dst in range(T.n_regions):
        if not S.rv_valor[dst]:
            continue
        top = 0
        for q in range(S.gs[G_NP]):
            if q != p:
                top = max(top, cnt[q, dst])
        mine = cnt[p, dst]
        for k in range(T.adj_n[dst]):  # ascending, as a scan of every region
            src = T.adj_to[dst, k]
            n = cnt[p, src]
            if n == 0:
                continue
            if S.rv_valor[src]:  # do not leave a Prove Valor majority it holds
                top_src = 0
                for q in range(S.gs[G_NP]):
                    if q != p:
                        top_src = max(top_src, cnt[q, src])
                if n >= top_src:
                    continue
            tot = mine + n
            if tot < top:
                continue
            # expected Prove Valor Glory, discounted while Rage remains for contests
            s = params[E.VP_VALOR] * vg * tot * (0.35 if S.rage[p] > 2 else 1.0)
            if not S.rv_open[src]:  # claimed, or under a Region Token
                s += 1.0  # nothing left to win there this age
            if s > best_s:
                best_s, bsrc, bdst = s, src, dst
    return bsrc, bdst, best_s


@njit(inline="always")
def _hand_pick(T, S, p, rage):
    """(score, VA_QUEST or VA_UPGRADE, card) of the first best card in clan p's hand to commit as
    a quest or upgrade now, (NEG, VA_PASS, 0) if none (no free slot, or no card it can pay)."""
    bs, ba, bc = NEG, E.VA_PASS, 0
    if free_slot_nb(S, p) < 0:
        return bs, ba, bc
    for i in range(S.hand_n[p]):
        c = S.hand[p, i]
        t = T.card_type[c]
        if t == E.VCT_QUEST:
            s = 5.0 if rage > 2 else 8.0  # free, but no action at 0 Rage: commit early
        elif t == E.VCT_BATTLE:
            continue
        else:
            if T.card_value[c] > rage or (t == E.VCT_MONSTER and free_base_nb(T, S, p) < 0):
                continue
            s = 4.0 + (T.card_value[c] * 0.5 if t == E.VCT_MONSTER else 0.0) - 0.8 * T.card_value[c] * (rage <= 2)
        if s > bs:
            bs, ba, bc = s, (E.VA_QUEST if t == E.VCT_QUEST else E.VA_UPGRADE), c
    return bs, ba, bc


@njit(cache=True, _nrt=False)
def choose_action_nb(T, S, p, kind, params, out):
    """Clan p's action: out[0] = VA_*, out[1], out[2] its arguments (see enums VA_*)."""
    rage = S.rage[p]
    if kind == E.VPOL_RANDOM:
        return _random_action_nb(T, S, p, out)
    board_view_nb(T, S)
    best = params[E.VP_PASS]
    out[0], out[1], out[2] = E.VA_PASS, 0, 0
    bbv = -1  # best_battle_value_nb, read at the first region worth scoring
    cnt = S.w_cnt
    # contest_score_nb's most above a region's worth: a region that cannot beat the best so far
    # is not scored (the same float sums, so the bound is exact)
    lift = max(3.0, float(T.track[E.STAT_AXES, S.stat[p, E.STAT_AXES]]))
    # the hand's best card, scored first so that a contest below it is not scored either (a
    # contest is listed before the cards: it wins a tie with them)
    hs, ha, hc = _hand_pick(T, S, p, rage)
    for r in range(T.n_regions):
        s = NEG  # contest_score_nb's for a region closed or without clan p's figures
        ub = S.rv_worth[r] + lift
        if S.rv_open[r] and cnt[p, r] > 0 and ub > best and ub >= hs:
            if bbv < 0:
                bbv = best_battle_value_nb(T, S, p)
            s = contest_score_nb(T, S, p, r, params, bbv)
        if s > best:
            best = s
            out[0], out[1], out[2] = E.VA_CONTEST, r, 0
    if hs > best:
        best = hs
        out[0], out[1], out[2] = ha, hc, 0
    # Summon: a Monster (free) first, then the strongest other figure; no figure is sought when
    # even a Monster's cap is no better than the best action found
    fig, fs = -1, -1
    if best < summon_cap_nb(T, S, True):
        for f in range(E.VH_NFIG):
            if S.loc[p, f] == E.VH_LOC_RESERVE:
                s = S.w_fstr[p, f] + (10 if f >= E.VH_FIG_MONSTER0 else 0)
                if s > fs:
                    fig, fs = f, s
    if fig >= 0 and best < summon_cap_nb(T, S, fig >= E.VH_FIG_MONSTER0):
        r, s = summon_target_nb(T, S, p, params)
        if r >= 0:
            s = 3.0 + s + (1.0 if fig >= E.VH_FIG_MONSTER0 else 0.0)
            if s > best:
                best = s
                out[0], out[1], out[2] = E.VA_SUMMON, fig, r
    if rage >= 1 and valor_cap_nb(T, S, p, params) > best:
        src, dst, s = valor_region_nb(T, S, p, params)
        if src >= 0 and s > best:
            best = s
            out[0], out[1], out[2] = E.VA_MARCH, src, dst
    return out[0]


@njit(cache=True, _nrt=False)
def _random_action_nb(T, S, p, out):
    """Uniform over action kinds that are legal now, then uniform over their arguments."""
    out[0], out[1], out[2] = E.VA_PASS, 0, 0
    n_opts = 0
    opts = S.w_opts
    for f in range(E.VH_NFIG):
        if S.loc[p, f] == E.VH_LOC_RESERVE:
            for r in range(T.n_regions):
                if is_common_nb(T, S, r) and n_opts < 64:
                    opts[3 * n_opts], opts[3 * n_opts + 1], opts[3 * n_opts + 2] = E.VA_SUMMON, f, r
                    n_opts += 1
            break
    for r in range(T.n_regions):
        if count_in_nb(S, p, r) > 0:
            if contestable_nb(T, S, r) and n_opts < 64:
                opts[3 * n_opts], opts[3 * n_opts + 1], opts[3 * n_opts + 2] = E.VA_CONTEST, r, 0
                n_opts += 1
            for d in range(T.n_regions):
                if T.adj[r, d] == 1 and n_opts < 64:
                    opts[3 * n_opts], opts[3 * n_opts + 1], opts[3 * n_opts + 2] = E.VA_MARCH, r, d
                    n_opts += 1
    slot = free_slot_nb(S, p)
    for i in range(S.hand_n[p]):
        c = S.hand[p, i]
        t = T.card_type[c]
        if slot < 0 or t == E.VCT_BATTLE or n_opts >= 64:
            continue
        if t != E.VCT_QUEST and (T.card_value[c] > S.rage[p] or (t == E.VCT_MONSTER and free_base_nb(T, S, p) < 0)):
            continue
        opts[3 * n_opts] = E.VA_QUEST if t == E.VCT_QUEST else E.VA_UPGRADE
        opts[3 * n_opts + 1], opts[3 * n_opts + 2] = c, 0
        n_opts += 1
    k = rand_int_nb(S.rs, n_opts + 1)  # + pass
    if k < n_opts:
        out[0], out[1], out[2] = opts[3 * k], opts[3 * k + 1], opts[3 * k + 2]
    return out[0]


@njit(cache=True, _nrt=False)
def march_dest_nb(T, S, p, f, src, dst, kind, params):
    """Where figure f of clan p goes in a March from src whose main target is dst: dst, another
    adjacent region, or src (stays). Greedy: every figure goes to dst."""
    if kind == E.VPOL_RANDOM:
        k = rand_int_nb(S.rs, 3)
        if k == 0:
            return src
        if k == 1:
            return dst
        for x in range(T.n_regions):  # any other adjacent region
            if x != dst and x != src and T.adj[src, x] == 1 and rand_int_nb(S.rs, 2) == 0:
                return x
    return dst


@njit(cache=True, _nrt=False)
def call_choice_nb(T, S, q, c, r, kind, params):
    """Call to Battle: the figure clan q moves into r (contested by clan c), or -1.
    Script: a figure slot of q in a region adjacent to r, or -1."""
    board_view_nb(T, S)  # kept by the moves: recounts only a clan whose figures' STR changed
    f, s = best_adjacent_nb(T, S, q, r)
    if f < 0:
        return -1
    if kind == E.VPOL_SCRIPT:
        v = script_pop_nb(S, q)
        if v == -1:
            return -1
        if v != E.SCRIPT_NONE:
            if 0 <= v < E.VH_NFIG and S.loc[q, v] >= 0 and S.loc[q, v] != r and T.adj[S.loc[q, v], r] == 1:
                return v
            script_bad_nb(S, q)
    if kind == E.VPOL_RANDOM:
        return f if rand_int_nb(S.rs, 2) == 0 else -1
    if q == c:
        return f if has_enemy_nb(S, q, r) else -1
    if S.w_cnt[q, r] > 0:
        return f  # defend
    # join for the battle Glory when it could win
    top = 0.0
    for x in range(S.gs[G_NP]):
        if x != q:
            top = max(top, S.w_str[x, r] + (params[E.VP_OPP_CARD] if S.hand_n[x] > 0 else 0.0))
    mine = s + best_battle_value_nb(T, S, q)
    return f if mine > top + params[E.VP_CONTEST_MARGIN] else -1


@njit(cache=True, _nrt=False)
def battle_card_nb(T, S, p, r, kind, params):
    """Hand index of the card clan p reveals in the battle in r (it must reveal one if it has any).
    Greedy: the smallest battle card expected to win; if none does, the strongest card anyway
    (a loser takes its card back), preferring cards that pay when losing."""
    n = S.hand_n[p]
    if n == 0:
        return -1
    if kind == E.VPOL_RANDOM:
        return rand_int_nb(S.rs, n)
    if kind == E.VPOL_SCRIPT:  # a card id
        v = script_pop_nb(S, p)
        if v != E.SCRIPT_NONE:
            for i in range(n):
                if S.hand[p, i] == v:
                    return i
            script_bad_nb(S, p)
    board_view_nb(T, S)  # the figures called in since the last decision
    cnt, st = S.w_cnt, S.w_str
    mine = st[p, r] + sheet_sum_nb(T, S, p, E.VOP_BATTLE_STR)
    top = 0.0
    for q in range(S.gs[G_NP]):
        if q != p and cnt[q, r] > 0:
            top = max(top, st[q, r] + (params[E.VP_OPP_CARD] if S.hand_n[q] > 0 else 0.0))
    bi, bv = -1, 1e9
    for i in range(n):
        c = S.hand[p, i]
        if T.card_type[c] == E.VCT_BATTLE and mine + T.card_value[c] > top and T.card_value[c] < bv:
            bi, bv = i, T.card_value[c]
    if bi >= 0:
        return bi
    bs = NEG
    for i in range(n):
        # a battle card's +STR + 2 x what it pays on losing (Glory, steal, Rage), else 0
        s = T.card_lose[S.hand[p, i]]
        if s > bs:
            bs, bi = s, i
    return bi


@njit(cache=True, _nrt=False)
def enemy_target_nb(T, S, p):
    """(clan, figure) of the enemy figure on the board clan p most wants destroyed (Tyr's tile):
    the strongest one in a Prove Valor region, else the strongest anywhere; (-1, -1) if none."""
    bq, bf, bs = -1, -1, NEG
    for q in range(S.gs[G_NP]):
        if q == p:
            continue
        for f in range(E.VH_NFIG):
            l = S.loc[q, f]
            if l < 0:
                continue
            s = fig_str_nb(T, S, q, f) + (5.0 if (S.god_at[l] >= 0 or l == T.valhalla) else 0.0)
            if s > bs:
                bq, bf, bs = q, f, s
    return bq, bf
