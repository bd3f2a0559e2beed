"""Invariants every reachable Blood Rage: Valhalla state keeps (tests/test_valhalla_invariants.py
runs them over thousands of games). check_invariants_nb returns the first violated code (0 none);
the engine calls checkpoint_nb after every action and phase when gs[G_CHECK] is set."""
from numba import njit

from ..core import enums as E
from ..core.record import INV_FIRST_VALHALLA, record_violation_nb
from .board import contestable_nb, count_in_nb, fig_str_nb, is_common_nb, sheet_scan_nb, str_in_nb
from .state import G_AGE, G_CHECK, G_DECK_N, G_DECK_TOTAL, G_NP, G_PHASE, G_REMOVED, G_VIOLATION
from .view import reward_worth_nb, summon_room_nb

INV_OK = 0
INV_FIRST = INV_FIRST_VALHALLA  #: Valhalla's codes follow it (core.record: codes namespaced per engine)
INV_LOC = INV_FIRST + 1  #: a figure is in no valid place, or in two kinds of place (code out of range, own kill pile)
INV_MONSTER = INV_FIRST + 2  #: a Monster figure without its card on a base, or the reverse
INV_SLOTS = INV_FIRST + 3  #: a slot holds the wrong kind of card, a quest stays committed after the Quest phase,
#: or the sheet's kept opcode sums (S.sheet) differ from its slots
INV_SUMMON = INV_FIRST + 4  #: a Summoned figure stands in Valhalla or a region that held a Region Token
INV_RAGE = INV_FIRST + 5  #: negative Rage
INV_CARDS = INV_FIRST + 6  #: cards not conserved (deck, hands, clan symbols, discard piles, slots, Reward Cards, removed)
INV_GLORY = INV_FIRST + 7  #: negative Glory from a source
INV_UNFINISHED = INV_FIRST + 8  #: the game did not end after the third age
INV_CLAIM = INV_FIRST + 9  #: a Reward Token on a region under a Region Token
INV_VIEW = INV_FIRST + 10  #: the kept board view differs from the board: a clan's (S.w_cnt, w_str, w_fmax, w_fstr, w_onb)
#: or a region's (S.rv_*, view.region_view_nb)
#: code -> name
INV_NAMES = dict(zip((INV_OK, INV_LOC, INV_MONSTER, INV_SLOTS, INV_SUMMON, INV_RAGE, INV_CARDS, INV_GLORY,
                      INV_UNFINISHED, INV_CLAIM, INV_VIEW),
                     ("ok", "figure location", "monster base", "clan-sheet slots", "summon region", "negative Rage",
                      "card conservation", "negative Glory", "unfinished game", "claim", "kept board view")))


@njit(cache=True, _nrt=False)  # no allocation: the Action phase (_nrt=False) calls it
def check_invariants_nb(T, S):
    P = S.gs[G_NP]
    cards = S.gs[G_DECK_N] + S.gs[G_REMOVED]
    for p in range(P):
        if S.rage[p] < 0:
            return INV_RAGE
        for k in range(E.N_GLORY_SRC):
            if S.glory[p, k] < 0:
                return INV_GLORY
        for f in range(E.VH_NFIG):
            l = S.loc[p, f]
            used = (f < E.VH_FIG_ELITE0 + T.n_elites) or (E.VH_FIG_WARRIOR0 <= f < E.VH_FIG_WARRIOR0 + T.n_warriors)
            if f >= E.VH_FIG_MONSTER0:
                if (S.mon_card[p, f - E.VH_FIG_MONSTER0] < 0) != (l == E.VH_LOC_NONE):
                    return INV_MONSTER
            elif used == (l == E.VH_LOC_NONE):
                return INV_LOC
            if l >= T.n_regions:
                return INV_LOC
            if l <= E.VH_LOC_KILL0:
                q = E.VH_LOC_KILL0 - l
                if q >= P or q == p:
                    return INV_LOC
            elif -10 < l < E.VH_LOC_NONE:
                return INV_LOC
            if l >= 0 and S.summoned[p, f] == 1 and (l == T.valhalla or S.token0[l] == 1):
                return INV_SUMMON
        for k in range(E.VH_N_MONSTERS):
            c = S.mon_card[p, k]
            if c < 0:
                continue
            found = False
            for j in range(E.VH_N_SLOTS):
                if S.slot[p, j] == c and S.slot_quest[p, j] == 0:
                    found = True
            if not found or T.card_type[c] != E.VCT_MONSTER:
                return INV_MONSTER
        for j in range(E.VH_N_SLOTS):
            c = S.slot[p, j]
            if c < 0:
                continue
            cards += 1
            isq = T.card_type[c] == E.VCT_QUEST
            if isq != (S.slot_quest[p, j] == 1) or T.card_type[c] == E.VCT_BATTLE:
                return INV_SLOTS
            if isq and S.gs[G_PHASE] > E.VPH_QUEST:
                return INV_SLOTS
        ops = 0
        for op in range(E.N_VOPS):
            if S.sheet[p, op] != sheet_scan_nb(T, S, p, op):
                return INV_SLOTS
            for j in range(E.VH_N_SLOTS):
                c = S.slot[p, j]
                if c >= 0 and S.slot_quest[p, j] == 0 and (T.card_op[c, 0] == op or T.card_op[c, 1] == op):
                    ops |= 1 << op
        if S.sheet_ops[p] != ops:
            return INV_SLOTS
        if S.view_stale[p] == 0 and not view_kept_nb(T, S, p):
            return INV_VIEW
        cards += S.hand_n[p] + S.saved_n[p] + S.discard_n[p]
        for k in range(S.rewards.shape[1]):  # Rainbow Bridge Reward Cards waiting for the age-1 draft
            if S.rewards[p, k] >= 0:
                cards += 1
        if S.played[p] >= 0:
            cards += 1
    if cards != S.gs[G_DECK_TOTAL]:
        return INV_CARDS
    for r in range(T.n_regions):
        if S.claimed[r] >= 0 and S.token[r] == 1:
            return INV_CLAIM
    if not regions_kept_nb(T, S):
        return INV_VIEW
    if S.gs[G_PHASE] == E.VPH_END and S.gs[G_AGE] != 3:
        return INV_UNFINISHED
    return INV_OK


@njit(cache=True)
def view_kept_nb(T, S, p):
    """Clan p's rows of the kept board view (view.board_view_nb) agree with its figures,
    recomputed here figure by figure."""
    for f in range(E.VH_NFIG):
        if S.w_fstr[p, f] != fig_str_nb(T, S, p, f):
            return False
    onb = 0
    for r in range(T.n_regions):
        onb += count_in_nb(S, p, r)
        top = -1
        for f in range(E.VH_NFIG):
            if S.loc[p, f] == r:
                top = max(top, fig_str_nb(T, S, p, f), 0)
        if S.w_cnt[p, r] != count_in_nb(S, p, r) or S.w_str[p, r] != str_in_nb(T, S, p, r) or S.w_fmax[p, r] != top:
            return False
    return S.w_onb[p] == onb


@njit(cache=True)
def regions_kept_nb(T, S):
    """The kept region view (view.region_view_nb) agrees with the tokens, gods, claims and
    rewards, recomputed here from the adjacency matrix."""
    for r in range(T.n_regions):
        near = 0
        for x in range(T.n_regions):
            if T.adj[r, x] == 1 and (S.god_at[x] >= 0 or x == T.valhalla or S.token[x] == 1):
                near += 1
        if (S.rv_common[r] != is_common_nb(T, S, r) or S.rv_open[r] != contestable_nb(T, S, r)
                or S.rv_valor[r] != (S.god_at[r] >= 0 or r == T.valhalla) or S.rv_near[r] != near
                or S.rv_worth[r] != reward_worth_nb(T, S, r)):
            return False
    n = 0
    for r in range(T.n_regions):
        n += S.token[r] == 0 and S.claimed[r] < 0
    return S.rv_smax[0] == summon_room_nb(T, S) and S.rv_nopen[0] == n


@njit(cache=True, _nrt=False)
def checkpoint_nb(T, S):
    """Record the first violation (code and turn) when checking is on."""
    if S.gs[G_CHECK] == 1 and S.gs[G_VIOLATION] == 0:
        record_violation_nb(S, check_invariants_nb(T, S))
