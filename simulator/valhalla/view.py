"""The board and the regions as Blood Rage: Valhalla greedy reads them, kept in the state
between decisions (rulebook "Figures", "Summon", "Contest", "Prove Valor"): per clan and region
the figures' count, STR and strongest figure (board_view_nb: moves keep them, board.move_fig_nb;
a change of a figure's STR marks the clan for a recount, board.board_changed_nb), and per region
what is common, contestable, worth and next to (region_view_nb: after each change to a Region
Token, god, claim or reward). The invariants check both against the board (invariants.py)."""
from numba import njit

from ..core import enums as E
from .board import contestable_nb, is_common_nb, sheet_sum_nb
from .state import G_NP


@njit(cache=True, _nrt=False)
def board_view_nb(T, S):
    """What one greedy action decision reads of the board, for every clan q and region r (rows
    past gs[G_NP], columns past n_regions untouched): S.w_fstr[q, f] = fig_str_nb(T, S, q, f);
    S.w_cnt[q, r] = count_in_nb(S, q, r); S.w_str[q, r] = str_in_nb(T, S, q, r); S.w_fmax[q, r] =
    the STR of q's strongest figure in r, -1 for none (adjacent_str_nb reads it); S.w_onb[q] =
    q's figures on the board. Kept between calls: moves update the rows (board.move_fig_nb), and
    only the rows of clans whose figures' STR changed since (S.view_stale,
    board.board_changed_nb) are recomputed."""
    for q in range(S.gs[G_NP]):
        if S.view_stale[q]:
            view_refresh_nb(T, S, q)


@njit(cache=True, _nrt=False)
def view_refresh_nb(T, S, q):
    """Clan q's rows of board_view_nb's tables, in one pass over its figures."""
    cnt, st, fs, fmax = S.w_cnt, S.w_str, S.w_fstr, S.w_fmax
    R = T.n_regions
    elite = T.fig_str[0] + sheet_sum_nb(T, S, q, E.VOP_ELITE_STR)
    for r in range(R):
        cnt[q, r] = 0
        st[q, r] = 0
        fmax[q, r] = -1
    onb = 0
    for f in range(E.VH_NFIG):
        if f < E.VH_FIG_WARRIOR0:
            v = elite
        elif f < E.VH_FIG_MONSTER0:
            v = T.fig_str[1]
        else:
            c = S.mon_card[q, f - E.VH_FIG_MONSTER0]
            v = T.card_value[c] if c >= 0 else 0
        fs[q, f] = v
        loc = S.loc[q, f]
        if 0 <= loc < R:
            cnt[q, loc] += 1
            st[q, loc] += v
            if v > fmax[q, loc]:
                fmax[q, loc] = max(v, 0)
            onb += 1
    S.w_onb[q] = onb
    S.view_stale[q] = 0


@njit(cache=True, _nrt=False)
def adjacent_str_nb(T, S, q, r):
    """best_adjacent_nb(T, S, q, r)'s STR from board_view_nb's table, -1 when no figure of q
    stands in a region adjacent to r (the board's adjacency is symmetric: rules.py checks it).
    Asked only for the regions a contest is weighed in, where a pass over every figure's
    neighbours filled the table for every region."""
    fmax = S.w_fmax
    a = -1
    for k in range(T.adj_n[r]):
        x = fmax[q, T.adj_to[r, k]]
        if x > a:
            a = x
    return a


@njit(cache=True, _nrt=False)
def reward_worth_nb(T, S, r):
    if S.god_at[r] >= 0:
        return 7.0
    rw = S.reward[r]
    if rw == E.VR_ALL:
        return 10.0
    if rw == E.VR_GLORY:
        return float(T.glory_reward)
    return 4.5


@njit(cache=True, _nrt=False)
def region_view_nb(T, S):
    """What greedy reads of each region r < n_regions, kept in S until the next change to a
    Region Token, god, claim or reward (call after each): S.rv_common[r] = is_common_nb,
    S.rv_open[r] = contestable_nb, S.rv_valor[r] (a god's region or Valhalla), S.rv_near[r] (its
    neighbours with a god or a Region Token, or Valhalla: summon_target_nb), S.rv_worth[r] =
    reward_worth_nb; S.rv_smax[0] = summon_room_nb (summon_cap_nb); S.rv_nopen[0] = the
    contestable regions (engine.all_claimed_nb)."""
    for r in range(T.n_regions):
        S.rv_common[r] = is_common_nb(T, S, r)
        S.rv_open[r] = contestable_nb(T, S, r)
        S.rv_valor[r] = S.god_at[r] >= 0 or r == T.valhalla
        S.rv_worth[r] = reward_worth_nb(T, S, r)
        n = 0
        for k in range(T.adj_n[r]):  # the adjacency is symmetric: rules.py checks it
            x = T.adj_to[r, k]
            n += S.god_at[x] >= 0 or x == T.valhalla or S.token[x] == 1
        S.rv_near[r] = n
    S.rv_smax[0] = summon_room_nb(T, S)
    n = 0
    for r in range(T.n_regions):
        n += S.rv_open[r]
    S.rv_nopen[0] = n


@njit(cache=True, _nrt=False)
def region_claimed_nb(T, S, r):
    """region_view_nb after a claim of region r (a claim changes only what is contestable)."""
    was = S.rv_open[r]
    S.rv_open[r] = contestable_nb(T, S, r)
    S.rv_nopen[0] += S.rv_open[r] - was
    S.rv_smax[0] = summon_room_nb(T, S)


@njit(cache=True, _nrt=False)
def summon_room_nb(T, S):
    """The most summon_target_nb's score can reach in any common region, rivals aside: 0.4 x its
    reward's worth and 1 if contestable, 0.3 per neighbour counted, the spread (< 0.011). Reads
    the region view being built (region_view_nb)."""
    top = 0.0
    for r in range(T.n_regions):
        if S.rv_common[r]:
            u = 0.3 * S.rv_near[r] + 0.011
            if S.rv_open[r]:
                u += S.rv_worth[r] * 0.4 + 1.0
            top = max(top, u)
    return top
